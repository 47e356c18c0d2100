/**
 * Labels objects that have no valid shard with the shard they belong to — the path that needs
 * no leader for objects the admission webhook did not label: created before sharding, while
 * the webhook was not called, or labelled for a shard that no longer exists (a smaller shard
 * count) and that no live replica holds any more.
 *
 * Every replica watches those objects only (two label-selected caches, normally empty) and
 * labels the ones whose shard it runs itself, so exactly one replica writes each, and then
 * reconciles it. The write is a merge patch guarded by the object's resourceVersion: a
 * concurrent change wins and the next event looks again.
 */
import type { Logger } from 'pino';
import { ApiError, objectPath, type GroupVersionKind, type KubeClient } from '../../kube/index.ts';
import type { CacheRegistry } from '../cache-registry.ts';
import type { Cache } from '../cache.ts';
import type { Runnable } from '../runnable.ts';
import { aborted } from '../time.ts';
import { objectKey, type KubeObject } from '../types.ts';
import { isShardName, shardOf } from './rendezvous.ts';
import type { ShardView } from './types.ts';

export interface ShardLabelerOptions {
  readonly caches: CacheRegistry;
  readonly gvk: GroupVersionKind;
  /** Label key whose value is an object's shard. */
  readonly label: string;
  readonly shards: ShardView;
  /** The key an object's shard is computed from (an owner's, to keep families together). */
  readonly keyOf: (object: KubeObject) => string;
  /** Only objects this accepts are labelled (the objects the controller serves). Default all. */
  readonly accept?: (object: KubeObject) => boolean;
  readonly logger: Logger;
}

/** The label an object should carry now, or undefined when it may keep what it has. */
export function shardLabelFor(
  object: KubeObject,
  options: Pick<ShardLabelerOptions, 'label' | 'shards' | 'keyOf'>,
): string | undefined {
  const current = object.metadata?.labels?.[options.label];
  const count = options.shards.shards.length;
  // A valid shard stays; so does one beyond this replica's count that a live replica holds.
  if (isShardName(current, count)) return undefined;
  if (current !== undefined && current !== '' && options.shards.isHeld(current)) return undefined;
  return shardOf(options.keyOf(object), count);
}

export class ShardLabeler implements Runnable {
  readonly name = 'shard-labeler';
  readonly needLeaderElection = false;
  private readonly writing = new Set<string>();
  private caches: Array<Cache<KubeObject>> = [];
  private client: KubeClient | undefined;

  constructor(private readonly options: ShardLabelerOptions) {}

  /** The selectors of the objects to look at: unlabelled, and labelled with no shard of ours. */
  selectors(): string[] {
    const { label, shards } = this.options;
    return [`!${label}`, `${label},${label} notin (${shards.shards.join(',')})`];
  }

  /**
   * Watches while this replica runs a shard (a replica that runs none writes no label, and
   * costs no watch); looks at everything again whenever what it runs changes.
   */
  async start(signal: AbortSignal): Promise<void> {
    this.client = this.options.caches.client();
    let active: Promise<() => void> | undefined;
    const follow = (): void => {
      const runsAny = this.options.shards.shards.some((s) => this.options.shards.runs(s));
      if (runsAny && !active) {
        active = this.watch(signal).catch((err: unknown) => {
          if (!signal.aborted) this.options.logger.warn({ err }, 'shard labeler cannot watch');
          active = undefined;
          return () => undefined;
        });
      } else if (!runsAny && active) {
        void active.then((stop) => stop());
        active = undefined;
      }
      for (const cache of this.caches) for (const object of cache.list()) this.look(object, signal);
    };
    const stopFollowing = this.options.shards.onChange(follow);
    follow();
    try {
      await aborted(signal);
    } finally {
      stopFollowing();
      if (active) (await active)();
    }
  }

  /** Acquires the two caches and subscribes; resolves with what undoes it. */
  private async watch(signal: AbortSignal): Promise<() => void> {
    const leases = await Promise.all(
      this.selectors().map((labelSelector) =>
        this.options.caches.acquire<KubeObject>(this.options.gvk, 'shard-labeler', undefined, {
          labelSelector,
        }),
      ),
    );
    this.caches = leases.map((l) => l.cache);
    const look = (object: KubeObject): void => this.look(object, signal);
    const unsubscribe = this.caches.map((cache) =>
      cache.subscribe({ onAdd: look, onUpdate: (_old, object) => look(object) }),
    );
    return () => {
      for (const u of unsubscribe) u();
      for (const lease of leases) lease.release();
      this.caches = [];
    };
  }

  private look(object: KubeObject, signal: AbortSignal): void {
    void this.consider(object, signal);
  }

  private async consider(object: KubeObject, signal: AbortSignal): Promise<void> {
    if (this.options.accept && !this.options.accept(object)) return;
    const target = shardLabelFor(object, this.options);
    if (target === undefined || !this.options.shards.runs(target)) return;
    const key = objectKey(object);
    if (this.writing.has(key) || signal.aborted || !this.client) return;
    this.writing.add(key);
    try {
      await this.client.request({
        method: 'PATCH',
        path: this.path(object),
        contentType: 'application/merge-patch+json',
        body: {
          metadata: {
            resourceVersion: object.metadata?.resourceVersion,
            labels: { [this.options.label]: target },
          },
        },
        signal,
      });
      this.options.logger.info({ object: key, shard: target }, 'labelled with its shard');
    } catch (err) {
      // Gone, or changed meanwhile: the newer version is looked at again.
      if (err instanceof ApiError && err.statusCode === 404) return;
      if (err instanceof ApiError && err.statusCode === 409) return this.again(key, signal);
      if (!signal.aborted) {
        this.options.logger.warn({ err, object: key }, 'could not label with its shard');
      }
    } finally {
      this.writing.delete(key);
    }
  }

  private path(object: KubeObject): string {
    const cache = this.caches[0];
    if (!cache) throw new Error('shard labeler not started');
    return objectPath(cache.mapping, object.metadata?.name ?? '', object.metadata?.namespace);
  }

  /** Looks at `key` again from the caches shortly (a write lost to a newer version). */
  private again(key: string, signal: AbortSignal): void {
    const timer = setTimeout(() => {
      for (const cache of this.caches) {
        const object = cache.get(key);
        if (object) void this.consider(object, signal);
      }
    }, 200);
    signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  }
}
