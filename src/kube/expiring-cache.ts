/**
 * A small map whose entries expire after a fixed time and of which at most `capacity` are kept
 * (the oldest written goes first): what discovery remembers about kinds it did not find. Written
 * here rather than taken from a library: src/kube may not use runtime's BoundedMap (layers), and
 * what is needed — expiry on read, insertion-order eviction, no refresh on read — is these
 * twenty lines; an LRU library would refresh entries on every read, keeping a stale "unknown"
 * alive as long as it is asked for.
 */
export class ExpiringCache<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly until: number }>();

  constructor(
    readonly ttlMs: number,
    readonly capacity: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The value of `key` while it is fresh. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until > this.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, until: this.now() + this.ttlMs });
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
