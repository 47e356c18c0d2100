/** The plan engine: plan passes, status bookkeeping and the Instance reconciler. */
export {
  InstanceReconciler,
  type InstanceReconcilerOptions,
  type EventSink,
} from './reconciler.ts';
export {
  executePass,
  freshPlanStatus,
  type StepOutcome,
  type PassOptions,
  type StepRunner,
} from './plan.ts';
export { WaitBackoff } from './waits.ts';
export { OperatorVersionMissingError } from './errors.ts';
