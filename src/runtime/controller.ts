/**
 * A controller: event sources (shared caches) feed keys into a {@link WorkQueue}; N workers
 * call `reconcile(key, signal, object)`, never two on the same key. Results:
 * - returns nothing → success, the key's failure backoff is cleared;
 * - returns `{ requeueAfter }` → backoff cleared, the key comes back after that delay;
 * - throws → retried with the key's exponential backoff (5 ms doubling, capped);
 * - throws {@link TerminalError} → counted, logged, not retried (until the next event).
 * A throwing reconcile never kills a worker. Build controllers with {@link ControllerBuilder}.
 *
 * A controller is a leader {@link Runnable}: `start(signal)` runs one term. When `signal`
 * aborts with a {@link LeaderElectionLostError} reason, in-flight reconciles see their signal
 * abort at once and the caches are kept for the next term; any other reason is a graceful
 * stop: no new keys, in-flight reconciles finish within `drainTimeoutMs`, caches released.
 * Each term starts from a fresh queue filled from the synced caches.
 */
import type { Logger } from 'pino';
import type { GroupVersionKind } from '../kube/index.ts';
import {
  BucketRateLimiter,
  ItemExponentialBackoff,
  type BucketRateLimiterOptions,
} from './backoff.ts';
import type { CacheLease, CacheRegistry, CacheView } from './cache-registry.ts';
import type { Cache, CacheReader } from './cache.ts';
import { LeaderElectionLostError, TerminalError } from './errors.ts';
import type { RuntimeMetrics } from './metrics.ts';
import type { Runnable } from './runnable.ts';
import type { Semaphore } from './semaphore.ts';
import type { IndexFunc } from './store.ts';
import type { KubeObject, ObjectKey } from './types.ts';
import { untilAborted } from './time.ts';
import { WorkQueue } from './workqueue.ts';

export interface ReconcileResult {
  /** Reconcile this key again after this many milliseconds (e.g. while waiting on something). */
  readonly requeueAfter?: number;
}

/**
 * One pass for one key. `object` is the cached primary object (READ-ONLY; undefined once it
 * is gone): reconcile from it, never from the event that woke the key.
 */
export type Reconciler<T extends KubeObject = KubeObject> = (
  key: ObjectKey,
  signal: AbortSignal,
  object: T | undefined,
) => Promise<ReconcileResult | void>;

/**
 * Makes the reconciler of one term (see {@link Controller.start}): what it remembers between
 * passes lives as long as the term, so a new leader starts from what the caches say. `term`
 * aborts when the term ends.
 */
export type ReconcilerFactory<T extends KubeObject = KubeObject> = (
  term: AbortSignal,
) => Reconciler<T>;

export type WatchEventType = 'add' | 'update' | 'delete';

export interface WatchEvent<T extends KubeObject = KubeObject> {
  readonly type: WatchEventType;
  readonly object: T;
  /** The previous object, for updates. */
  readonly old?: T;
}

/** Returns false to ignore an event. */
export type EventFilter<T extends KubeObject = KubeObject> = (event: WatchEvent<T>) => boolean;

/** Maps an event's object to the keys to reconcile. `primary` is the `for` cache. */
export type KeyMapper<O extends KubeObject = KubeObject, P extends KubeObject = KubeObject> = (
  object: O,
  primary: CacheReader<P>,
) => readonly ObjectKey[];

export interface EventSource {
  readonly gvk: GroupVersionKind;
  readonly cluster?: string;
  /** Which objects of the kind (the primary source of a sharded controller: its shard's). */
  readonly view?: CacheView;
  readonly map: KeyMapper;
  readonly filters: readonly EventFilter[];
}

export interface ControllerOptions<T extends KubeObject = KubeObject> {
  readonly name: string;
  readonly caches: CacheRegistry;
  readonly logger: Logger;
  /** The first source is the primary (`for`) kind. */
  readonly sources: readonly EventSource[];
  /** A reconciler per term: called at the start of each. */
  readonly reconcilerForTerm: ReconcilerFactory<T>;
  /** Filters applied to every source. */
  readonly filters?: readonly EventFilter[];
  /** Indexes of the primary cache, registered when the caches are acquired. */
  readonly indexes?: ReadonlyMap<string, IndexFunc<T>>;
  /** Default 1. */
  readonly workers?: number;
  /** Trailing-edge debounce of events per key, ms. Default 0 (off). */
  readonly debounceMs?: number;
  readonly metrics?: RuntimeMetrics;
  readonly backoff?: ItemExponentialBackoff<string>;
  /** Optional overall retry limit (client-go's default controller limiter uses 10 qps, burst 100). */
  readonly rateLimit?: Omit<BucketRateLimiterOptions, 'now'>;
  /** How long a graceful stop waits for in-flight reconciles. Default 30 s. */
  readonly drainTimeoutMs?: number;
  /**
   * Reconciles in flight shared with other controllers (the controllers of the shards a
   * replica runs): each pass takes a permit first. Without it only `workers` bounds them.
   */
  readonly limiter?: Semaphore;
  /** Name of the work queue in metrics. Default the controller's name. */
  readonly queueName?: string;
}

export class Controller<T extends KubeObject = KubeObject> implements Runnable {
  readonly name: string;
  readonly needLeaderElection = true;
  private currentQueue: WorkQueue;
  private queueUsed = false;
  /** The primary (`for`) cache's lease, then one per other source, in source order. */
  private primaryLease: CacheLease<T> | undefined;
  private leases: CacheLease<KubeObject>[] = [];
  private readonly unsubscribes: (() => void)[] = [];
  private readonly debounceTimers = new Map<ObjectKey, NodeJS.Timeout>();
  private readonly log: Logger;
  private preparing: Promise<void> | undefined;

  constructor(private readonly options: ControllerOptions<T>) {
    if (options.sources.length === 0)
      throw new Error(`controller ${options.name}: no "for" kind given`);
    const workers = options.workers ?? 1;
    if (!Number.isInteger(workers) || workers < 1) {
      throw new Error(
        `controller ${options.name}: workers must be a positive integer, got ${workers}`,
      );
    }
    this.name = options.name;
    this.log = options.logger.child({ controller: options.name });
    this.currentQueue = this.newQueue();
  }

  /** The work queue of the current (or next) run. */
  get queue(): WorkQueue {
    return this.currentQueue;
  }

  private newQueue(): WorkQueue {
    const options = this.options;
    return new WorkQueue({
      name: options.queueName ?? options.name,
      metrics: options.metrics,
      backoff: options.backoff ?? new ItemExponentialBackoff(),
      overallRateLimit: options.rateLimit ? new BucketRateLimiter(options.rateLimit) : undefined,
    });
  }

  /** Gives the caches back (idempotent); a later `prepare`/`run` acquires them again. */
  release(): void {
    this.primaryLease?.release();
    this.primaryLease = undefined;
    for (const lease of this.leases.splice(0)) lease.release();
    this.preparing = undefined;
  }

  /** The primary (`for`) cache; available after `prepare()`. */
  get primary(): Cache<T> {
    const lease = this.primaryLease;
    if (!lease) throw new Error(`controller ${this.name}: caches are not prepared yet`);
    return lease.cache;
  }

  /** Acquires the shared caches of every source and registers the primary's indexes. */
  prepare(): Promise<void> {
    this.preparing ??= (async () => {
      const user = `controller:${this.name}`;
      const [first, ...rest] = this.options.sources;
      if (!first) throw new Error(`controller ${this.name}: no "for" kind given`);
      const caches = this.options.caches;
      const primary = caches.acquire<T>(first.gvk, user, first.cluster, first.view);
      // A source of the controller's own kind reads its own cache (a sharded controller's
      // objects wake only objects of its shard).
      const own = (s: EventSource): boolean =>
        s.gvk.group === first.gvk.group &&
        s.gvk.version === first.gvk.version &&
        s.gvk.kind === first.gvk.kind &&
        (s.cluster ?? '') === (first.cluster ?? '') &&
        s.view === undefined;
      [this.primaryLease, this.leases] = await Promise.all([
        primary,
        Promise.all(
          rest.map(async (s) =>
            own(s)
              ? ((await primary) as unknown as CacheLease<KubeObject>)
              : caches.acquire(s.gvk, user, s.cluster, s.view),
          ),
        ),
      ]);
      for (const [name, fn] of this.options.indexes ?? []) this.primary.addIndex(name, fn);
    })();
    return this.preparing;
  }

  /**
   * Waits until every source cache is synced. One abort listener for all of them: a controller
   * of many kinds would otherwise hang one per cache on the manager's signal at once.
   */
  async waitForSync(signal: AbortSignal): Promise<void> {
    await this.prepare();
    signal.throwIfAborted();
    await untilAborted(
      Promise.all([this.primary.synced, ...this.leases.map((l) => l.cache.synced)]),
      signal,
    );
  }

  /** Adds a key directly (e.g. from a timer elsewhere). */
  enqueue(key: ObjectKey): void {
    const debounce = this.options.debounceMs ?? 0;
    if (debounce <= 0) return this.queue.add(key);
    clearTimeout(this.debounceTimers.get(key));
    this.debounceTimers.set(
      key,
      setTimeout(() => {
        this.debounceTimers.delete(key);
        this.queue.add(key);
      }, debounce),
    );
  }

  /**
   * Runs one term until `signal` aborts: gracefully (drain, release the caches), or at once
   * when the reason is a {@link LeaderElectionLostError} (caches kept for the next term).
   */
  async start(signal: AbortSignal): Promise<void> {
    // A queue shut down by a previous term cannot take keys again: each term gets a fresh one.
    if (this.queueUsed) this.currentQueue = this.newQueue();
    this.queueUsed = true;
    const hard = new AbortController();
    const onAbort = (): void => {
      if (signal.reason instanceof LeaderElectionLostError) hard.abort(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    const workers = this.options.workers ?? 1;
    this.options.metrics?.maxConcurrentReconciles.set({ controller: this.name }, workers);
    try {
      await this.prepare();
      this.subscribe();
      await this.waitForSync(signal).catch(() => undefined);
      this.log.info({ workers }, 'controller started');
      const reconcile = this.options.reconcilerForTerm(signal);
      const loops = Array.from({ length: workers }, () => this.worker(reconcile, hard.signal));
      await new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
      for (const t of this.debounceTimers.values()) clearTimeout(t);
      this.debounceTimers.clear();
      const drained = await this.queue.shutDownWithDrain(
        hard.signal.aborted ? 0 : (this.options.drainTimeoutMs ?? 30_000),
      );
      if (!drained) {
        this.log.warn('in-flight reconciles did not finish in time; aborting them');
        hard.abort(new Error('shutdown deadline passed'));
      }
      await Promise.all(loops);
      this.log.info('controller stopped');
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.queue.shutDown();
      for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
      // Leadership lost: keep the caches for the next term.
      if (!hard.signal.aborted || !(hard.signal.reason instanceof LeaderElectionLostError)) {
        this.release();
      }
    }
  }

  private subscribe(): void {
    const common = this.options.filters ?? [];
    const primary = this.primary;
    this.options.sources.forEach((source, i) => {
      const cache: Cache<KubeObject> | Cache<T> | undefined =
        i === 0 ? primary : this.leases[i - 1]?.cache;
      if (!cache) return;
      const handle = (event: WatchEvent): void => {
        for (const f of common) if (!f(event)) return;
        for (const f of source.filters) if (!f(event)) return;
        for (const key of source.map(event.object, primary)) this.enqueue(key);
      };
      this.unsubscribes.push(
        cache.subscribe({
          onAdd: (object: KubeObject) => handle({ type: 'add', object }),
          onUpdate: (old: KubeObject, object: KubeObject) =>
            handle({ type: 'update', object, old }),
          onDelete: (object: KubeObject) => handle({ type: 'delete', object }),
        }),
      );
    });
  }

  private async worker(reconcile: Reconciler<T>, signal: AbortSignal): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      const release = this.options.limiter ? await this.options.limiter.acquire(signal) : noop;
      try {
        if (release) await this.process({ key, reconcile, signal });
      } finally {
        release?.();
        this.queue.done(key);
      }
    }
  }

  private async process(work: {
    key: ObjectKey;
    reconcile: Reconciler<T>;
    signal: AbortSignal;
  }): Promise<void> {
    const { key, reconcile, signal } = work;
    const metrics = this.options.metrics;
    const labels = { controller: this.name };
    const log = this.log.child({ key });
    const started = performance.now();
    metrics?.activeWorkers.inc(labels);
    let result: 'success' | 'error' | 'requeue_after';
    try {
      // Level-triggered: the freshest cached object, read when the pass starts.
      const outcome = await reconcile(key, signal, this.primary.get(key));
      const after = outcome?.requeueAfter;
      this.queue.forget(key);
      if (after !== undefined && after > 0) {
        this.queue.addAfter(key, after);
        result = 'requeue_after';
      } else {
        result = 'success';
      }
      log.debug({ requeueAfter: after }, 'reconciled');
    } catch (err) {
      result = 'error';
      metrics?.reconcileErrors.inc(labels);
      if (err instanceof TerminalError) {
        this.queue.forget(key);
        metrics?.terminalErrors.inc(labels);
        log.error({ err }, 'reconcile failed permanently; not retrying until the object changes');
      } else if (signal.aborted) {
        log.info({ err }, 'reconcile aborted');
      } else {
        const retryInMs = this.queue.addRateLimited(key);
        log.warn(
          { err, retryInMs, retries: this.queue.retries(key) },
          'reconcile failed; retrying',
        );
      }
    } finally {
      metrics?.activeWorkers.dec(labels);
      metrics?.reconcileTime.observe(labels, (performance.now() - started) / 1000);
    }
    metrics?.reconcileTotal.inc({ controller: this.name, result });
  }
}

function noop(): void {}
