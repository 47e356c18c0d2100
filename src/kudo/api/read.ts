/**
 * Small readers over Instances that admission and the controller agree on: which
 * OperatorVersion an Instance uses and whether its scheduled plan is still running.
 */
import {
  PLAN_CLEANUP,
  TERMINAL_STATUSES,
  type Instance,
  type OperatorVersion,
  type PhaseStatus,
  type PlanStatus,
  type StepStatus,
} from './types.ts';
import { namespacedName } from '../../kube/index.ts';

export interface NamespacedName {
  readonly namespace: string;
  readonly name: string;
}

/**
 * The OperatorVersion an Instance refers to: `spec.operatorVersion.namespace` when set, else
 * the Instance's own namespace. Undefined when the Instance names none.
 */
export function operatorVersionRef(instance: Instance): NamespacedName | undefined {
  const ref = instance.spec?.operatorVersion;
  if (!ref?.name) return undefined;
  return { namespace: ref.namespace || instance.metadata.namespace || '', name: ref.name };
}

/**
 * The name of the index of Instances by the OperatorVersion they use (`namespace/name`), and
 * its function: one definition, so the controller and admission share one index on the
 * shared Instance cache.
 */
export const INSTANCES_BY_OPERATOR_VERSION = 'operatorVersion';

export function instanceOperatorVersionKeys(obj: { readonly metadata?: unknown }): string[] {
  const ref = operatorVersionRef(obj as Instance);
  return ref ? [namespacedName(ref)] : [];
}

/**
 * Whether the OperatorVersion declares a `cleanup` plan (own keys only: plans is package input),
 * the plan that makes deleting an Instance of it need the cleanup finalizer.
 */
export function hasCleanupPlan(ov: OperatorVersion | undefined): boolean {
  return Object.hasOwn(ov?.spec?.plans ?? {}, PLAN_CLEANUP);
}

export function isTerminal(status: string | undefined): boolean {
  return status !== undefined && TERMINAL_STATUSES.has(status);
}

/** The scheduled plan of an Instance that has not reached a terminal status yet. */
export interface RunningPlan {
  readonly planName: string;
  readonly uid: string;
  /** The reported status, or PENDING when the controller has not picked this run up yet. */
  readonly status: string;
  readonly phase?: string;
  readonly step?: string;
  /** When the run started (or last changed, when the start is not recorded). */
  readonly since?: string;
  readonly sinceKind: 'started' | 'updated' | 'unknown';
  /** The controller has reported on this run (a status with the scheduled uid exists). */
  readonly reported: boolean;
  /** Set when an abort was accepted and the controller has not confirmed it yet. */
  readonly abortRequested?: { readonly by: string; readonly at: string };
}

function unfinished<T extends PhaseStatus | StepStatus>(
  items: readonly T[] | undefined,
): T | undefined {
  // Status is written by anyone with status rights: a null or non-object entry is skipped,
  // not dereferenced (admission reads old objects as stored).
  const present = (items ?? []).filter(
    (item): item is T => typeof item === 'object' && item !== null,
  );
  return (
    present.find((item) => !isTerminal(item.status) && item.status !== 'NEVER_RUN') ??
    present.find((item) => !isTerminal(item.status))
  );
}

/**
 * The plan `spec.planExecution` scheduled, if the status does not show that very run (same uid)
 * as terminal. A run the controller has not reported yet counts as running: it will start.
 */
export function runningPlan(instance: Instance): RunningPlan | undefined {
  const execution = instance.spec?.planExecution;
  if (!execution?.planName) return undefined;
  const uid = execution.uid ?? '';
  // planName is user input: own keys only (`constructor` must not find Object's).
  const statuses = instance.status?.planStatus ?? {};
  const reported: PlanStatus | undefined = Object.hasOwn(statuses, execution.planName)
    ? statuses[execution.planName]
    : undefined;
  const current = reported !== undefined && (reported.uid ?? '') === uid ? reported : undefined;
  if (current && isTerminal(current.status)) return undefined;
  const phase = unfinished(current?.phases);
  const step = unfinished(phase?.steps);
  const since = current?.startedAt ?? current?.lastUpdatedTimestamp ?? undefined;
  const abortRequested = execution.abort
    ? { by: execution.abortRequestedBy ?? 'unknown user', at: execution.abortRequestedAt ?? '' }
    : undefined;
  return {
    planName: execution.planName,
    uid,
    status: current?.status || 'PENDING',
    phase: phase?.name || undefined,
    step: step?.name || undefined,
    since: since || undefined,
    sinceKind: current?.startedAt ? 'started' : since ? 'updated' : 'unknown',
    reported: current !== undefined,
    abortRequested,
  };
}
