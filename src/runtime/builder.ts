/**
 * Fluent construction of a {@link Controller}, in controller-runtime's vocabulary. The type
 * given to `for<T>()` flows through the filters, the mappers (which get the primary cache as
 * `Cache<T>`), the indexes and `reconcile(key, signal, object: T | undefined)`.
 * See examples/api/runtime.ts.
 */
import type { Logger } from 'pino';
import { parseApiVersion, type GroupVersionKind } from '../kube/index.ts';
import type { BucketRateLimiterOptions, ItemExponentialBackoff } from './backoff.ts';
import type { CacheRegistry, CacheView } from './cache-registry.ts';
import {
  Controller,
  type ControllerOptions,
  type EventFilter,
  type EventSource,
  type KeyMapper,
  type Reconciler,
  type ReconcilerFactory,
} from './controller.ts';
import { RuntimeConfigError } from './errors.ts';
import type { RuntimeMetrics } from './metrics.ts';
import type { Runnable } from './runnable.ts';
import { Semaphore } from './semaphore.ts';
import { ShardedController } from './sharding/controller.ts';
import type { ShardRunnable } from './sharding/types.ts';
import type { IndexFunc } from './store.ts';
import { objectKey, type KubeObject } from './types.ts';

export interface ControllerBuilderDeps {
  readonly caches: CacheRegistry;
  readonly logger: Logger;
  readonly metrics?: RuntimeMetrics;
  /** Called with the built controller (the manager registers it). */
  readonly onComplete?: (controller: Runnable) => void;
  /** Called with a built sharded controller (the manager runs it for each shard term). */
  readonly onCompleteSharded?: (controller: ShardRunnable) => void;
}

/** Passes adds, deletes, and updates whose metadata.generation changed (spec changes). */
export const generationChanged: EventFilter = (event) =>
  event.type !== 'update' || event.old?.metadata?.generation !== event.object.metadata?.generation;

/** What the builder collects; untyped, so `for<T>()` can hand it to a builder of T. */
interface BuilderState {
  name: string | undefined;
  primary: GroupVersionKind | undefined;
  readonly sources: EventSource[];
  readonly filters: EventFilter[];
  workers: number;
  debounceMs: number;
  drainTimeoutMs: number | undefined;
  backoff: ItemExponentialBackoff<string> | undefined;
  rateLimit: Omit<BucketRateLimiterOptions, 'now'> | undefined;
}

export class ControllerBuilder<T extends KubeObject = KubeObject> {
  private readonly indexes = new Map<string, IndexFunc<T>>();

  constructor(
    private readonly deps: ControllerBuilderDeps,
    private readonly state: BuilderState = {
      name: undefined,
      primary: undefined,
      sources: [],
      filters: [],
      workers: 1,
      debounceMs: 0,
      drainTimeoutMs: undefined,
      backoff: undefined,
      rateLimit: undefined,
    },
  ) {}

  named(name: string): this {
    this.state.name = name;
    return this;
  }

  /**
   * The kind this controller reconciles, declared as `P` (the objects its cache holds); keys
   * are their `namespace/name`. Call it first: the returned builder carries `P`.
   */
  for<P extends KubeObject>(
    gvk: GroupVersionKind,
    ...filters: EventFilter<P>[]
  ): ControllerBuilder<P> {
    if (this.state.primary)
      throw new RuntimeConfigError('for() may be called once', 'controller.for');
    this.state.primary = gvk;
    this.state.sources.unshift({ gvk, map: (o) => [objectKey(o)], filters: erase(filters) });
    return new ControllerBuilder<P>(this.deps, this.state);
  }

  /** Objects of `gvk` wake the owner of the `for` kind named in their ownerReferences. */
  owns<O extends KubeObject = KubeObject>(
    gvk: GroupVersionKind,
    ...filters: EventFilter<O>[]
  ): this {
    const map: KeyMapper = (obj, primaryCache) => {
      const owner = primaryCache.mapping;
      const keys: string[] = [];
      for (const ref of obj.metadata?.ownerReferences ?? []) {
        if (ref.kind !== owner.kind || parseApiVersion(ref.apiVersion).group !== owner.group)
          continue;
        const ns = owner.namespaced ? obj.metadata?.namespace : undefined;
        keys.push(ns ? `${ns}/${ref.name}` : ref.name);
      }
      return keys;
    };
    this.state.sources.push({ gvk, map, filters: erase(filters) });
    return this;
  }

  /**
   * Any object of `gvk` (declared as `O`) → the keys `map` returns; `map` may look them up in
   * the primary cache (e.g. by an index declared with {@link withIndex}).
   */
  watches<O extends KubeObject = KubeObject>(
    gvk: GroupVersionKind,
    map: KeyMapper<O, T>,
    ...filters: EventFilter<O>[]
  ): this {
    return this.source(gvk, undefined, map, filters);
  }

  /**
   * Like {@link watches}, from the cache of the objects of `gvk` in `view` only (e.g. a label
   * selector): what the controller keeps of the kind, shared with other users of that view.
   */
  watchesView<O extends KubeObject = KubeObject>(
    gvk: GroupVersionKind,
    view: CacheView,
    map: KeyMapper<O, T>,
    ...filters: EventFilter<O>[]
  ): this {
    return this.source(gvk, view, map, filters);
  }

  private source<O extends KubeObject>(
    gvk: GroupVersionKind,
    view: CacheView | undefined,
    map: KeyMapper<O, T>,
    filters: EventFilter<O>[],
  ): this {
    // The cache of `gvk` holds the objects the caller declared as O, the primary's are T.
    const erased = map as unknown as KeyMapper;
    this.state.sources.push({ gvk, ...(view && { view }), map: erased, filters: erase(filters) });
    return this;
  }

  /** An index on the primary cache, registered when the controller acquires its caches. */
  withIndex(name: string, fn: IndexFunc<T>): this {
    if (!this.state.primary)
      throw new RuntimeConfigError('call for(kind) before withIndex()', 'controller.withIndex');
    if (this.indexes.has(name))
      throw new RuntimeConfigError(`index "${name}" is declared twice`, 'controller.withIndex');
    this.indexes.set(name, fn);
    return this;
  }

  /** A filter for every source. */
  withEventFilter(filter: EventFilter): this {
    this.state.filters.push(filter);
    return this;
  }

  workers(n: number): this {
    this.state.workers = n;
    return this;
  }

  /** Coalesce a burst of events per key into one add, `ms` after the last event. */
  debounce(ms: number): this {
    this.state.debounceMs = ms;
    return this;
  }

  drainTimeout(ms: number): this {
    this.state.drainTimeoutMs = ms;
    return this;
  }

  withBackoff(backoff: ItemExponentialBackoff<string>): this {
    this.state.backoff = backoff;
    return this;
  }

  /** An overall limit on retries across all keys, on top of the per-key backoff. */
  withRateLimit(limit: Omit<BucketRateLimiterOptions, 'now'>): this {
    this.state.rateLimit = limit;
    return this;
  }

  /** Builds the controller with one reconciler for every term. */
  complete(reconcile: Reconciler<T>): Controller<T> {
    return this.completeForEachTerm(() => reconcile);
  }

  /**
   * Builds the controller with a reconciler made anew for each term of leadership: state the
   * reconciler keeps between passes (what it saw finish, what it warned about) ends with the
   * term, as the queue does.
   */
  completeForEachTerm(reconcilerForTerm: ReconcilerFactory<T>): Controller<T> {
    const controller = new Controller<T>(this.options(reconcilerForTerm));
    this.deps.onComplete?.(controller);
    return controller;
  }

  /**
   * Builds a controller per shard term (see {@link ShardedController}): the `for` kind is
   * read per shard (`<label>=<shard>`), the workers are one limit shared by all the shards a
   * replica runs.
   */
  completeSharded(completion: ShardedCompletion<T>): ShardedController<T> {
    const options = this.options(completion.reconcilerForTerm);
    const limiter = new Semaphore(options.workers ?? 1);
    const [first, ...rest] = options.sources;
    const sharded = new ShardedController<T>({
      name: options.name,
      shardLabel: completion.label,
      onTermEnd: completion.onTermEnd,
      build: (shard, view) =>
        new Controller<T>({
          ...options,
          queueName: `${options.name}/${shard}`,
          logger: options.logger.child({ shard }),
          sources: first ? [{ ...first, view }, ...rest] : rest,
          limiter,
        }),
    });
    this.deps.onCompleteSharded?.(sharded);
    return sharded;
  }

  /** The controller's options from what the builder collected. */
  private options(reconcilerForTerm: ReconcilerFactory<T>): ControllerOptions<T> {
    const state = this.state;
    if (!state.primary)
      throw new RuntimeConfigError('call for(kind) before complete()', 'controller.for');
    return {
      name: state.name ?? state.primary.kind.toLowerCase(),
      caches: this.deps.caches,
      logger: this.deps.logger,
      metrics: this.deps.metrics,
      sources: state.sources,
      filters: state.filters,
      reconcilerForTerm,
      indexes: this.indexes,
      workers: state.workers,
      debounceMs: state.debounceMs,
      drainTimeoutMs: state.drainTimeoutMs,
      backoff: state.backoff,
      rateLimit: state.rateLimit,
    };
  }
}

/** What a sharded controller is built with beyond the builder's state. */
export interface ShardedCompletion<T extends KubeObject> {
  /** Label key whose value is an object's shard. */
  readonly label: string;
  /** The reconciler of each term of each shard (what it remembers ends with the term). */
  readonly reconcilerForTerm: ReconcilerFactory<T>;
  /** After a shard's term ended, with the keys it held. */
  readonly onTermEnd?: (keys: readonly string[]) => void;
}

/** Filters typed for a kind's objects, kept beside the other sources of the controller. */
function erase<O extends KubeObject>(filters: readonly EventFilter<O>[]): EventFilter[] {
  return filters as readonly EventFilter<KubeObject>[] as EventFilter[];
}
