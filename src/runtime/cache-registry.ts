/**
 * The one place caches come from: one {@link Cache} per {cluster, group/version/kind}, created
 * lazily on first use, shared by every controller and admission handler, and dropped when no
 * user holds it any more (after a grace period that grows 2 s → ~8 min each time the same
 * cache is dropped and wanted again, so flapping users do not cause relist storms).
 *
 * The cluster key is part of every cache key from the start: `local` is the home cluster;
 * remote clusters are added with `addCluster(key, client)`.
 *
 * See examples/api/runtime.ts.
 */
import type { Logger } from 'pino';
import type { KubeClient } from '../kube/index.ts';
import { ResourceMapper, gvkKey, type GroupVersionKind } from '../kube/index.ts';
import { Cache } from './cache.ts';
import type { CacheLabels, RuntimeMetrics } from './metrics.ts';
import type { KubeObject } from './types.ts';
import { exponentialDelayMs } from './backoff.ts';

export const LOCAL_CLUSTER = 'local';

export interface CacheRegistryOptions {
  /** Clients by cluster key; `local` is the home cluster. */
  readonly clients: ReadonlyMap<string, KubeClient>;
  readonly logger: Logger;
  /** Root signal: aborting stops every cache. */
  readonly signal: AbortSignal;
  readonly metrics?: RuntimeMetrics;
  /** First grace period before an unused cache is dropped. Default 2 s. */
  readonly dropGraceMs?: number;
  /** Cap of the growing grace period. Default 8 min. */
  readonly maxDropGraceMs?: number;
  /** Watcher inactivity timeout for all caches (tests shorten it). */
  readonly inactivityMs?: number;
  /**
   * The home cluster's caches of namespaced kinds list and watch only these namespaces (one
   * watch each): a manager granted Roles there, no cluster-wide list/watch. Default: all.
   */
  readonly namespaces?: readonly string[];
}

/**
 * Which objects of a kind a cache holds and how much of each: a label selector (one shard's
 * objects) and a transform (the fields a reader needs), named so that users asking for the
 * same view share one cache.
 */
export interface CacheView {
  readonly labelSelector?: string;
  readonly transform?: { readonly name: string; readonly fn: (object: KubeObject) => KubeObject };
}

/** The registry key of a cache: cluster, kind and view. */
function cacheKey(cluster: string, gvk: GroupVersionKind, view: CacheView | undefined): string {
  const base = `${cluster}|${gvkKey(gvk)}`;
  const named = viewName(view);
  return named ? `${base}|${named}` : base;
}

function viewName(view: CacheView | undefined): string {
  if (!view?.labelSelector && !view?.transform) return '';
  return `${view.labelSelector ?? ''}|${view.transform?.name ?? ''}`;
}

export interface CacheLease<T extends KubeObject> {
  readonly cache: Cache<T>;
  /** Gives the cache back; idempotent. */
  release(): void;
}

interface Entry {
  readonly cache: Promise<Cache>;
  readonly users: Map<symbol, string>;
  /** What the cache holds, as `planwright_cache_objects` labels it. */
  readonly labels: CacheLabels;
  /** The cache once created: what a scrape counts without waiting on a creation. */
  created?: Cache;
  dropTimer?: NodeJS.Timeout;
}

interface Cluster {
  readonly client: KubeClient;
  readonly mapper: ResourceMapper;
}

export class CacheRegistry {
  private readonly clusters = new Map<string, Cluster>();
  private readonly entries = new Map<string, Entry>();
  /** How often each cache key was dropped: drives the growing grace period. */
  private readonly drops = new Map<string, number>();
  private readonly abort = new AbortController();
  private readonly signal: AbortSignal;

  constructor(private readonly options: CacheRegistryOptions) {
    for (const [key, client] of options.clients) this.addCluster(key, client);
    this.signal = AbortSignal.any([options.signal, this.abort.signal]);
    this.signal.addEventListener('abort', () => this.clearTimers(), { once: true });
  }

  addCluster(key: string, client: KubeClient): void {
    if (this.clusters.has(key)) throw new Error(`cluster "${key}" is already registered`);
    this.clusters.set(key, { client, mapper: new ResourceMapper(client) });
  }

  hasCluster(key: string): boolean {
    return this.clusters.has(key);
  }

  /**
   * Replaces a cluster's client (its credentials changed): the cluster's caches are stopped
   * and forgotten — holders' leases go stale, the next `acquire` builds a fresh cache with
   * the new client — and the old client is closed once they are stopped.
   */
  async replaceCluster(key: string, client: KubeClient): Promise<void> {
    if (key === LOCAL_CLUSTER) throw new Error('the local cluster cannot be replaced');
    const old = this.clusters.get(key);
    this.clusters.set(key, { client, mapper: new ResourceMapper(client) });
    await this.stopCaches(key);
    old?.client.close();
  }

  /** Stops a remote cluster's caches and closes its client. */
  async removeCluster(key: string): Promise<void> {
    if (key === LOCAL_CLUSTER) throw new Error('the local cluster cannot be removed');
    const old = this.clusters.get(key);
    this.clusters.delete(key);
    await this.stopCaches(key);
    old?.client.close();
  }

  private async stopCaches(cluster: string): Promise<void> {
    const prefix = `${cluster}|`;
    const stopping: Array<Promise<Cache>> = [];
    for (const [key, entry] of this.entries) {
      if (!key.startsWith(prefix)) continue;
      clearTimeout(entry.dropTimer);
      this.entries.delete(key);
      this.drops.delete(key);
      stopping.push(entry.cache);
    }
    await Promise.all(stopping.map(async (c) => (await c.catch(() => undefined))?.stop()));
  }

  /** The client of a cluster (for live reads and writes next to the cache). */
  client(cluster: string = LOCAL_CLUSTER): KubeClient {
    return this.cluster(cluster).client;
  }

  mapper(cluster: string = LOCAL_CLUSTER): ResourceMapper {
    return this.cluster(cluster).mapper;
  }

  /**
   * Gets (creating and starting on first use) the shared cache of a kind and registers `user`
   * as holding it. `user` is a readable name for logs (`controller:instances`, `admission`).
   * A `view` (label selector, transform) is a cache of its own, shared by the users of that
   * view.
   */
  async acquire<T extends KubeObject>(
    gvk: GroupVersionKind,
    user: string,
    cluster: string = LOCAL_CLUSTER,
    view?: CacheView,
  ): Promise<CacheLease<T>> {
    this.signal.throwIfAborted();
    const key = cacheKey(cluster, gvk, view);
    let entry = this.entries.get(key);
    if (!entry) {
      const created: Entry = {
        cache: this.create(gvk, cluster, view),
        users: new Map(),
        labels: { cluster, gvk: gvkKey(gvk), view: viewName(view) },
      };
      this.entries.set(key, created);
      created.cache.then(
        (cache) => (created.created = cache),
        // A failed creation (unknown kind) must not stay cached.
        () => {
          if (this.entries.get(key) === created) this.entries.delete(key);
        },
      );
      entry = created;
    }
    clearTimeout(entry.dropTimer);
    entry.dropTimer = undefined;
    const token = Symbol(user);
    entry.users.set(token, user);
    const cache = (await entry.cache) as unknown as Cache<T>;
    const held = entry;
    let released = false;
    return {
      cache,
      release: () => {
        if (released) return;
        released = true;
        held.users.delete(token);
        if (held.users.size === 0) this.scheduleDrop(key, held);
      },
    };
  }

  /** The cache if it exists (no creation, no user registered). */
  async peek<T extends KubeObject>(
    gvk: GroupVersionKind,
    cluster: string = LOCAL_CLUSTER,
    view?: CacheView,
  ): Promise<Cache<T> | undefined> {
    const entry = this.entries.get(cacheKey(cluster, gvk, view));
    return entry ? ((await entry.cache) as unknown as Cache<T>) : undefined;
  }

  /** How many objects each synced cache holds (`planwright_cache_objects`). */
  sizes(): Array<{ readonly labels: CacheLabels; readonly objects: number }> {
    const out: Array<{ labels: CacheLabels; objects: number }> = [];
    for (const entry of this.entries.values()) {
      if (entry.created) out.push({ labels: entry.labels, objects: entry.created.size });
    }
    return out;
  }

  /** Keys (`cluster|gvk`) of the caches alive and who uses them. */
  users(): Map<string, string[]> {
    return new Map([...this.entries].map(([key, e]) => [key, [...e.users.values()]]));
  }

  /**
   * The caches in use whose watch has shown no sign of life for longer than `thresholdMs`
   * (a `/healthz` input), by name.
   */
  async stalledWatches(thresholdMs: number): Promise<string[]> {
    const now = Date.now();
    const stalled: string[] = [];
    for (const entry of this.entries.values()) {
      if (entry.users.size === 0) continue;
      const cache = await entry.cache.catch(() => undefined);
      if (cache && cache.stalledMs(now) > thresholdMs) stalled.push(cache.describe());
    }
    return stalled;
  }

  /** Stops every cache and closes nothing else (clients belong to the caller). */
  async stop(): Promise<void> {
    this.abort.abort();
    const caches = [...this.entries.values()].map((e) => e.cache);
    this.entries.clear();
    await Promise.all(caches.map(async (c) => (await c.catch(() => undefined))?.stop()));
  }

  private async create(
    gvk: GroupVersionKind,
    cluster: string,
    view: CacheView | undefined,
  ): Promise<Cache> {
    const { client, mapper } = this.cluster(cluster);
    const mapping = await mapper.resolve(gvk, this.signal);
    const metrics = this.options.metrics;
    const cache = new Cache({
      client,
      mapping,
      logger: this.options.logger.child({ cache: `${cluster}:${gvkKey(gvk)}` }),
      inactivityMs: this.options.inactivityMs,
      labelSelector: view?.labelSelector,
      transform: view?.transform?.fn,
      namespaces: cluster === LOCAL_CLUSTER ? this.options.namespaces : undefined,
      onWatchError: metrics
        ? () => metrics.watchErrors.inc({ cluster, gvk: gvkKey(gvk) })
        : undefined,
    });
    cache.start(this.signal);
    return cache;
  }

  private scheduleDrop(key: string, entry: Entry): void {
    if (this.signal.aborted) return;
    const n = this.drops.get(key) ?? 0;
    const grace = exponentialDelayMs(
      this.options.dropGraceMs ?? 2_000,
      this.options.maxDropGraceMs ?? 480_000,
      n,
    );
    entry.dropTimer = setTimeout(() => {
      if (entry.users.size > 0 || this.entries.get(key) !== entry) return;
      this.entries.delete(key);
      this.drops.set(key, n + 1);
      this.options.logger.info({ cache: key, graceMs: grace }, 'dropping unused cache');
      void entry.cache.then((c) => c.stop()).catch(() => undefined);
    }, grace);
  }

  private clearTimers(): void {
    for (const entry of this.entries.values()) clearTimeout(entry.dropTimer);
  }

  private cluster(key: string): Cluster {
    const found = this.clusters.get(key);
    if (!found)
      throw new Error(
        `no cluster "${key}" is registered (known: ${[...this.clusters.keys()].join(', ')})`,
      );
    return found;
  }
}
