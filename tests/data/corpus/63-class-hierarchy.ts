// Classes implementing several interfaces, with private state.
interface Named {
  readonly name: string;
}
interface Serializable {
  toJSON(): Record<string, unknown>;
}
interface Countable {
  count(): number;
}

class Folder implements Named, Serializable, Countable {
  static readonly separator = '/';
  #children: Folder[] = [];
  #files: string[] = [];

  constructor(public readonly name: string, private parent?: Folder) {
    parent?.#children.push(this);
  }

  addFile(...names: string[]): this {
    this.#files.push(...names);
    return this;
  }

  get path(): string {
    return this.parent ? `${this.parent.path}${Folder.separator}${this.name}` : this.name;
  }

  count(): number {
    return this.#files.length + this.#children.reduce((n, c) => n + c.count(), 0);
  }

  #listing(indent: number): string[] {
    const pad = '  '.repeat(indent);
    return [`${pad}${this.name}/`, ...this.#files.map((f) => `${pad}  ${f}`), ...this.#children.flatMap((c) => c.#listing(indent + 1))];
  }

  render(): string {
    return this.#listing(0).join('\n');
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, files: [...this.#files], children: this.#children.map((c) => c.toJSON()) };
  }
}

const root = new Folder('root');
const docs = new Folder('docs', root).addFile('readme.md');
const src = new Folder('src', root).addFile('main.ts', 'util.ts');
new Folder('deep', src).addFile(tools.kv.get({ key: 'file' }) as string);

const items: Named[] = [root, docs, src];
console.log(root.render());

return { count: root.count(), paths: [docs.path, src.path], names: items.map((i) => i.name), json: JSON.parse(JSON.stringify(root)), separator: Folder.separator };
