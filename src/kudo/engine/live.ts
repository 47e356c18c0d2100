/**
 * The pass of an Instance that is not being deleted: the plan `spec.planExecution` schedules
 * runs (plan-run.ts), the Ready condition follows (readiness.ts), and the watches and drift
 * check are kept (keep.ts). Without a scheduled plan the workloads decide Ready.
 */
import type { ReconcileResult } from '../../runtime/index.ts';
import { namespacedName } from '../../kube/index.ts';
import { isTerminal, operatorVersionRef } from '../api/index.ts';
import type { OperatorVersion, PlanExecution } from '../api/index.ts';
import { OperatorVersionMissingError } from './errors.ts';
import { cleanupFinalizerNeeded } from './finalizer.ts';
import { watchAndKeep } from './keep.ts';
import { operatorVersionOf, type Pass } from './pass.ts';
import {
  planAsRead,
  recordPlanOutcome,
  recordPlanStarted,
  runPlan,
  stepDeadline,
  sweepPipePods,
  type PlanRun,
} from './plan-run.ts';
import { updateReady } from './readiness.ts';
import { progressOf, readyFromPlan } from './status.ts';
import { findUnrecorded, nothingUnrecorded } from './unrecorded.ts';
import { PassWaits } from './waits.ts';

export async function reconcileLive(pass: Pass): Promise<ReconcileResult | void> {
  const { session, engine, key } = pass;
  const ov = await operatorVersionOf(pass);
  if (cleanupFinalizerNeeded(pass.instance, ov, session.inventory))
    await session.requireFinalizer();
  if (!ov) {
    const err = new OperatorVersionMissingError(
      namespacedName(pass.instance.metadata),
      namespacedName(operatorVersionRef(pass.instance)),
    );
    session.setReady({ status: 'False', reason: 'OperatorVersionNotFound', message: err.message });
    await session.flush();
    return { requeueAfter: engine.memory.waits.next(key, 'missing-ov', false) };
  }
  session.syncPlans(ov);
  const pe = pass.instance.spec?.planExecution;
  if (!pe?.planName) {
    await updateReady(pass, 'workloads');
    await session.flush();
    await watchAndKeep(pass, true);
    return undefined;
  }
  const scheduled = await runScheduled(pass, { ov, planName: pe.planName, execution: pe });
  if (scheduled === 'stale') return { requeueAfter: 100 };
  await watchAndKeep(pass, !scheduled.running);
  return scheduled.result;
}

interface Scheduled {
  /** The plan still runs after this pass. */
  readonly running: boolean;
  readonly result: ReconcileResult | undefined;
}

/**
 * Runs the scheduled plan one pass further, sets Ready from it and writes the status (after
 * the plan Events that write makes true). `stale`: the cached copy has not seen our own
 * write that ended this run yet.
 */
async function runScheduled(
  pass: Pass,
  scheduled: { ov: OperatorVersion; planName: string; execution: PlanExecution },
): Promise<Scheduled | 'stale'> {
  const { session, engine, key } = pass;
  const { ov, planName, execution: pe } = scheduled;
  const memory = engine.memory;
  const uid = pe.uid ?? '';
  const was = planAsRead(pass, planName);
  const wasTerminal = (was?.uid ?? '') === uid && isTerminal(was?.status);
  // The cache may not have seen our own write that ended this run yet: running the pass
  // again from that stale copy would re-apply objects users may have edited since (KUDO
  // semantics: edits made while no plan runs stay). Look again shortly instead.
  if (!wasTerminal && memory.finished.get(key) === `${planName}/${uid}`) return 'stale';
  if (wasTerminal) memory.accounted.set(key, pass.instance.metadata.uid ?? '');
  else if ((was?.uid ?? '') !== uid) await recordUnrecorded(pass, ov);
  const run: PlanRun = {
    ov,
    planName,
    uid,
    passWaits: new PassWaits(),
    abort: pe.abort
      ? { by: pe.abortRequestedBy ?? 'unknown user', at: pe.abortRequestedAt }
      : undefined,
  };
  await recordPlanStarted(pass, run);
  const ps = await runPlan(pass, run);
  session.setPlanExecution({
    planName,
    uid,
    status: ps.status ?? 'PENDING',
    startedAt: ps.startedAt || undefined,
    observedGeneration: pass.instance.metadata.generation,
  });
  await updateReady(pass, readyFromPlan(planName, ps, !wasTerminal && isTerminal(ps.status)));
  await recordPlanOutcome(pass, run, ps);
  await session.flush();
  await sweepPipePods(pass, run, ps);
  if (isTerminal(ps.status)) {
    memory.waits.forget(key);
    memory.finished.set(key, `${planName}/${uid}`);
    return { running: false, result: undefined };
  }
  const progressed = progressOf(was) !== progressOf(ps);
  const delay = memory.waits.next(key, uid, progressed);
  // Waiting only for watched objects: their watch events wake the Instance (no polling);
  // a step timeout still needs a look when it expires.
  return {
    running: true,
    result: run.passWaits.eventDriven ? stepDeadline(pass, ps) : { requeueAfter: delay },
  };
}

/**
 * A new run starts: unless the stored status (or this term) proves every object applied so
 * far is recorded, finds the Instance's owned objects a run applied without their record
 * reaching the API server, and records them for prune (unrecorded.ts). The home cluster
 * only: objects in target clusters are always recorded before they are applied.
 */
async function recordUnrecorded(pass: Pass, ov: OperatorVersion): Promise<void> {
  const { engine, session, key } = pass;
  const instance = pass.instance;
  const uid = instance.metadata.uid ?? '';
  if (engine.memory.accounted.get(key) === uid || nothingUnrecorded(instance)) return;
  const found = await findUnrecorded({
    instance,
    ov,
    known: session.inventory,
    ssa: engine.ctx.ssa,
    logger: engine.ctx.logger,
    signal: pass.signal,
  });
  if (found.length > 0) await session.record(found, { foundWithoutInventory: true });
  // Not after nothingUnrecorded alone: an earlier process may have run part of the run now
  // starting; its objects are re-rendered only if this run gets that far.
  engine.memory.accounted.set(key, uid);
}
