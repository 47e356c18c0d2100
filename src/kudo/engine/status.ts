/** Status bookkeeping: NEVER_RUN entries, the Ready condition, change detection, timestamps. */
import type {
  Condition,
  Instance,
  InstanceStatus,
  OperatorVersion,
  PlanStatus,
} from '../api/types.ts';

/** Every plan of the OperatorVersion has an entry (NEVER_RUN until it first runs), as in KUDO. */
export function ensurePlanEntries(status: InstanceStatus, ov: OperatorVersion): void {
  const plans = (status.planStatus ??= {});
  for (const name of Object.keys(ov.spec?.plans ?? {})) {
    plans[name] ??= { name, status: 'NEVER_RUN', phases: [] };
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

function planTree(ps: PlanStatus | undefined): string {
  if (!ps) return '';
  const rest: PlanStatus = { ...ps };
  delete rest.lastUpdatedTimestamp;
  return canonical(rest);
}

/** Sets lastUpdatedTimestamp on plans whose status tree changed since `before`. */
export function stampChangedPlans(
  before: InstanceStatus | undefined,
  after: InstanceStatus,
  now: Date,
): void {
  for (const [name, ps] of Object.entries(after.planStatus ?? {})) {
    const old = before?.planStatus?.[name];
    if (planTree(old) !== planTree(ps) && ps.status !== 'NEVER_RUN')
      ps.lastUpdatedTimestamp = now.toISOString();
  }
}

export function statusEqual(a: InstanceStatus | undefined, b: InstanceStatus | undefined): boolean {
  return canonical(a ?? {}) === canonical(b ?? {});
}

export interface ReadyInput {
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

/** The Ready condition from the scheduled plan's status. */
export function readyFrom(planName: string | undefined, ps: PlanStatus | undefined): ReadyInput {
  if (!planName)
    return {
      status: 'Unknown',
      reason: 'NoPlanScheduled',
      message: 'no plan has been scheduled yet',
    };
  switch (ps?.status) {
    case 'COMPLETE':
      return {
        status: 'True',
        reason: 'PlanComplete',
        message: `plan ${planName} is COMPLETE and its objects are healthy`,
      };
    case 'FATAL_ERROR':
      return {
        status: 'False',
        reason: 'PlanFailed',
        message: `plan ${planName} failed: ${ps.message ?? ''}`,
      };
    case 'ABORTED':
      return {
        status: 'False',
        reason: 'PlanAborted',
        message: ps.message ?? `plan ${planName} was aborted`,
      };
    default:
      return {
        status: 'False',
        reason: 'PlanInProgress',
        message: `plan ${planName} is ${ps?.status ?? 'PENDING'}${ps?.message ? `: ${ps.message}` : ''}`,
      };
  }
}

/** Sets the Ready condition; lastTransitionTime changes only when the status does. */
export function setReady(
  status: InstanceStatus,
  instance: Instance,
  ready: ReadyInput,
  now: Date,
): void {
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === 'Ready');
  const old = i >= 0 ? conditions[i] : undefined;
  const next: Condition = {
    type: 'Ready',
    status: ready.status,
    reason: ready.reason,
    message: ready.message,
    lastTransitionTime:
      old && old.status === ready.status && old.lastTransitionTime
        ? old.lastTransitionTime
        : now.toISOString(),
    ...(instance.metadata.generation !== undefined
      ? { observedGeneration: instance.metadata.generation }
      : {}),
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
