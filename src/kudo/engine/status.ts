/** Status bookkeeping: plan entries, the Ready condition, change detection, timestamps. */
import {
  jsonEqual,
  isTerminal,
  PLAN_DEPLOY,
  PLAN_UPDATE,
  PLAN_UPGRADE,
  type Condition,
  type Instance,
  type InstanceStatus,
  type OperatorVersion,
  type Phase,
  type PhaseStatus,
  type PlanStatus,
  type Step,
  type StepStatus,
} from '../api/index.ts';

/** The status name of a phase/step: its name, else its position (the OV left it out). */
export function phaseName(phase: Phase, index: number): string {
  return phase.name ?? `phase-${index}`;
}

export function stepName(step: Step, index: number): string {
  return step.name ?? `step-${index}`;
}

/**
 * Takes, for each wanted name in order, the first not yet taken entry of that name (so
 * duplicate names in an OV keep one entry each).
 */
function matchByName<T extends { name?: string }>(
  old: readonly T[] | undefined,
  names: readonly string[],
): Array<T | undefined> {
  const taken = new Set<number>();
  return names.map((name) => {
    const i = (old ?? []).findIndex((o, j) => !taken.has(j) && o.name === name);
    if (i < 0) return undefined;
    taken.add(i);
    return old?.[i];
  });
}

/**
 * Every plan of the OperatorVersion has an entry, as in KUDO:
 * `{name, status: NEVER_RUN, phases: [{name, status: NEVER_RUN, steps: [{name, status}]}]}`
 * until it first runs. Each entry's phases and steps follow the current OV's order (after an
 * upgrade too): statuses of phases/steps that still exist are kept by name, new ones are
 * NEVER_RUN, removed ones go. Entries of plans the OV no longer has are left alone.
 */
export function syncPlanEntries(status: InstanceStatus, ov: OperatorVersion): void {
  const plans = (status.planStatus ??= {});
  for (const [name, plan] of Object.entries(ov.spec?.plans ?? {})) {
    const entry = (plans[name] ??= { name, status: 'NEVER_RUN', phases: [] });
    entry.name ??= name;
    entry.status ||= 'NEVER_RUN';
    const phases = plan?.phases ?? [];
    const oldPhases = matchByName(
      entry.phases,
      phases.map((p, i) => phaseName(p, i)),
    );
    entry.phases = phases.map((phase, i): PhaseStatus => {
      const old = oldPhases[i];
      const steps = phase.steps ?? [];
      const oldSteps = matchByName(
        old?.steps,
        steps.map((s, j) => stepName(s, j)),
      );
      return {
        ...old,
        name: phaseName(phase, i),
        status: old?.status || 'NEVER_RUN',
        steps: steps.map((step, j): StepStatus => ({
          ...oldSteps[j],
          name: stepName(step, j),
          status: oldSteps[j]?.status || 'NEVER_RUN',
        })),
      };
    });
  }
}

/** JSON with object keys sorted: the apiserver returns keys in its own order. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        )
      : v,
  );
}

/** Whether a plan's status tree changed, its lastUpdatedTimestamp aside. */
function planTreeChanged(old: PlanStatus | undefined, ps: PlanStatus): boolean {
  if (!old) return true;
  return !jsonEqual(
    { ...old, lastUpdatedTimestamp: undefined },
    { ...ps, lastUpdatedTimestamp: undefined },
  );
}

/** Sets lastUpdatedTimestamp on plans whose status tree changed since `before`. */
export function stampChangedPlans(
  before: InstanceStatus | undefined,
  after: InstanceStatus,
  now: Date,
): void {
  for (const [name, ps] of Object.entries(after.planStatus ?? {})) {
    const old = before?.planStatus?.[name];
    if (ps.status !== 'NEVER_RUN' && planTreeChanged(old, ps))
      ps.lastUpdatedTimestamp = now.toISOString();
  }
}

/** Compared as JSON (any key order) without serializing: this runs on every status flush. */
export function statusEqual(a: InstanceStatus | undefined, b: InstanceStatus | undefined): boolean {
  return jsonEqual(a ?? {}, b ?? {});
}

export interface ReadyInput {
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

/** Plans whose run decides readiness while they run and when they fail (KUDO's rule). */
const READINESS_PLANS: ReadonlySet<string> = new Set([PLAN_DEPLOY, PLAN_UPDATE, PLAN_UPGRADE]);

export const READY_MESSAGE = 'all workloads of the Instance are healthy';

/**
 * What the scheduled plan says about the Ready condition: a value to set, `workloads` (judge
 * the owned workloads: no plan runs), or `keep` (a plan that does not decide readiness runs).
 * `finishedNow`: the run became terminal in this reconcile.
 */
export function readyFromPlan(
  planName: string | undefined,
  ps: PlanStatus | undefined,
  finishedNow: boolean,
): ReadyInput | 'workloads' | 'keep' {
  if (!planName) return 'workloads';
  const decides = READINESS_PLANS.has(planName);
  if (!isTerminal(ps?.status)) {
    return decides
      ? {
          status: 'Unknown',
          reason: 'PlanInProgress',
          message: `plan ${planName} is ${ps?.status ?? 'PENDING'}${ps?.message ? `: ${ps.message}` : ''}`,
        }
      : 'keep';
  }
  if (!decides) return 'workloads';
  switch (ps?.status) {
    case 'COMPLETE':
      // Right when the plan finishes its objects are healthy (that is what finished it); the
      // watch caches may not show that yet, so the next reconciles judge the workloads.
      return finishedNow
        ? { status: 'True', reason: 'ResourcesReady', message: READY_MESSAGE }
        : 'workloads';
    case 'FATAL_ERROR':
      return {
        status: 'Unknown',
        reason: 'PlanInFatalError',
        message: `plan ${planName} failed: ${ps.message ?? ''}`,
      };
    default:
      return {
        status: 'Unknown',
        reason: 'PlanAborted',
        message: ps?.message ?? `plan ${planName} was aborted`,
      };
  }
}

/** The Ready condition from the owned workloads' health. */
export function readyFromWorkloads(readiness: { ready: boolean; message: string }): ReadyInput {
  return readiness.ready
    ? { status: 'True', reason: 'ResourcesReady', message: READY_MESSAGE }
    : { status: 'False', reason: 'ResourceNotReady', message: readiness.message };
}

export function readyCondition(status: InstanceStatus): Condition | undefined {
  return status.conditions?.find((c) => c.type === 'Ready');
}

/** Sets the Ready condition; lastTransitionTime changes only when the status does. */
export function setReady(
  status: InstanceStatus,
  instance: Instance,
  ready: ReadyInput,
  now: Date,
): void {
  setCondition(status, instance, { type: 'Ready', ...ready }, now);
}

/**
 * Sets a condition: the transition time moves only when the status changes; observed
 * generation from the Instance.
 */
export function setCondition(
  status: InstanceStatus,
  instance: Instance,
  condition: Pick<Condition, 'type' | 'status' | 'reason' | 'message'>,
  now: Date,
): void {
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === condition.type);
  const old = i >= 0 ? conditions[i] : undefined;
  const next: Condition = {
    type: condition.type,
    status: condition.status,
    reason: condition.reason,
    message: condition.message,
    lastTransitionTime:
      old && old.status === condition.status && old.lastTransitionTime
        ? old.lastTransitionTime
        : now.toISOString(),
    observedGeneration: instance.metadata.generation,
  };
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
}

/**
 * What counts as progress for the wait backoff: the run and the status of every phase and
 * step. Messages and retry counters change on every failing pass and must not reset it.
 */
export function progressOf(ps: PlanStatus | undefined): string {
  if (!ps) return '';
  return canonical([
    ps.uid,
    ps.status,
    (ps.phases ?? []).map((p) => [p.status, (p.steps ?? []).map((s) => s.status)]),
  ]);
}
