/**
 * The generic controller runtime: watcher → cache (shared per {cluster, GVK}) → work queue →
 * reconcile, with leader election, a manager, Events and metrics. Knows nothing of KUDO.
 */
export {
  Manager,
  EXIT_OK,
  EXIT_FAILED,
  EXIT_SHUTDOWN_TIMEOUT,
  type LeaderElectionSettings,
  type ManagerOptions,
  type ShardingSettings,
} from './manager.ts';
export type { ParticipationGate } from './gate.ts';
export { Semaphore } from './semaphore.ts';
export { assignShards, type AssignmentInput } from './sharding/assignment.ts';
export { isShardName, rendezvous, shardNames, shardOf } from './sharding/rendezvous.ts';
export { ShardRing, DEFAULT_RING_LABEL, type ShardRingOptions } from './sharding/ring.ts';
export { StaticShards } from './sharding/static.ts';
export { ShardedController } from './sharding/controller.ts';
export { ShardLabeler, shardLabelFor, type ShardLabelerOptions } from './sharding/labeler.ts';
export {
  ShardHandoffError,
  type ShardRunnable,
  type ShardSet,
  type ShardView,
} from './sharding/types.ts';
export { runnable, type Runnable } from './runnable.ts';
export { Probes, type ProbeCheck, type ProbeKind, type ProbeResult } from './probes.ts';
export { aborted, sleep, untilAborted, withDeadline, DeadlineError } from './time.ts';
export {
  ControllerBuilder,
  generationChanged,
  type ControllerBuilderDeps,
  type ShardedCompletion,
} from './builder.ts';
export {
  Controller,
  type ControllerOptions,
  type Reconciler,
  type ReconcilerFactory,
  type ReconcileResult,
  type EventFilter,
  type EventSource,
  type KeyMapper,
  type WatchEvent,
  type WatchEventType,
} from './controller.ts';
export {
  CacheRegistry,
  LOCAL_CLUSTER,
  type CacheLease,
  type CacheRegistryOptions,
  type CacheView,
} from './cache-registry.ts';
export { Cache, type CacheHandlers, type CacheOptions, type CacheReader } from './cache.ts';
export {
  Store,
  NAMESPACE_INDEX,
  OWNER_UID_INDEX,
  byNamespace,
  byOwnerUid,
  type IndexFunc,
} from './store.ts';
export { Watcher, type WatcherEvent, type WatcherOptions } from './watcher.ts';
export { WorkQueue, type WorkQueueOptions } from './workqueue.ts';
export { BoundedMap, type EvictHandler } from './bounded-map.ts';
export {
  JitteredBackoff,
  ItemExponentialBackoff,
  BucketRateLimiter,
  type BucketRateLimiterOptions,
  type JitteredBackoffOptions,
  type ItemBackoffOptions,
} from './backoff.ts';
export { LeaderElector, type LeaderElectionOptions } from './leaderelection.ts';
export {
  EventRecorder,
  onceName,
  type ComponentEventRecorder,
  type EventRecorderOptions,
  type EventType,
} from './events.ts';
export { RuntimeMetrics } from './metrics.ts';
export { collectProcessMetrics } from './process-metrics.ts';
export {
  TerminalError,
  LeaderElectionLostError,
  RuntimeConfigError,
  QueueShutDownError,
} from './errors.ts';
export {
  objectKey,
  type KubeObject,
  type ObjectMeta,
  type OwnerReference,
  type ObjectKey,
} from './types.ts';
export { sleepOrThrow } from './time.ts';
