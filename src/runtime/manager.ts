/**
 * The manager owns every long-running part of a replica (controller-runtime's
 * `Manager.Start(ctx)`): `start(signal)` starts the non-leader {@link Runnable}s (webhook
 * server, TLS, render pools) at once; then, while its {@link ParticipationGate} admits it, it
 * stands for election and runs the leader runnables (cluster-wide work) for each term of
 * leadership, and runs the sharded runnables (controllers of objects split into shards) for
 * each term of each shard its {@link ShardSet} gives it, until `signal` aborts.
 *
 * * A lost lease ends one term, not the run: the leader runnables (or a shard's) stop at
 *   once, the replica rejoins, everything else keeps serving.
 * * A runnable that fails (or returns before the signal aborted) is an unrecoverable error:
 *   everything stops and `start` resolves {@link EXIT_FAILED}.
 * * Shutdown is bounded by `shutdownTimeoutMs` ({@link EXIT_SHUTDOWN_TIMEOUT} when it passes);
 *   the process's signal handler (one, in main.ts) forces the exit on a second signal.
 * * `/readyz` and `/healthz` inputs live in {@link Manager.probes}; the manager adds the
 *   liveness checks (event loop turning, watches alive).
 *
 * See examples/api/runtime.ts.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { KubeClient, type KubeConfig } from '../kube/index.ts';
import { ControllerBuilder } from './builder.ts';
import type { ParticipationGate } from './gate.ts';
import { CacheRegistry, LOCAL_CLUSTER } from './cache-registry.ts';
import { RuntimeConfigError } from './errors.ts';
import { EventRecorder } from './events.ts';
import { LeaderElector, type LeaderElectionOptions } from './leaderelection.ts';
import { RuntimeMetrics } from './metrics.ts';
import { Probes } from './probes.ts';
import type { Runnable } from './runnable.ts';
import { ShardRing } from './sharding/ring.ts';
import { StaticShards } from './sharding/static.ts';
import type { ShardRunnable, ShardSet } from './sharding/types.ts';
import { aborted, withDeadline } from './time.ts';

/** Lease settings of the manager; the client, logger and metrics are the manager's. */
export type LeaderElectionSettings = Omit<LeaderElectionOptions, 'client' | 'logger' | 'metrics'>;

export interface ManagerOptions {
  readonly kubeConfig: KubeConfig;
  readonly logger: Logger;
  /** Metrics are registered here (never on prom-client's global registry). */
  readonly registry: Registry;
  /** Lease settings, or false to run the leader runnables without election (one replica, tests). */
  readonly leaderElection: false | LeaderElectionSettings;
  /** Graceful shutdown deadline. Default 30 s. */
  readonly shutdownTimeoutMs?: number;
  /** `source.component` of recorded Events. Default `planwright`. */
  readonly component?: string;
  /** Watch inactivity timeout for all caches (tests shorten it). Default 3 min. */
  readonly inactivityMs?: number;
  /** `/healthz` fails when a watch in use shows no sign of life this long. Default 2 × inactivityMs. */
  readonly watchStallMs?: number;
  /** `/healthz` fails when a callback queued by the probe waits this long to run. Default 30 s. */
  readonly eventLoopStallMs?: number;
  /** Watch namespaced kinds of the home cluster in these namespaces only (CacheRegistryOptions). */
  readonly namespaces?: readonly string[];
  /** How sharded controllers split their objects between replicas. Default: one shard. */
  readonly sharding?: ShardingSettings;
  /** Whether this replica may run controllers at all (else it serves webhooks only). */
  readonly gate?: ParticipationGate;
}

/**
 * The shards of sharded controllers. With leader election, a shard ring in the Lease's
 * namespace shares them out over the live replicas (sharding/ring.ts); without, this replica
 * runs them all.
 */
export interface ShardingSettings {
  /** How many shards. Default 1 (one replica at a time runs all objects, as a leader would). */
  readonly shards?: number;
  /** The ring's name: its Leases are `<name>-member-<id>` and `<name>-shard-<k>`. Default `planwright`. */
  readonly name?: string;
  /** Start of this replica's identity in the ring. Default: the host name. */
  readonly identity?: string;
}

/** Exit codes `start()` resolves with. */
export const EXIT_OK = 0;
/** A runnable failed (an unrecoverable error); everything was stopped. */
export const EXIT_FAILED = 1;
export const EXIT_SHUTDOWN_TIMEOUT = 2;

const DEFAULT_INACTIVITY_MS = 180_000;

export class Manager {
  readonly client: KubeClient;
  readonly caches: CacheRegistry;
  readonly metrics: RuntimeMetrics;
  readonly events: EventRecorder;
  readonly elector: LeaderElector | undefined;
  /** The shards this replica runs sharded controllers for. */
  readonly shards: ShardSet;
  /** The one readiness/liveness registry, served as `/readyz` and `/healthz`. */
  readonly probes = new Probes();
  private readonly runnables: Runnable[] = [];
  private readonly root = new AbortController();
  private readonly stopping = new AbortController();
  private readonly log: Logger;
  private started = false;
  private leading = false;
  private failed = false;

  constructor(private readonly options: ManagerOptions) {
    this.log = options.logger;
    // Every long-running part of the replica waits on these two (one listener each, removed
    // when it ends): a dozen and more is the design, not a leak.
    setMaxListeners(256, this.root.signal, this.stopping.signal);
    this.client = new KubeClient(options.kubeConfig, LOCAL_CLUSTER);
    // The caches are made next, with these metrics; the gauge of their sizes reads them later.
    this.metrics = new RuntimeMetrics(options.registry, () => this.caches.sizes());
    const inactivityMs = options.inactivityMs ?? DEFAULT_INACTIVITY_MS;
    this.caches = new CacheRegistry({
      clients: new Map([[LOCAL_CLUSTER, this.client]]),
      logger: options.logger,
      signal: this.root.signal,
      metrics: this.metrics,
      inactivityMs,
      namespaces: options.namespaces,
    });
    this.events = new EventRecorder({
      client: this.client,
      component: options.component ?? 'planwright',
      logger: options.logger,
    });
    this.elector = options.leaderElection
      ? new LeaderElector({
          ...options.leaderElection,
          client: this.client,
          logger: options.logger,
          metrics: this.metrics,
        })
      : undefined;
    const sharding = options.sharding ?? {};
    const onFailure = (name: string, err: unknown): void => this.fail(name, err);
    this.shards = options.leaderElection
      ? new ShardRing({
          client: this.client,
          namespace: options.leaderElection.namespace,
          name: sharding.name ?? 'planwright',
          shards: sharding.shards ?? 1,
          ownerLease: options.leaderElection.name,
          logger: options.logger,
          metrics: this.metrics,
          onFailure,
          identity: sharding.identity,
          ...timings(options.leaderElection),
        })
      : new StaticShards({ shards: sharding.shards ?? 1, logger: options.logger, onFailure });
    const loopStallMs = options.eventLoopStallMs ?? 30_000;
    const watchStallMs = options.watchStallMs ?? 2 * inactivityMs;
    // Measured when probed, not sampled by a timer: an idle replica has nothing ticking. A loop
    // blocked for good answers no probe at all, which the kubelet counts as a failure too.
    this.probes.addHealthz('event-loop', async () => (await loopDelayMs()) < loopStallMs);
    this.probes.addHealthz('watches', async () => {
      const stalled = await this.caches.stalledWatches(watchStallMs);
      if (stalled.length > 0)
        this.log.warn({ stalled, watchStallMs }, 'watches show no sign of life');
      return stalled.length === 0;
    });
  }

  /** A builder whose `complete()` registers the controller with this manager. */
  controller(): ControllerBuilder {
    return new ControllerBuilder({
      caches: this.caches,
      logger: this.log,
      metrics: this.metrics,
      onComplete: (c) => this.add(c),
      onCompleteSharded: (c) => this.addSharded(c),
    });
  }

  /** Registers work to run for each term of each shard this replica runs; before `start` only. */
  addSharded(runnable: ShardRunnable): void {
    if (this.started) {
      throw new RuntimeConfigError(
        `${runnable.name} added after the manager started; add every runnable before start()`,
        'manager.addSharded',
      );
    }
    this.shards.register(runnable);
  }

  /** Registers a long-running part; before `start` only. */
  add(runnable: Runnable): void {
    if (this.started) {
      throw new RuntimeConfigError(
        `${runnable.name} added after the manager started; add every runnable before start()`,
        'manager.add',
      );
    }
    this.runnables.push(runnable);
  }

  /** True while this replica runs the leader runnables. */
  get isLeader(): boolean {
    return this.leading;
  }

  /** Aborted when shutdown begins: hang long-running work of your own off it. */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  /**
   * Runs every runnable until `signal` aborts; resolves with the process exit code
   * ({@link EXIT_OK}, {@link EXIT_FAILED}, {@link EXIT_SHUTDOWN_TIMEOUT}).
   */
  async start(signal: AbortSignal): Promise<number> {
    if (this.started) throw new RuntimeConfigError('already started', 'manager.start');
    this.started = true;
    const stop = this.stopping;
    const onSignal = (): void => {
      if (!stop.signal.aborted) this.log.info('shutting down');
      stop.abort(signal.reason);
    };
    signal.addEventListener('abort', onSignal, { once: true });
    if (signal.aborted) onSignal();
    let always: Promise<void>[] = [];
    let taking: Promise<void> = Promise.resolve();
    try {
      // 1. Every replica: the webhook server, TLS, pools — and the caches they acquire.
      always = this.runnables
        .filter((r) => !r.needLeaderElection)
        .map((r) => this.supervise(r, r.start(stop.signal)));
      // 2. While admitted: the leader's runnables, and the shards this replica runs.
      taking = this.participate(stop.signal).catch((err: unknown) => this.fail('manager', err));
      await aborted(stop.signal);
    } finally {
      this.leading = false;
      stop.abort();
      signal.removeEventListener('abort', onSignal);
    }
    const deadline = this.options.shutdownTimeoutMs ?? 30_000;
    let late = false;
    try {
      await withDeadline(
        (async () => {
          await Promise.all([taking, ...always]);
          await this.events.flush();
          this.root.abort();
          await this.caches.stop();
        })(),
        deadline,
        'graceful shutdown',
      );
    } catch (err) {
      late = true;
      this.log.error({ err, deadlineMs: deadline }, 'graceful shutdown did not finish in time');
    } finally {
      this.root.abort();
      this.client.close();
    }
    const code = this.failed ? EXIT_FAILED : late ? EXIT_SHUTDOWN_TIMEOUT : EXIT_OK;
    this.log.info({ code }, 'manager stopped');
    return code;
  }

  /**
   * Each time the gate admits this replica: leader terms and the shard ring, until the gate
   * takes it back (both leave gracefully and it waits to be admitted again) or `stop` aborts.
   */
  private async participate(stop: AbortSignal): Promise<void> {
    while (!stop.aborted) {
      const admitted = this.options.gate ? await this.options.gate.admit(stop) : stop;
      if (!admitted || stop.aborted) return;
      const term = admitted === stop ? stop : AbortSignal.any([stop, admitted]);
      await Promise.all([
        this.leaderTerms(term),
        this.shards.hasRunnables ? this.shards.run(term) : Promise.resolve(),
      ]);
      if (!stop.aborted) {
        this.log.warn('no longer admitted to run controllers: stopped them; webhooks keep serving');
      }
    }
  }

  /** Leader election gates the leader runnables, one term of leadership after another. */
  private async leaderTerms(signal: AbortSignal): Promise<void> {
    let leaders: Promise<void>[] = [];
    try {
      while (!signal.aborted) {
        let term = signal;
        if (this.elector) {
          if (!(await this.elector.acquire(signal))) break;
          term = AbortSignal.any([signal, this.elector.lost]);
        }
        this.leading = true;
        leaders = this.runnables
          .filter((r) => r.needLeaderElection)
          .map((r) => this.supervise(r, r.start(term)));
        await aborted(term);
        this.leading = false;
        if (signal.aborted) break;
        // Leadership lost: the leader runnables stop at once; stand for election again.
        this.log.error(
          { err: term.reason as unknown },
          'leadership lost; controllers stopped, rejoining the election (webhooks keep serving)',
        );
        await Promise.all(leaders);
        leaders = [];
      }
    } finally {
      this.leading = false;
    }
    await Promise.all(leaders);
    await this.elector?.release();
  }

  private supervise(runnable: Runnable, run: Promise<void>): Promise<void> {
    return run.then(
      () => {
        if (this.stopping.signal.aborted || runnable.needLeaderElection) return;
        this.fail(runnable.name, new Error(`${runnable.name} stopped on its own`));
      },
      (err: unknown) => this.fail(runnable.name, err),
    );
  }

  /** An unrecoverable error: everything stops, `start` resolves {@link EXIT_FAILED}. */
  private fail(name: string, err: unknown): void {
    if (this.stopping.signal.aborted) {
      this.log.warn({ err, runnable: name }, 'runnable failed while stopping');
      return;
    }
    this.failed = true;
    this.log.error({ err, runnable: name }, 'unrecoverable error; stopping');
    this.stopping.abort(err);
  }
}

/** The Lease timings of the leader election, for the shard ring's Leases. */
function timings(
  settings: LeaderElectionSettings,
): Pick<LeaderElectionSettings, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'> {
  const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = settings;
  return { leaseDurationMs, renewDeadlineMs, retryPeriodMs };
}

/** How long a callback queued now waits before the event loop runs it. */
function loopDelayMs(): Promise<number> {
  const queued = performance.now();
  return new Promise((resolve) => setImmediate(() => resolve(performance.now() - queued)));
}
