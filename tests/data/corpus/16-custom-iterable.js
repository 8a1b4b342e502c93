// An object that is iterable through Symbol.iterator.
class Range {
  constructor(start, end, step = 1) {
    Object.assign(this, { start, end, step });
  }
  [Symbol.iterator]() {
    let current = this.start;
    const { end, step } = this;
    return {
      next: () => {
        if (current >= end) return { done: true, value: undefined };
        const value = current;
        current += step;
        return { done: false, value };
      },
    };
  }
}

const playlist = {
  tracks: ['intro', 'verse', 'chorus'],
  *[Symbol.iterator]() {
    for (const t of this.tracks) yield t.toUpperCase();
  },
};

const collected = [];
for (const n of new Range(0, 10, 3)) collected.push(n);

const squares = Array.from(new Range(1, 5), (n) => n ** 2);
const spread = [...new Range(5, 8)];
const [first, second] = new Range(100, 200, 50);
const tracks = [...playlist];
const set = new Set(new Range(0, 4));
const map = new Map([...new Range(1, 4)].map((n) => [`k${n}`, n * 10]));

const sums = [];
for (const n of new Range(1, 4)) {
  sums.push(tools.math.add({ a: n, b: 100 }));
}

return { collected, squares, spread, first, second, tracks, setSize: set.size, map: Object.fromEntries(map), sums };
