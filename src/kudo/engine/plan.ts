/**
 * One idempotent pass over a plan's phases and steps. Pure with respect to the cluster: the
 * caller supplies `runStep` (which runs the step's tasks) and gets the plan status updated in
 * place. COMPLETE phases and steps are skipped; the plan's strategy orders phases, each
 * phase's strategy orders its steps (serial stops at the first unfinished one, parallel runs
 * all of them); a step is COMPLETE when all its tasks are done.
 */
import { isTerminal } from '../api/index.ts';
import type { Phase, PhaseStatus, Plan, PlanStatus, Step, StepStatus } from '../api/index.ts';
import { phaseName, stepName } from './status.ts';

export type StepOutcome =
  | { readonly state: 'done' }
  | { readonly state: 'waiting'; readonly message: string }
  | { readonly state: 'error'; readonly message: string }
  | { readonly state: 'fatal'; readonly message: string };

export interface PassOptions {
  readonly now: Date;
  /** A step not COMPLETE this long after it started becomes FATAL_ERROR. */
  readonly stepTimeoutMs?: number;
  /** A step that ended a pass in ERROR more often than this becomes FATAL_ERROR. */
  readonly stepRetryLimit?: number;
  /** Stop before starting more work (the plan was aborted, or shutdown). */
  readonly signal?: AbortSignal;
}

export type StepRunner = (
  phase: Phase,
  step: Step,
  index: { phase: number; step: number },
) => Promise<StepOutcome>;

function isSerial(strategy: string | undefined): boolean {
  return strategy !== 'parallel';
}

/** A fresh PENDING status for a new run (uid) of `plan`. */
export function freshPlanStatus(planName: string, plan: Plan, uid: string, now: Date): PlanStatus {
  return {
    name: planName,
    uid,
    status: 'PENDING',
    message: '',
    startedAt: now.toISOString(),
    lastUpdatedTimestamp: now.toISOString(),
    phases: (plan.phases ?? []).map((phase, i) => ({
      name: phaseName(phase, i),
      status: 'PENDING',
      message: '',
      steps: (phase.steps ?? []).map((step, j) => ({
        name: stepName(step, j),
        status: 'PENDING',
        message: '',
      })),
    })),
  };
}

/** Runs one pass; updates `status` in place (everything but lastUpdatedTimestamp). */
export async function executePass(
  status: PlanStatus,
  plan: Plan,
  runStep: StepRunner,
  options: PassOptions,
): Promise<void> {
  if (isTerminal(status.status)) return;
  const phases = plan.phases ?? [];
  const phaseStatuses = status.phases ?? (status.phases = []);
  const runPhase = async (i: number): Promise<void> => {
    const phase = phases[i];
    if (!phase) return;
    const ps =
      phaseStatuses[i] ??
      (phaseStatuses[i] = { name: phaseName(phase, i), status: 'PENDING', steps: [] });
    if (isTerminal(ps.status)) return;
    await executePhase({ status: ps, phase, index: i }, runStep, options);
  };
  if (isSerial(plan.strategy)) {
    for (let i = 0; i < phases.length; i++) {
      if (options.signal?.aborted) break;
      await runPhase(i);
      if (phaseStatuses[i]?.status !== 'COMPLETE') break;
    }
  } else {
    await Promise.all(phases.map((_, i) => runPhase(i)));
  }
  summarizePlan(status);
}

async function executePhase(
  at: { readonly status: PhaseStatus; readonly phase: Phase; readonly index: number },
  runStep: StepRunner,
  options: PassOptions,
): Promise<void> {
  const { status: ps, phase, index: phaseIndex } = at;
  const steps = phase.steps ?? [];
  const stepStatuses = ps.steps ?? (ps.steps = []);
  const run = async (j: number): Promise<void> => {
    const step = steps[j];
    if (!step) return;
    const ss =
      stepStatuses[j] ?? (stepStatuses[j] = { name: stepName(step, j), status: 'PENDING' });
    if (isTerminal(ss.status)) return;
    if (options.signal?.aborted) return;
    ss.startedAt ??= options.now.toISOString();
    const outcome = await runStep(phase, step, { phase: phaseIndex, step: j });
    applyOutcome(ss, outcome, options);
  };
  if (isSerial(phase.strategy)) {
    for (let j = 0; j < steps.length; j++) {
      await run(j);
      if (stepStatuses[j]?.status !== 'COMPLETE') break;
    }
  } else {
    await Promise.all(steps.map((_, j) => run(j)));
  }
  summarizePhase(ps);
}

function applyOutcome(ss: StepStatus, outcome: StepOutcome, options: PassOptions): void {
  switch (outcome.state) {
    case 'done':
      ss.status = 'COMPLETE';
      ss.message = '';
      return;
    case 'fatal':
      ss.status = 'FATAL_ERROR';
      ss.message = outcome.message;
      return;
    case 'error': {
      ss.retries = (ss.retries ?? 0) + 1;
      const limit = options.stepRetryLimit;
      if (limit !== undefined && ss.retries > limit) {
        ss.status = 'FATAL_ERROR';
        ss.message = `gave up after ${limit} retries: ${outcome.message}`;
      } else {
        ss.status = 'ERROR';
        ss.message = outcome.message;
      }
      break;
    }
    case 'waiting':
      ss.status = 'IN_PROGRESS';
      ss.message = outcome.message;
      break;
  }
  const timeout = options.stepTimeoutMs;
  const started = ss.startedAt ? Date.parse(ss.startedAt) : Number.NaN;
  if (
    timeout !== undefined &&
    Number.isFinite(started) &&
    options.now.getTime() - started > timeout
  ) {
    ss.status = 'FATAL_ERROR';
    ss.message = `did not finish within ${Math.round(timeout / 1000)} s (step timeout): ${ss.message ?? ''}`;
  }
}

function summarize(children: ReadonlyArray<{ status?: string; message?: string; name?: string }>): {
  status: string;
  message: string;
} {
  if (children.every((c) => c.status === 'COMPLETE')) return { status: 'COMPLETE', message: '' };
  const fatal = children.find((c) => c.status === 'FATAL_ERROR');
  if (fatal)
    return { status: 'FATAL_ERROR', message: `${fatal.name ?? ''}: ${fatal.message ?? ''}` };
  const error = children.find((c) => c.status === 'ERROR');
  if (error) return { status: 'ERROR', message: `${error.name ?? ''}: ${error.message ?? ''}` };
  const busy = children.find((c) => c.status === 'IN_PROGRESS' && c.message);
  const started = children.some((c) => c.status !== 'PENDING');
  return {
    status: started ? 'IN_PROGRESS' : 'PENDING',
    message: busy ? `${busy.name ?? ''}: ${busy.message ?? ''}` : '',
  };
}

function summarizePhase(ps: PhaseStatus): void {
  const s = summarize(ps.steps ?? []);
  ps.status = s.status;
  ps.message = s.message;
}

/** Plan: COMPLETE, FATAL_ERROR, or IN_PROGRESS (an ERROR step keeps the plan running, retried). */
function summarizePlan(status: PlanStatus): void {
  const s = summarize(status.phases ?? []);
  status.status = s.status === 'ERROR' || s.status === 'PENDING' ? 'IN_PROGRESS' : s.status;
  status.message = s.message;
}
