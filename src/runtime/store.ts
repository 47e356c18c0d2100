/**
 * An indexed in-memory map of objects keyed by `namespace/name`. Objects are stored as the
 * watcher parsed them and handed out by reference: READ-ONLY. A caller that wants to change an
 * object must copy it first (`structuredClone(obj)`); the store never copies on read, which is
 * what keeps a cache of 10,000 objects cheap.
 *
 * See examples/api/runtime.ts.
 */
import { objectKey, type KubeObject, type ObjectKey } from './types.ts';

/** Maps an object to the index values it is found under. */
export type IndexFunc<T> = (obj: T) => readonly string[];

export const NAMESPACE_INDEX = 'namespace';
export const OWNER_UID_INDEX = 'owner-uid';

export const byNamespace: IndexFunc<KubeObject> = (obj) => [obj.metadata?.namespace ?? ''];
export const byOwnerUid: IndexFunc<KubeObject> = (obj) =>
  (obj.metadata?.ownerReferences ?? []).map((ref) => ref.uid);

export class Store<T extends KubeObject> {
  private readonly items = new Map<ObjectKey, T>();
  private readonly indexes = new Map<string, Map<string, Set<ObjectKey>>>();

  constructor(private readonly indexers: ReadonlyMap<string, IndexFunc<T>>) {
    for (const name of indexers.keys()) this.indexes.set(name, new Map());
  }

  /** A complete store built off to the side, for an atomic swap after a relist. */
  static from<T extends KubeObject>(
    items: Iterable<T>,
    indexers: ReadonlyMap<string, IndexFunc<T>>,
  ): Store<T> {
    const store = new Store(indexers);
    for (const item of items) store.upsert(item);
    return store;
  }

  get size(): number {
    return this.items.size;
  }

  get(key: ObjectKey): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  keys(): IterableIterator<ObjectKey> {
    return this.items.keys();
  }

  values(): IterableIterator<T> {
    return this.items.values();
  }

  /** Objects whose index `name` yields `value`. Unknown index names throw (a typo is a bug). */
  byIndex(name: string, value: string): T[] {
    const index = this.indexes.get(name);
    if (!index)
      throw new Error(
        `store has no index named "${name}" (known: ${[...this.indexes.keys()].join(', ')})`,
      );
    const keys = index.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const key of keys) {
      const item = this.items.get(key);
      if (item) out.push(item);
    }
    return out;
  }

  /** Adds an index and fills it from the current content. */
  addIndex(name: string, fn: IndexFunc<T>): void {
    const index = new Map<string, Set<ObjectKey>>();
    this.indexes.set(name, index);
    for (const [key, item] of this.items) addTo(index, fn(item), key);
  }

  /** Inserts or replaces; returns the previous object. */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    this.items.set(key, obj);
    for (const [name, fn] of this.indexers) {
      const index = this.indexes.get(name);
      if (index) addTo(index, fn(obj), key);
    }
    return old;
  }

  /** Removes; returns the removed object. */
  delete(key: ObjectKey): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  private unindex(key: ObjectKey, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indexes.get(name);
      if (!index) continue;
      for (const value of fn(obj)) {
        const keys = index.get(value);
        if (!keys) continue;
        keys.delete(key);
        if (keys.size === 0) index.delete(value);
      }
    }
  }
}

function addTo(
  index: Map<string, Set<ObjectKey>>,
  values: readonly string[],
  key: ObjectKey,
): void {
  for (const value of values) {
    let keys = index.get(value);
    if (!keys) index.set(value, (keys = new Set()));
    keys.add(key);
  }
}
