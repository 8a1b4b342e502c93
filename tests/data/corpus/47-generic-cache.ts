// A generic LRU cache in front of a tool.
class LruCache<K, V> {
  private readonly entries = new Map<K, V>();
  public hits = 0;
  public misses = 0;

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    if (!this.entries.has(key)) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    const value = this.entries.get(key)!;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
    }
    return this;
  }

  keys(): K[] {
    return [...this.entries.keys()];
  }
}

function cached<K, V>(cache: LruCache<K, V>, load: (key: K) => V): (key: K) => V {
  return (key: K): V => {
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const value = load(key);
    cache.set(key, value);
    return value;
  };
}

const cache = new LruCache<string, string>(2);
const getValue = cached(cache, (key) => tools.kv.get({ key }) as string);

const reads = ['a', 'b', 'a', 'c', 'b', 'a'].map(getValue);

const numbers = new LruCache<number, number[]>(3);
numbers.set(1, [1]).set(2, [2, 2]).set(3, [3, 3, 3]).set(4, [4]);

return { reads, hits: cache.hits, misses: cache.misses, keys: cache.keys(), numberKeys: numbers.keys() };
