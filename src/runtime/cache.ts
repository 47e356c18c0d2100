/**
 * A cache (shared informer) of one kind on one cluster: a {@link Watcher} feeding an indexed
 * {@link Store}, plus event handlers. Obtain caches from the {@link CacheRegistry} so every
 * controller and admission handler shares one per {cluster, GVK}.
 *
 * Objects returned by `get`/`list`/`byIndex` are the cached instances: READ-ONLY. Copy
 * (`structuredClone`) before mutating. They carry no `metadata.managedFields` (dropped on the
 * way in, as controller-runtime's TransformStripManagedFields does): nothing reads them from
 * a cache, they are often the largest part of an object, and an update sent without them
 * keeps the stored ones. A relist swaps in a complete new store atomically and
 * reports the differences (including deletions that happened during the gap) to handlers.
 *
 * See examples/api/runtime.ts.
 */
import type { Logger } from 'pino';
import { collectionPath, type KubeClient, type ResourceMapping } from '../kube/index.ts';
import {
  NAMESPACE_INDEX,
  OWNER_UID_INDEX,
  Store,
  byNamespace,
  byOwnerUid,
  type IndexFunc,
} from './store.ts';
import { objectKey, type KubeObject, type ObjectKey } from './types.ts';
import { untilAborted } from './time.ts';
import { Watcher, type WatcherEvent } from './watcher.ts';

export interface CacheHandlers<T> {
  readonly onAdd?: (obj: T) => void;
  readonly onUpdate?: (oldObj: T, newObj: T) => void;
  readonly onDelete?: (obj: T) => void;
}

/** The read side of a {@link Cache}: what mappers and readers need (objects are READ-ONLY). */
export interface CacheReader<T extends KubeObject> {
  readonly mapping: ResourceMapping;
  readonly isSynced: boolean;
  get(key: ObjectKey): T | undefined;
  list(namespace?: string): T[];
  byIndex(name: string, value: string): T[];
}

export interface CacheOptions {
  readonly client: KubeClient;
  readonly mapping: ResourceMapping;
  readonly logger: Logger;
  /** Restrict to one namespace; all namespaces by default. */
  readonly namespace?: string;
  /**
   * Restrict a namespaced kind to these namespaces: one list+watch per namespace, one store
   * (a manager without cluster-wide list/watch rights). Ignored for cluster-scoped kinds.
   */
  readonly namespaces?: readonly string[];
  readonly onWatchError?: (error: unknown) => void;
  /** Only objects this label selector matches (e.g. one shard's). */
  readonly labelSelector?: string;
  /**
   * Keeps only part of each object (what a reader needs): applied once as the object comes
   * in, the store holds what it returns. Readers then see the partial objects.
   */
  readonly transform?: (object: KubeObject) => KubeObject;
  /** Extra watcher settings (tests shorten the inactivity timeout). */
  readonly inactivityMs?: number;
  readonly pageSize?: number;
}

export class Cache<T extends KubeObject = KubeObject> implements CacheReader<T> {
  private store: Store<T>;
  private readonly indexers = new Map<string, IndexFunc<T>>([
    [NAMESPACE_INDEX, byNamespace],
    [OWNER_UID_INDEX, byOwnerUid],
  ]);
  private readonly handlers = new Set<CacheHandlers<T>>();
  /** One watcher per namespace watched (or one for all namespaces). */
  private readonly watchers: ReadonlyArray<Watcher<T>>;
  /** Watchers whose first list is in; synced when all are. */
  private readonly listed = new Set<Watcher<T>>();
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;
  private syncedFlag = false;
  private resolveSynced!: () => void;
  private rejectSynced!: (reason: unknown) => void;
  /** Resolves once the first complete list is in; rejects if the cache stops before. */
  readonly synced: Promise<void>;
  readonly logger: Logger;

  constructor(readonly options: CacheOptions) {
    this.store = new Store(this.indexers);
    this.logger = options.logger;
    this.synced = new Promise<void>((resolve, reject) => {
      this.resolveSynced = resolve;
      this.rejectSynced = reject;
    });
    // Nobody may await `synced` before stop; an unobserved rejection must not crash the process.
    this.synced.catch(() => undefined);
    const scopes: ReadonlyArray<string | undefined> =
      options.mapping.namespaced && options.namespaces !== undefined
        ? [...new Set(options.namespaces)]
        : [options.namespace];
    this.watchers = scopes.map((scope) => {
      const watcher: Watcher<T> = new Watcher<T>({
        client: options.client,
        path: collectionPath(options.mapping, scope),
        logger: options.logger,
        onEvent: (event) => this.apply(event, { watcher, scope }),
        onError: options.onWatchError,
        labelSelector: options.labelSelector,
        inactivityMs: options.inactivityMs,
        pageSize: options.pageSize,
      });
      return watcher;
    });
  }

  get mapping(): ResourceMapping {
    return this.options.mapping;
  }

  get isSynced(): boolean {
    return this.syncedFlag;
  }

  /** How many relists happened (the first list counts). */
  get relists(): number {
    return this.watchers.reduce((n, w) => n + w.relists, 0);
  }

  get size(): number {
    return this.store.size;
  }

  /** How long the watch has shown no sign of life, ms (see {@link Watcher.stalledMs}). */
  stalledMs(now?: number): number {
    return Math.max(...this.watchers.map((w) => w.stalledMs(now)));
  }

  /** Starts the watcher, stopped by `stop()` or by `parent` aborting. Idempotent. */
  start(parent?: AbortSignal): void {
    if (this.running) return;
    const signal = parent ? AbortSignal.any([parent, this.abort.signal]) : this.abort.signal;
    const runs = Promise.all(this.watchers.map((w) => w.run(signal)));
    this.running = runs
      .then(() => undefined)
      .finally(() => {
        if (!this.syncedFlag)
          this.rejectSynced(new Error(`cache ${this.describe()} stopped before it synced`));
      });
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  /** Waits for the first list, or rejects when `signal` aborts first. */
  async waitForSync(signal: AbortSignal): Promise<void> {
    if (this.syncedFlag) return;
    await untilAborted(this.synced, signal);
  }

  get(key: ObjectKey): T | undefined {
    return this.store.get(key);
  }

  /** All objects, or those of one namespace. */
  list(namespace?: string): T[] {
    return namespace === undefined
      ? this.store.list()
      : this.store.byIndex(NAMESPACE_INDEX, namespace);
  }

  byIndex(name: string, value: string): T[] {
    return this.store.byIndex(name, value);
  }

  /** Registers a custom index (applies to the current and all future stores). Names are unique. */
  addIndex(name: string, fn: IndexFunc<T>): void {
    const existing = this.indexers.get(name);
    if (existing === fn) return;
    if (existing) throw new Error(`cache ${this.describe()} already has an index named "${name}"`);
    this.indexers.set(name, fn);
    this.store.addIndex(name, fn);
  }

  /**
   * Adds handlers. If the cache is already synced, the current objects are replayed to
   * `onAdd` so a late subscriber misses nothing. Returns the unsubscribe function.
   */
  subscribe(handlers: CacheHandlers<T>): () => void {
    this.handlers.add(handlers);
    if (this.syncedFlag && handlers.onAdd) {
      for (const obj of this.store.values()) safely(this.logger, () => handlers.onAdd?.(obj));
    }
    return () => void this.handlers.delete(handlers);
  }

  get subscriberCount(): number {
    return this.handlers.size;
  }

  describe(): string {
    const m = this.options.mapping;
    const selector = this.options.labelSelector ? `[${this.options.labelSelector}]` : '';
    return `${this.options.client.cluster}:${m.group || 'core'}/${m.version}/${m.kind}${selector}`;
  }

  private apply(
    event: WatcherEvent<T>,
    from: { readonly watcher: Watcher<T>; readonly scope: string | undefined },
  ): void {
    switch (event.type) {
      case 'upsert': {
        const object = this.incoming(event.object);
        const old = this.store.upsert(object);
        if (old === undefined) this.emit((h) => h.onAdd?.(object));
        else if (old.metadata?.resourceVersion !== object.metadata?.resourceVersion)
          this.emit((h) => h.onUpdate?.(old, object));
        return;
      }
      case 'delete': {
        const old = this.store.delete(objectKey(event.object));
        this.emit((h) => h.onDelete?.(old ?? this.incoming(event.object)));
        return;
      }
      case 'relisted': {
        const items = event.items.map((item) => this.incoming(item));
        const previous = this.store;
        // A namespace's relist replaces that namespace only: the others' objects stay as
        // they are (same objects, so the comparison below reports nothing for them).
        const kept =
          this.watchers.length > 1
            ? [...previous.values()].filter((o) => o.metadata?.namespace !== from.scope)
            : [];
        const next = Store.from(kept.length > 0 ? [...kept, ...items] : items, this.indexers);
        this.store = next; // atomic: readers see the old or the new store, never a half-built one
        for (const obj of next.values()) {
          const old = previous.get(objectKey(obj));
          if (old === undefined) this.emit((h) => h.onAdd?.(obj));
          else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion)
            this.emit((h) => h.onUpdate?.(old, obj));
        }
        for (const [key, old] of entries(previous)) {
          if (next.get(key) === undefined) this.emit((h) => h.onDelete?.(old));
        }
        this.listed.add(from.watcher);
        if (!this.syncedFlag && this.listed.size === this.watchers.length) {
          this.syncedFlag = true;
          this.resolveSynced();
          this.logger.debug({ cache: this.describe(), objects: next.size }, 'cache synced');
        }
        return;
      }
    }
  }

  /** An object as the store keeps it: without managedFields, transformed. */
  private incoming(object: T): T {
    stripManagedFields(object);
    return this.options.transform ? (this.options.transform(object) as T) : object;
  }

  private emit(fn: (handlers: CacheHandlers<T>) => void): void {
    for (const h of this.handlers) safely(this.logger, () => fn(h));
  }
}

/** Drops managedFields from an object just decoded from the watch (ours to change). */
function stripManagedFields(obj: KubeObject): void {
  const meta = obj.metadata as Record<string, unknown> | undefined;
  if (meta && 'managedFields' in meta) delete meta['managedFields'];
}

function* entries<T extends KubeObject>(store: Store<T>): Generator<[ObjectKey, T]> {
  for (const obj of store.values()) yield [objectKey(obj), obj];
}

// A failing handler must not break the watch or the other handlers.
function safely(logger: Logger, fn: () => void): void {
  try {
    fn();
  } catch (err) {
    logger.error({ err }, 'cache event handler threw');
  }
}
