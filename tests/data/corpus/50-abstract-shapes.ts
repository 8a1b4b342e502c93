// Abstract classes with concrete subclasses.
abstract class Shape {
  static created = 0;
  constructor(protected readonly label: string) {
    Shape.created++;
  }
  abstract area(): number;
  abstract get sides(): number;

  describe(): string {
    return `${this.label}: area=${this.area().toFixed(2)} sides=${this.sides}`;
  }
}

class Rect extends Shape {
  constructor(private w: number, private h: number) {
    super(w === h ? 'square' : 'rect');
  }
  area(): number {
    return this.w * this.h;
  }
  get sides(): number {
    return 4;
  }
}

class Circle extends Shape {
  constructor(private readonly r: number) {
    super('circle');
  }
  area(): number {
    return Math.PI * this.r ** 2;
  }
  get sides(): number {
    return 0;
  }
  override describe(): string {
    return super.describe() + ` r=${this.r}`;
  }
}

const spec = tools.echo({ rects: [[2, 3], [4, 4]], circles: [1] }) as { rects: [number, number][]; circles: number[] };

const shapes: Shape[] = [
  ...spec.rects.map(([w, h]) => new Rect(w, h)),
  ...spec.circles.map((r) => new Circle(r)),
];

const lines = shapes.map((s) => s.describe());
for (const l of lines) console.log(l);

const total = shapes.reduce((sum, s) => sum + s.area(), 0);
return { lines, total: Math.round(total * 100) / 100, created: Shape.created, rectIsShape: shapes[0] instanceof Shape };
