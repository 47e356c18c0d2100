/**
 * Fluent construction of a {@link Controller}, in controller-runtime's vocabulary.
 *
 * @example
 * const controller = new ControllerBuilder({ caches, logger, metrics })
 *   .named('deployments')
 *   .for({ group: 'apps', version: 'v1', kind: 'Deployment' }, generationChanged)
 *   .owns({ group: 'apps', version: 'v1', kind: 'ReplicaSet' })
 *   .watches({ group: '', version: 'v1', kind: 'ConfigMap' }, (cm) => keysUsing(cm))
 *   .workers(4)
 *   .debounce(200)
 *   .complete(async (key, signal) => { …; return { requeueAfter: 10_000 }; });
 */
import type { Logger } from 'pino';
import { parseApiVersion, type GroupVersionKind } from '../kube/index.ts';
import type { BucketRateLimiterOptions, ItemExponentialBackoff } from './backoff.ts';
import type { CacheRegistry } from './cache-registry.ts';
import {
  Controller,
  type EventFilter,
  type EventSource,
  type KeyMapper,
  type Reconciler,
} from './controller.ts';
import { RuntimeConfigError } from './errors.ts';
import type { RuntimeMetrics } from './metrics.ts';
import { objectKey, type KubeObject } from './types.ts';

export interface ControllerBuilderDeps {
  readonly caches: CacheRegistry;
  readonly logger: Logger;
  readonly metrics?: RuntimeMetrics;
  /** Called with the built controller (the manager registers it). */
  readonly onComplete?: (controller: Controller) => void;
}

/** Passes adds, deletes, and updates whose metadata.generation changed (spec changes). */
export const generationChanged: EventFilter = (event) =>
  event.type !== 'update' || event.old?.metadata?.generation !== event.object.metadata?.generation;

export class ControllerBuilder {
  private name: string | undefined;
  private primary: GroupVersionKind | undefined;
  private readonly sources: EventSource[] = [];
  private readonly filters: EventFilter[] = [];
  private workerCount = 1;
  private debounceMs = 0;
  private drainTimeoutMs: number | undefined;
  private backoff: ItemExponentialBackoff<string> | undefined;
  private rateLimit: Omit<BucketRateLimiterOptions, 'now'> | undefined;

  constructor(private readonly deps: ControllerBuilderDeps) {}

  named(name: string): this {
    this.name = name;
    return this;
  }

  /** The kind this controller reconciles; keys are its `namespace/name`. */
  for(gvk: GroupVersionKind, ...filters: EventFilter[]): this {
    if (this.primary) throw new RuntimeConfigError('for() may be called once', 'controller.for');
    this.primary = gvk;
    this.sources.unshift({ gvk, map: (o) => [objectKey(o)], filters });
    return this;
  }

  /** Objects of `gvk` wake the owner of the `for` kind named in their ownerReferences. */
  owns(gvk: GroupVersionKind, ...filters: EventFilter[]): this {
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
    this.sources.push({ gvk, map, filters });
    return this;
  }

  /** Any object of `gvk` → the keys `map` returns. */
  watches(
    gvk: GroupVersionKind,
    map: (obj: KubeObject) => readonly string[],
    ...filters: EventFilter[]
  ): this {
    this.sources.push({ gvk, map: (o) => map(o), filters });
    return this;
  }

  /** A filter for every source. */
  withEventFilter(filter: EventFilter): this {
    this.filters.push(filter);
    return this;
  }

  workers(n: number): this {
    this.workerCount = n;
    return this;
  }

  /** Coalesce a burst of events per key into one add, `ms` after the last event. */
  debounce(ms: number): this {
    this.debounceMs = ms;
    return this;
  }

  drainTimeout(ms: number): this {
    this.drainTimeoutMs = ms;
    return this;
  }

  withBackoff(backoff: ItemExponentialBackoff<string>): this {
    this.backoff = backoff;
    return this;
  }

  /** An overall limit on retries across all keys, on top of the per-key backoff. */
  withRateLimit(limit: Omit<BucketRateLimiterOptions, 'now'>): this {
    this.rateLimit = limit;
    return this;
  }

  complete(reconcile: Reconciler): Controller {
    if (!this.primary)
      throw new RuntimeConfigError('call for(kind) before complete()', 'controller.for');
    const name = this.name ?? this.primary.kind.toLowerCase();
    const controller = new Controller({
      name,
      caches: this.deps.caches,
      logger: this.deps.logger,
      metrics: this.deps.metrics,
      sources: this.sources,
      filters: this.filters,
      reconcile,
      workers: this.workerCount,
      debounceMs: this.debounceMs,
      drainTimeoutMs: this.drainTimeoutMs,
      backoff: this.backoff,
      rateLimit: this.rateLimit,
    });
    this.deps.onComplete?.(controller);
    return controller;
  }
}
