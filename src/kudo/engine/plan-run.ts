/**
 * Running a plan for one pass: the entry of the run (reset on a new uid), an abort, the
 * checks before anything is applied (pipes, dependencies), one pass over its phases and
 * steps, the plan Events around the status write that changes the run, and when to look
 * again.
 */
import { objectKey, type ReconcileResult } from '../../runtime/index.ts';
import { isTerminal } from '../api/index.ts';
import type { OperatorVersion, PlanStatus } from '../api/index.ts';
import { RenderBudget, rawParameters } from '../render/index.ts';
import type { AppliedObject } from '../tasks/index.ts';
import { dependencyProblem, isChildInstance } from './dependencies.ts';
import { driftMode } from './drift.ts';
import type { Pass } from './pass.ts';
import { foreignOperatorVersion, warnOnce } from './pass.ts';
import { executePass, freshPlanStatus, type StepRunner } from './plan.ts';
import { isNewRun, planEventId, planFinishedMessage, planStartedMessage } from './plan-events.ts';
import { pipesOfPlan } from './pipes.ts';
import { runStepTasks } from './step-runner.ts';
import type { PassWaits } from './waits.ts';

/** One run of one plan, as a pass executes it. */
export interface PlanRun {
  readonly ov: OperatorVersion;
  readonly planName: string;
  readonly uid: string;
  readonly passWaits: PassWaits;
  /** The user who asked to abort the run (spec.planExecution.abort), and when. */
  readonly abort?: { readonly by: string; readonly at?: string };
}

/** Resets on a new uid, honours an abort, else runs one pass. Returns the plan's status. */
export async function runPlan(pass: Pass, run: PlanRun): Promise<PlanStatus> {
  const { engine, session, signal } = pass;
  const { ov, planName, uid } = run;
  // planName is user input (spec.planExecution): own keys only.
  const declared = ov.spec?.plans ?? {};
  const plan = Object.hasOwn(declared, planName) ? declared[planName] : undefined;
  let ps = session.plan(planName);
  const fresh = !ps || (ps.uid ?? '') !== uid;
  if (!ps || fresh) {
    ps = plan
      ? freshPlanStatus(planName, plan, uid, engine.ctx.now())
      : {
          name: planName,
          uid,
          status: 'FATAL_ERROR',
          message: `plan ${planName} does not exist in OperatorVersion ${ov.metadata.name ?? ''} (it has: ${Object.keys(ov.spec?.plans ?? {}).join(', ') || 'none'}); schedule an existing plan`,
          startedAt: engine.ctx.now().toISOString(),
          phases: [],
        };
    session.setPlan(planName, ps);
  }
  // Another namespace's OperatorVersion without an allowance was never read (operatorVersionOf:
  // an empty one stands in), so the run ends before anything of it is rendered.
  const foreign = foreignOperatorVersion(pass);
  if (foreign !== undefined && (fresh || !isTerminal(ps.status))) {
    ps.status = 'FATAL_ERROR';
    ps.message = foreign;
    // KUDO's reason for an OperatorVersion its controller could not get.
    warnOnce(pass, uid, { reason: 'InvalidOperatorVersion', message: foreign });
  }
  if (isTerminal(ps.status) || !plan) return ps;
  if (run.abort !== undefined) {
    const { by, at } = run.abort;
    ps.status = 'ABORTED';
    ps.message = `aborted by ${by}${at ? ` at ${at}` : ''}; no further objects are touched by this run`;
    return ps;
  }
  const pipes = pipesOfPlan(planName, plan, ov, pass.instance);
  if (!pipes.ok) {
    ps.status = 'FATAL_ERROR';
    ps.message = pipes.message;
    return ps;
  }
  if (!isChildInstance(pass.instance)) {
    const problem = await dependencyProblem(
      ov,
      engine.ctx.operatorVersions,
      engine.ctx.client,
      signal,
    );
    if (problem !== undefined) {
      ps.status = 'FATAL_ERROR';
      ps.message = problem;
      warnOnce(pass, uid, { reason: 'CircularDependency', message: problem });
      return ps;
    }
  }
  if (ps.status === 'PENDING') ps.status = 'IN_PROGRESS';
  await executePass(ps, plan, stepRunner(pass, run, pipes.pipes), {
    now: engine.ctx.now(),
    signal,
    stepTimeoutMs: engine.ctx.stepTimeoutMs,
    stepRetryLimit: engine.ctx.stepRetryLimit,
  });
  return ps;
}

/** Runs the tasks of one step of `run` (on the pass's target, or reports why it cannot). */
function stepRunner(pass: Pass, run: PlanRun, pipes: Record<string, string>): StepRunner {
  const { engine, target, signal, session } = pass;
  if (target instanceof Error)
    return () => Promise.resolve({ state: 'error' as const, message: target.message });
  const { ov, planName, uid } = run;
  const instance = pass.instance;
  // Raw values: array/map parameters are decoded where templates render (off the loop).
  const params = rawParameters(instance, ov);
  const renderBudget = new RenderBudget();
  const drift = engine.drift;
  return (phase, step) =>
    runStepTasks(
      {
        services: engine.ctx,
        instance,
        operatorVersion: ov,
        planName,
        planUid: uid,
        passWaits: run.passWaits,
        params,
        pipes,
        ssa: target.ssa,
        cluster: target.cluster,
        actingAs: target.actingAs,
        // The watch caches are the home cluster's: a target cluster's objects are GET.
        objects: target.cluster === undefined ? engine.ctx.objects : undefined,
        // Baselines only for Instances with drift on (they cost memory per object).
        onApplied:
          drift && driftMode(instance) !== 'off'
            ? (a: AppliedObject): void => drift.applied(objectKey(pass.instance), a)
            : undefined,
        renderBudget,
        inventory: session,
        signal,
        warn: (reason, message) => warnOnce(pass, uid, { reason, message }),
      },
      phase,
      step,
    );
}

/** A look when the earliest running step's timeout expires; none without a step timeout. */
export function stepDeadline(pass: Pass, ps: PlanStatus): ReconcileResult | undefined {
  const timeout = pass.engine.ctx.stepTimeoutMs;
  if (timeout === undefined) return undefined;
  let earliest = Number.POSITIVE_INFINITY;
  for (const phase of ps.phases ?? [])
    for (const step of phase.steps ?? []) {
      const started = step.startedAt ? Date.parse(step.startedAt) : Number.NaN;
      if (step.status === 'IN_PROGRESS' && Number.isFinite(started))
        earliest = Math.min(earliest, started);
    }
  const now = pass.engine.ctx.now().getTime();
  // Just past the deadline (the pass times a step out once more than `timeout` went by).
  const due = Number.isFinite(earliest) ? earliest + timeout + 1_000 - now : timeout;
  return { requeueAfter: Math.max(1_000, due) };
}

/** Pipe pods of steps now recorded COMPLETE go (see PipePodSweeper). */
export function sweepPipePods(pass: Pass, run: PlanRun, ps: PlanStatus): Promise<void> {
  const plans = run.ov.spec?.plans ?? {};
  const plan = Object.hasOwn(plans, run.planName) ? plans[run.planName] : undefined;
  // Pipe pods are the plan's objects: deleted with the identity that created them.
  if (pass.home instanceof Error) return Promise.resolve();
  return pass.engine.pipePods.sweep({
    ssa: pass.home,
    instance: pass.instance,
    ov: run.ov,
    planName: run.planName,
    plan,
    status: ps,
    signal: pass.signal,
  });
}

/** The status of the run's plan as the pass read it. */
export function planAsRead(pass: Pass, planName: string): PlanStatus | undefined {
  const plans = pass.read.planStatus;
  return plans && Object.hasOwn(plans, planName) ? plans[planName] : undefined;
}

/**
 * PlanStarted for a new run, awaited before the pass: the pass's first status write (an
 * inventory entry, or its closing write) is what makes the run started, and a manager that
 * dies after it would see a run already under way and never record the Event. Recording it
 * under a name derived from the run (recordOnce) makes a second attempt a no-op. An aborted
 * reconcile ends the POST at once and goes no further: the Event may not be stored, so no
 * write may make the run started (the next pass records it under the same name).
 */
export async function recordPlanStarted(
  pass: Pass,
  run: Pick<PlanRun, 'planName' | 'uid'>,
): Promise<void> {
  const { planName, uid } = run;
  if (!isNewRun(planAsRead(pass, planName), uid)) return;
  await pass.engine.ctx.events.recordOnce(
    pass.instance,
    {
      type: 'Normal',
      reason: 'PlanStarted',
      message: planStartedMessage(planName),
      id: planEventId(planName, uid, 'STARTED'),
    },
    pass.signal,
  );
  pass.signal.throwIfAborted();
}

/**
 * PlanFinished / PlanAborted when the pass ended the run, awaited before the status write
 * that ends it (same reasoning as recordPlanStarted: a crash on either side of that write
 * leaves exactly one Event; an aborted reconcile stops before that write, as above).
 * StepFailed stays aggregated and fire-and-forget: it mirrors a step status that keeps the
 * message, a failing step that retries records it again, and its messages vary, so a name
 * per occurrence would buy nothing.
 */
export async function recordPlanOutcome(
  pass: Pass,
  run: Pick<PlanRun, 'planName'>,
  after: PlanStatus,
): Promise<void> {
  const { events } = pass.engine.ctx;
  const { planName } = run;
  const before = planAsRead(pass, planName);
  const instance = pass.instance;
  const was = isNewRun(before, after.uid ?? '') ? undefined : before;
  for (const [i, phase] of (after.phases ?? []).entries()) {
    for (const [j, step] of (phase.steps ?? []).entries()) {
      const old = was?.phases?.[i]?.steps?.[j];
      if (
        (step.status === 'ERROR' || step.status === 'FATAL_ERROR') &&
        (old?.status !== step.status || old.message !== step.message)
      ) {
        events.record(
          instance,
          'Warning',
          'StepFailed',
          `plan ${planName}, phase ${phase.name ?? ''}, step ${step.name ?? ''}: ${step.status}: ${step.message ?? ''}`,
        );
      }
    }
  }
  if (was?.status === after.status) return;
  const id = planEventId(planName, after.uid ?? '', after.status ?? '');
  // PlanStarted and PlanFinished carry KUDO's texts, which its tests assert (kudo-compat.md,
  // Events); why a plan failed is in StepFailed above and in the status.
  if (after.status === 'COMPLETE' || after.status === 'FATAL_ERROR')
    await events.recordOnce(
      instance,
      {
        type: 'Normal',
        reason: 'PlanFinished',
        message: planFinishedMessage(planName, after.status),
        id,
      },
      pass.signal,
    );
  else if (after.status === 'ABORTED')
    await events.recordOnce(
      instance,
      {
        type: 'Warning',
        reason: 'PlanAborted',
        message: `plan ${planName} ${after.message ?? 'was aborted'}`,
        id,
      },
      pass.signal,
    );
  pass.signal.throwIfAborted();
}
