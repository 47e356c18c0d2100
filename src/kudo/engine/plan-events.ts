/**
 * The Events a plan run records on its Instance, with KUDO's component and texts: KUDO's own
 * tests assert them (shared/spec/kudo-compat.md, Events), and so may a user's alerting.
 */

/** `source.component` of the Instance's Events, as KUDO's manager names it. */
export const INSTANCE_EVENTS_COMPONENT = 'instance-controller';

/** `PlanStarted` (Normal): a new run of `planName` began. */
export function planStartedMessage(planName: string): string {
  return `Execution of plan ${planName} started`;
}

/** `PlanFinished` (Normal): the run ended in a terminal status. */
export function planFinishedMessage(planName: string, status: 'COMPLETE' | 'FATAL_ERROR'): string {
  return `Execution of plan ${planName} finished with status ${status}`;
}
