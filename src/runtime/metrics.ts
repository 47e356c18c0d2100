/**
 * Prometheus metrics under the names controller-runtime uses, so existing dashboards work.
 * Registered on the `Registry` passed in — never the global default registry.
 *
 * See examples/api/runtime.ts.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** A watch cache as metrics name it: its cluster, kind and view (`selector|transform`, or ""). */
export interface CacheLabels {
  readonly cluster: string;
  readonly gvk: string;
  readonly view: string;
}

const RECONCILE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60];
const QUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10, 100];

/**
 * What each metric is called (controller-runtime's names, which dashboards know), what it
 * means and its labels.
 */
const METRICS = {
  reconcileTotal: {
    name: 'controller_runtime_reconcile_total',
    help: 'Total number of reconciliations per controller',
    labelNames: ['controller', 'result'],
  },
  reconcileErrors: {
    name: 'controller_runtime_reconcile_errors_total',
    help: 'Total number of reconciliation errors per controller',
    labelNames: ['controller'],
  },
  terminalErrors: {
    name: 'controller_runtime_terminal_reconcile_errors_total',
    help: 'Total number of terminal reconciliation errors per controller',
    labelNames: ['controller'],
  },
  reconcileTime: {
    name: 'controller_runtime_reconcile_time_seconds',
    help: 'Length of time per reconciliation per controller',
    labelNames: ['controller'],
  },
  activeWorkers: {
    name: 'controller_runtime_active_workers',
    help: 'Number of currently used workers per controller',
    labelNames: ['controller'],
  },
  maxConcurrentReconciles: {
    name: 'controller_runtime_max_concurrent_reconciles',
    help: 'Maximum number of concurrent reconciles per controller',
    labelNames: ['controller'],
  },
  queueDepth: {
    name: 'workqueue_depth',
    help: 'Current depth of workqueue',
    labelNames: ['name', 'controller'],
  },
  queueAdds: {
    name: 'workqueue_adds_total',
    help: 'Total number of adds handled by workqueue',
    labelNames: ['name', 'controller'],
  },
  queueDuration: {
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested',
    labelNames: ['name', 'controller'],
  },
  workDuration: {
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes',
    labelNames: ['name', 'controller'],
  },
  queueRetries: {
    name: 'workqueue_retries_total',
    help: 'Total number of retries handled by workqueue',
    labelNames: ['name', 'controller'],
  },
  leaderStatus: {
    name: 'leader_election_master_status',
    help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
    labelNames: ['name'],
  },
  watchErrors: {
    name: 'planwright_watch_errors_total',
    help: 'Errors of list/watch streams (each is retried)',
    labelNames: ['cluster', 'gvk'],
  },
  cacheObjects: {
    name: 'planwright_cache_objects',
    help: 'Objects held by each watch cache, by cluster, kind (gvk) and view (label selector|transform, "" for all of the kind)',
    labelNames: ['cluster', 'gvk', 'view'],
  },
  shardOwned: {
    name: 'planwright_shard_owned',
    help: 'Shards this replica runs (1) or has run and handed over or lost (0), by ring and shard',
    labelNames: ['ring', 'shard'],
  },
  shardMembers: {
    name: 'planwright_shard_members',
    help: 'Live members of the shard ring this replica sees (itself included)',
    labelNames: ['ring'],
  },
  shardTransitions: {
    name: 'planwright_shard_transitions_total',
    help: 'Shards this replica took (acquired: free; takeover: from a dead member), handed over (handoff) or lost (lost)',
    labelNames: ['ring', 'reason'],
  },
} as const;

export class RuntimeMetrics {
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly terminalErrors: Counter<'controller'>;
  readonly reconcileTime: Histogram<'controller'>;
  readonly activeWorkers: Gauge<'controller'>;
  readonly maxConcurrentReconciles: Gauge<'controller'>;
  readonly queueDepth: Gauge<'name' | 'controller'>;
  readonly queueAdds: Counter<'name' | 'controller'>;
  readonly queueDuration: Histogram<'name' | 'controller'>;
  readonly workDuration: Histogram<'name' | 'controller'>;
  readonly queueRetries: Counter<'name' | 'controller'>;
  readonly leaderStatus: Gauge<'name'>;
  readonly watchErrors: Counter<'cluster' | 'gvk'>;
  readonly cacheObjects: Gauge<'cluster' | 'gvk' | 'view'>;
  readonly shardOwned: Gauge<'ring' | 'shard'>;
  readonly shardMembers: Gauge<'ring'>;
  readonly shardTransitions: Counter<'ring' | 'reason'>;

  /**
   * @param caches what the watch caches hold when scraped (the manager's cache registry); the
   *   gauge stays empty without it.
   */
  constructor(
    registry: Registry,
    caches?: () => Iterable<{ readonly labels: CacheLabels; readonly objects: number }>,
  ) {
    const registers = [registry];
    this.reconcileTotal = new Counter({ ...METRICS.reconcileTotal, registers });
    this.reconcileErrors = new Counter({ ...METRICS.reconcileErrors, registers });
    this.terminalErrors = new Counter({ ...METRICS.terminalErrors, registers });
    this.reconcileTime = new Histogram({
      ...METRICS.reconcileTime,
      buckets: RECONCILE_BUCKETS,
      registers,
    });
    this.activeWorkers = new Gauge({ ...METRICS.activeWorkers, registers });
    this.maxConcurrentReconciles = new Gauge({ ...METRICS.maxConcurrentReconciles, registers });
    this.queueDepth = new Gauge({ ...METRICS.queueDepth, registers });
    this.queueAdds = new Counter({ ...METRICS.queueAdds, registers });
    this.queueDuration = new Histogram({
      ...METRICS.queueDuration,
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.workDuration = new Histogram({
      ...METRICS.workDuration,
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.queueRetries = new Counter({ ...METRICS.queueRetries, registers });
    this.leaderStatus = new Gauge({ ...METRICS.leaderStatus, registers });
    this.watchErrors = new Counter({ ...METRICS.watchErrors, registers });
    this.cacheObjects = new Gauge({
      ...METRICS.cacheObjects,
      registers,
      collect(): void {
        this.reset();
        for (const { labels, objects } of caches?.() ?? []) this.set({ ...labels }, objects);
      },
    });
    this.shardOwned = new Gauge({ ...METRICS.shardOwned, registers });
    this.shardMembers = new Gauge({ ...METRICS.shardMembers, registers });
    this.shardTransitions = new Counter({ ...METRICS.shardTransitions, registers });
  }
}
