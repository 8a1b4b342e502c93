// Overload signatures for a flexible formatter.
function format(value: number): string;
function format(value: string, width: number): string;
function format(value: boolean): 'yes' | 'no';
function format(value: number | string | boolean, width?: number): string {
  if (typeof value === 'number') return value.toFixed(1);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return value.padEnd(width ?? 0, '.');
}

class Store {
  private data = new Map<string, unknown>();

  get(key: string): unknown;
  get<T>(key: string, fallback: T): T;
  get<T>(key: string, fallback?: T): unknown {
    return this.data.has(key) ? this.data.get(key) : fallback;
  }

  put(entries: Record<string, unknown>): void;
  put(key: string, value: unknown): void;
  put(a: string | Record<string, unknown>, b?: unknown): void {
    if (typeof a === 'string') {
      this.data.set(a, b);
    } else {
      for (const [k, v] of Object.entries(a)) this.data.set(k, v);
    }
  }
}

function fetchUser(id: number): { name: string };
function fetchUser(ids: number[]): { name: string }[];
function fetchUser(arg: number | number[]): { name: string } | { name: string }[] {
  return Array.isArray(arg) ? arg.map((id) => tools.users.get({ id })) : tools.users.get({ id: arg });
}

const store = new Store();
store.put('theme', tools.kv.get({ key: 'theme' }));
store.put({ size: 3, dark: true });

const single = fetchUser(2).name;
const many = fetchUser([4, 5]).map((u) => u.name);

return {
  formatted: [format(3.14159), format('id', 5), format(true), format(false)],
  store: [store.get('theme'), store.get<number>('size', 0), store.get('missing', 'fallback'), store.get('none') ?? null],
  single,
  many,
};
