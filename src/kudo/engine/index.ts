/** The plan engine: plan passes, status bookkeeping and the Instance reconciler. */
export { InstanceReconciler, type InstanceReconcilerOptions } from './reconciler.ts';
export type { EventSink, OnceEvent } from './pass.ts';
export {
  executePass,
  freshPlanStatus,
  type StepOutcome,
  type PassOptions,
  type StepRunner,
} from './plan.ts';
export { WaitBackoff } from './waits.ts';
export {
  INSTANCE_EVENTS_COMPONENT,
  planFinishedMessage,
  planStartedMessage,
} from './plan-events.ts';
export { OperatorVersionMissingError } from './errors.ts';
export { Identities, IdentityRefusedError, type HomeWriter } from './acting-as.ts';
export { ANNOTATION_SKIP_TARGET_CLEANUP } from './finalize.ts';
export {
  TargetClusters,
  TargetError,
  DEFAULT_KUBECONFIG_KEYS,
  TARGET_CLIENT_LIMITS,
  clusterKey,
  targetRef,
  type Target,
  type TargetClustersOptions,
} from './targets.ts';
export { InstanceWatches, BY_OWNER_INSTANCE, OWNED_OBJECTS, kindsOn } from './instance-watches.ts';
export {
  DriftKeeper,
  ANNOTATION_DRIFT,
  DRIFT_CONDITION,
  driftMode,
  type DriftMode,
  type DriftFinding,
} from './drift.ts';
export { LiveWorkloadSource, labelledFor, type WorkloadSource } from './workloads.ts';
export { CachedObjects, type CacheSource, type CachedObjectsOptions } from './cached-objects.ts';
