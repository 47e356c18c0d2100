/**
 * Prometheus metrics under the names controller-runtime uses, so existing dashboards work.
 * Registered on the `Registry` passed in — never the global default registry.
 *
 * See examples/api/runtime.ts.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

const RECONCILE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60];
const QUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10, 100];

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
  readonly shardOwned: Gauge<'ring' | 'shard'>;
  readonly shardMembers: Gauge<'ring'>;
  readonly shardTransitions: Counter<'ring' | 'reason'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.reconcileTotal = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.terminalErrors = new Counter({
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.reconcileTime = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: RECONCILE_BUCKETS,
      registers,
    });
    this.activeWorkers = new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    });
    this.maxConcurrentReconciles = new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    });
    this.queueDepth = new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: ['name', 'controller'],
      registers,
    });
    this.queueAdds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name', 'controller'],
      registers,
    });
    this.queueDuration = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name', 'controller'],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: ['name', 'controller'],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.queueRetries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name', 'controller'],
      registers,
    });
    this.leaderStatus = new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
      labelNames: ['name'],
      registers,
    });
    this.watchErrors = new Counter({
      name: 'planwright_watch_errors_total',
      help: 'Errors of list/watch streams (each is retried)',
      labelNames: ['cluster', 'gvk'],
      registers,
    });
    this.shardOwned = new Gauge({
      name: 'planwright_shard_owned',
      help: 'Shards this replica runs (1) or has run and handed over or lost (0), by ring and shard',
      labelNames: ['ring', 'shard'],
      registers,
    });
    this.shardMembers = new Gauge({
      name: 'planwright_shard_members',
      help: 'Live members of the shard ring this replica sees (itself included)',
      labelNames: ['ring'],
      registers,
    });
    this.shardTransitions = new Counter({
      name: 'planwright_shard_transitions_total',
      help: 'Shards this replica took (acquired: free; takeover: from a dead member), handed over (handoff) or lost (lost)',
      labelNames: ['ring', 'reason'],
      registers,
    });
  }
}
