/**
 * A Map that holds at most `capacity` keys and forgets the oldest-written one to make room:
 * the memory of a long-running process (which runs it has seen, which warnings it has sent)
 * stays bounded whatever the number of objects. Insertion-ordered (a JavaScript Map already
 * iterates in insertion order, so "oldest" is the first key); `set` counts as a fresh write
 * and moves an existing key to the newest end.
 *
 * Written here rather than taken from an LRU library: no read refreshes a key (a `get` must
 * not keep a stale entry alive), and eviction must call back into the owner (DriftKeeper
 * clears an index), which is these dozen lines.
 */
export type EvictHandler<K, V> = (key: K, value: V) => void;

export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();

  /**
   * @param capacity the most keys held (an integer ≥ 1)
   * @param onEvict called with each key and value forgotten to make room (not on `delete`)
   */
  constructor(
    readonly capacity: number,
    private readonly onEvict?: EvictHandler<K, V>,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`BoundedMap capacity must be an integer ≥ 1, got ${capacity}`);
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /** Sets `key` as the newest entry, forgetting the oldest one first when full. */
  set(key: K, value: V): this {
    this.map.delete(key);
    if (this.map.size >= this.capacity) {
      const oldest = this.map.entries().next();
      if (!oldest.done) {
        const [k, v] = oldest.value;
        this.map.delete(k);
        this.onEvict?.(k, v);
      }
    }
    this.map.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  keys(): IterableIterator<K> {
    return this.map.keys();
  }

  entries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.map.entries();
  }
}
