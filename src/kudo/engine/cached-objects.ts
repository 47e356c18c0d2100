/**
 * Applied objects read from the controller's watch caches of the home cluster (the kinds it
 * watches anyway to wake Instances: READINESS_KINDS and the owned kinds), so a plan waiting for
 * a Deployment to become ready reads it from memory and is woken by its watch event, instead of
 * GETting it on a timer. No cache of its own: nothing more is held in memory.
 *
 * Freshness: right after our own write the cache may still hold the copy from before it. We
 * remember the generation each write returned; a cached copy of an older generation is not
 * used (the caller GETs instead), so a stale copy is never judged healthy. Health itself
 * compares status.observedGeneration with metadata.generation (health.ts), as kstatus does.
 */
import type { ApplyObject } from '../../kube/index.ts';
import { gvkKey, parseApiVersion, type GroupVersionKind } from '../../kube/index.ts';
import { BoundedMap, objectKey, type CacheView, type KubeObject } from '../../runtime/index.ts';
import type { ObjectReader } from '../tasks/index.ts';
import { OWNED_OBJECTS } from './instance-watches.ts';

/** The part of the CacheRegistry read here: the home cluster's caches that exist. */
export interface CacheSource {
  peek(
    gvk: GroupVersionKind,
    cluster: string | undefined,
    view: CacheView,
  ): Promise<{ readonly isSynced: boolean; get(key: string): KubeObject | undefined } | undefined>;
}

export interface CachedObjectsOptions {
  readonly caches: CacheSource;
  /** Kinds whose watch events wake the Instances `wakes` names (the controller's watches). */
  readonly kinds: readonly GroupVersionKind[];
  /** The Instances (namespace/name) a change of `obj` wakes. */
  readonly wakes: (obj: KubeObject) => readonly string[];
}

/** Objects whose generation we remember after a write (oldest forgotten first). */
const MAX_WRITTEN = 65_536;

export class CachedObjects implements ObjectReader {
  private readonly kinds: ReadonlyMap<string, GroupVersionKind>;
  /** uid → metadata.generation our last write of the object returned. */
  private readonly written = new BoundedMap<string, number>(MAX_WRITTEN);

  constructor(private readonly options: CachedObjectsOptions) {
    this.kinds = new Map(options.kinds.map((g) => [gvkKey(g), g]));
  }

  async read(desired: ApplyObject): Promise<ApplyObject | undefined> {
    const gvk = this.kindOf(desired);
    if (!gvk) return undefined;
    const cache = await this.options.caches.peek(gvk, undefined, OWNED_OBJECTS);
    if (!cache?.isSynced) return undefined;
    const cached = cache.get(objectKey(desired)) as ApplyObject | undefined;
    if (!cached) return undefined;
    const uid = cached.metadata?.['uid'];
    const wrote = typeof uid === 'string' ? this.written.get(uid) : undefined;
    if (wrote !== undefined) {
      const generation = cached.metadata?.['generation'];
      if (typeof generation !== 'number' || generation < wrote) return undefined;
      // The cache has caught up with our write; later copies can only be newer.
      this.written.delete(uid as string);
    }
    // Watch events carry apiVersion and kind, list items may not: health rules need them.
    return { ...cached, apiVersion: desired.apiVersion, kind: desired.kind };
  }

  wrote(result: ApplyObject): void {
    const uid = result.metadata?.['uid'];
    const generation = result.metadata?.['generation'];
    if (typeof uid === 'string' && typeof generation === 'number')
      this.written.set(uid, generation);
  }

  wakes(obj: ApplyObject, instance: string): boolean {
    return this.kindOf(obj) !== undefined && this.options.wakes(obj).includes(instance);
  }

  private kindOf(obj: ApplyObject): GroupVersionKind | undefined {
    if (!obj.apiVersion || !obj.kind) return undefined;
    return this.kinds.get(gvkKey({ ...parseApiVersion(obj.apiVersion), kind: obj.kind }));
  }
}
