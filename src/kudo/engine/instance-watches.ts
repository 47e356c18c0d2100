/**
 * The watch caches an Instance needs beyond the controller's fixed ones: one per
 * {cluster, GVK} of the objects in its inventory on its target cluster (and, for drift on the
 * home cluster, of every kind it applied). Caches come from the shared {@link CacheRegistry}
 * (created on first need, shared by every Instance on the same cluster, dropped with a grace
 * period when the last Instance lets go); each cache gets an index from an object to the
 * Instance named by its owner annotation, and events wake that Instance.
 */
import type { Logger } from 'pino';
import { gvkKey, type GroupVersionKind } from '../../kube/index.ts';
import {
  LOCAL_CLUSTER,
  type Cache,
  type CacheLease,
  type CacheRegistry,
  type CacheView,
  type KubeObject,
} from '../../runtime/index.ts';
import type { InventoryEntry } from '../inventory/index.ts';
import { ANNOTATION_OWNER, HERITAGE_KUDO, LABEL_HERITAGE } from '../render/index.ts';

/**
 * What the caches of applied kinds hold: the objects Planwright (or KUDO before it) applied,
 * which all carry `heritage=kudo` — and so do the ReplicaSets and Pods made from their pod
 * templates. Without it a replica listed and kept every Secret, ConfigMap, Pod and Deployment
 * of the cluster as soon as one Instance applied that kind. An applied object whose label was
 * removed drops out of the cache: drift reports it as gone and the next apply puts the label
 * back. Every reader of these caches passes this view, so they share one cache per kind.
 */
export const OWNED_OBJECTS: CacheView = { labelSelector: `${LABEL_HERITAGE}=${HERITAGE_KUDO}` };

/** Index of a watched object → the Instance (`namespace/name`) that applied it. */
export const BY_OWNER_INSTANCE = 'planwright.dev/instance';

const ownerInstance = (obj: KubeObject): string[] => {
  const owner = obj.metadata?.annotations?.[ANNOTATION_OWNER];
  return owner ? [owner] : [];
};

export interface InstanceWatchesOptions {
  readonly caches: CacheRegistry;
  readonly logger: Logger;
  /** Wakes an Instance (the controller's queue). */
  readonly enqueue: (key: string) => void;
}

interface Held {
  readonly cluster: string;
  readonly lease: CacheLease<KubeObject>;
}

/** The kinds of the entries on `cluster` (undefined: home). */
export function kindsOn(
  entries: readonly InventoryEntry[],
  cluster: string | undefined,
): GroupVersionKind[] {
  const out = new Map<string, GroupVersionKind>();
  for (const e of entries) {
    if (e.cluster !== cluster) continue;
    const gvk = { group: e.group, version: e.version, kind: e.kind };
    out.set(gvkKey(gvk), gvk);
  }
  return [...out.values()];
}

export class InstanceWatches {
  private readonly held = new Map<string, Map<string, Held>>();
  private readonly subscribed = new WeakSet<Cache<KubeObject>>();

  constructor(private readonly options: InstanceWatchesOptions) {}

  /**
   * Makes `instance` hold exactly the caches of `kinds` on `cluster`: acquires the missing
   * ones, releases the others. A cache that cannot be created (cluster down, kind unknown)
   * is logged and tried again on the next sync.
   */
  async sync(
    instance: string,
    cluster: string | undefined,
    kinds: readonly GroupVersionKind[],
  ): Promise<void> {
    const clusterKey = cluster ?? LOCAL_CLUSTER;
    const mine = this.held.get(instance) ?? new Map<string, Held>();
    this.held.set(instance, mine);
    const wanted = new Map(kinds.map((g) => [`${clusterKey}|${gvkKey(g)}`, g]));
    for (const [key, held] of mine) {
      if (wanted.has(key)) continue;
      held.lease.release();
      mine.delete(key);
    }
    for (const [key, gvk] of wanted) {
      if (mine.has(key)) continue;
      try {
        const lease = await this.options.caches.acquire<KubeObject>(
          gvk,
          `instance:${instance}`,
          clusterKey,
          OWNED_OBJECTS,
        );
        if (this.held.get(instance) !== mine || mine.has(key)) {
          lease.release(); // released meanwhile, or a concurrent sync got it first
          continue;
        }
        mine.set(key, { cluster: clusterKey, lease });
        this.subscribe(lease.cache);
      } catch (err) {
        this.options.logger.info(
          { instance, cache: key, err },
          'cannot watch a kind of the Instance yet; retrying on its next reconcile',
        );
      }
    }
    if (mine.size === 0) this.held.delete(instance);
  }

  /** Lets go of every cache `instance` holds. */
  releaseAll(instance: string): void {
    const mine = this.held.get(instance);
    if (!mine) return;
    for (const held of mine.values()) held.lease.release();
    this.held.delete(instance);
  }

  /** The caches of a replaced cluster are gone: forget them and wake their Instances. */
  clusterReplaced(cluster: string): void {
    for (const [instance, mine] of this.held) {
      let touched = false;
      for (const [key, held] of mine) {
        if (held.cluster !== cluster) continue;
        mine.delete(key);
        touched = true;
      }
      if (mine.size === 0) this.held.delete(instance);
      if (touched) this.options.enqueue(instance);
    }
  }

  /** The cache `instance` holds for a kind (undefined until acquired). */
  cache(
    instance: string,
    cluster: string | undefined,
    gvk: GroupVersionKind,
  ): Cache<KubeObject> | undefined {
    return this.held.get(instance)?.get(`${cluster ?? LOCAL_CLUSTER}|${gvkKey(gvk)}`)?.lease.cache;
  }

  /** How many caches each Instance holds (tests, metrics). */
  holders(): Map<string, number> {
    return new Map([...this.held].map(([k, v]) => [k, v.size]));
  }

  private subscribe(cache: Cache<KubeObject>): void {
    if (this.subscribed.has(cache)) return;
    this.subscribed.add(cache);
    cache.addIndex(BY_OWNER_INSTANCE, ownerInstance);
    const wake = (obj: KubeObject): void => {
      for (const key of ownerInstance(obj)) this.options.enqueue(key);
    };
    cache.subscribe({
      onAdd: wake,
      onUpdate: (_old, obj) => wake(obj),
      onDelete: wake,
    });
  }
}
