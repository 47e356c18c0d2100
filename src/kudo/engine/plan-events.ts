/**
 * The Events a plan run records on its Instance, with KUDO's component and texts: KUDO's own
 * tests assert them (shared/spec/kudo-compat.md, Events), and so may a user's alerting.
 */
import type { PlanStatus } from '../api/index.ts';

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

/**
 * Whether a pass of run `planUid` starts it: the stored status is of another run, or of none
 * yet. Decided from the status before the pass, so it can be recorded before any write.
 */
export function isNewRun(before: PlanStatus | undefined, planUid: string): boolean {
  return !before || (before.uid ?? '') !== planUid || before.status === 'NEVER_RUN';
}

/**
 * The occurrence id of a plan-run Event (EventRecorder.recordOnce): one per run and status
 * reached (`STARTED` for PlanStarted). The recorder adds the Instance uid and the reason.
 */
export function planEventId(planName: string, planUid: string, status: string): string {
  return JSON.stringify([planName, planUid, status]);
}
