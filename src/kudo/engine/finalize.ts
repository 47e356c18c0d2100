/**
 * Deleting an Instance that carries the cleanup finalizer: its `cleanup` plan (if any) runs
 * to the end, then its inventory is deleted (cleanup.ts), then the finalizer goes. Objects in
 * a target cluster that cannot be reached block the deletion, unless the Instance says to
 * leave them (ANNOTATION_SKIP_TARGET_CLEANUP).
 */
import type { ServerSideApply } from '../../kube/index.ts';
import type { ReconcileResult } from '../../runtime/index.ts';
import { isTerminal, PLAN_CLEANUP } from '../api/index.ts';
import { readInventory, type InventoryEntry } from '../inventory/index.ts';
import { deleteInventory } from './cleanup.ts';
import { operatorVersionOf, warnOnce, type Pass } from './pass.ts';
import {
  planAsRead,
  recordPlanOutcome,
  recordPlanStarted,
  runPlan,
  sweepPipePods,
  type PlanRun,
} from './plan-run.ts';
import { progressOf } from './status.ts';
import { PassWaits } from './waits.ts';

/**
 * The way out when a target cluster or its Secret is gone for good: the Instance's objects
 * there are left in place and its deletion finishes.
 */
export const ANNOTATION_SKIP_TARGET_CLEANUP = 'planwright.dev/skip-target-cleanup';

/** Deletion: cleanup plan (if any), then the inventory, then the finalizer. */
export async function finalize(pass: Pass): Promise<ReconcileResult | void> {
  const { engine, session, key, signal } = pass;
  const memory = engine.memory;
  const instance = pass.instance;
  const ov = await operatorVersionOf(pass).catch(() => undefined);
  const cleanupUid = `cleanup-${instance.metadata.uid ?? ''}`;
  if (ov?.spec?.plans?.[PLAN_CLEANUP]) {
    // The cleanup plan keeps its timer: the Instance is on its way out.
    const run: PlanRun = {
      ov,
      planName: PLAN_CLEANUP,
      uid: cleanupUid,
      passWaits: new PassWaits(),
    };
    await recordPlanStarted(pass, run);
    const ps = await runPlan(pass, run);
    // Before the write that ends the run; the Event is not owned by the Instance, so it
    // outlives it (kudo-compat.md, Events).
    await recordPlanOutcome(pass, run, ps);
    await session.flush();
    await sweepPipePods(pass, run, ps);
    if (!isTerminal(ps.status)) {
      const progressed = progressOf(planAsRead(pass, PLAN_CLEANUP)) !== progressOf(ps);
      return { requeueAfter: memory.waits.next(key, cleanupUid, progressed) };
    }
  }
  leaveTargetObjectsIfAsked(pass);
  const { remaining, problems } = await deleteInventory({
    session,
    ssaFor: (entry) => ssaFor(pass, entry),
    instance,
    signal,
    logger: engine.ctx.logger,
    warn: (reason, message) => warnOnce(pass, cleanupUid, { reason, message }),
  });
  if (problems.length > 0) {
    const blocked = `the Instance cannot be removed yet: ${problems.slice(0, 5).join('; ')}. Planwright retries; if the cluster or its Secret is gone for good, let go of its objects: kubectl annotate instance ${instance.metadata.name ?? ''} -n ${instance.metadata.namespace ?? ''} ${ANNOTATION_SKIP_TARGET_CLEANUP}=true`;
    session.setReady({ status: 'False', reason: 'CleanupBlocked', message: blocked });
    warnOnce(pass, cleanupUid, { reason: 'CleanupBlocked', message: blocked });
  }
  await session.flush();
  if (remaining.length > 0) {
    return { requeueAfter: memory.waits.next(key, `${cleanupUid}-inventory`, false) };
  }
  await engine.writer.removeFinalizer(pass.instance, signal);
  memory.waits.forget(key);
  engine.ctx.watches?.releaseAll(key);
  engine.drift?.forget(readInventory(pass.read.inventory));
  return undefined;
}

/** With the skip annotation, the records of objects in target clusters are dropped. */
function leaveTargetObjectsIfAsked(pass: Pass): void {
  const instance = pass.instance;
  if (instance.metadata.annotations?.[ANNOTATION_SKIP_TARGET_CLEANUP] !== 'true') return;
  const abandoned = pass.session.inventory.filter((e) => e.cluster !== undefined);
  if (abandoned.length === 0) return;
  pass.session.forget(abandoned);
  pass.engine.ctx.events.record(
    instance,
    'Warning',
    'TargetCleanupSkipped',
    `${abandoned.length} object(s) in target cluster(s) ${[...new Set(abandoned.map((e) => e.cluster))].join(', ')} were left in place (annotation ${ANNOTATION_SKIP_TARGET_CLEANUP}=true)`,
  );
}

/** Where an inventory entry's object lives, or why it cannot be reached now. */
function ssaFor(pass: Pass, entry: InventoryEntry): ServerSideApply | Error {
  const { engine, target } = pass;
  if (entry.cluster === undefined) return pass.home;
  // The Secret decides, also on deletion: credentials cached from before are not used once
  // it is gone or broken (the way out is the skip annotation).
  if (target instanceof Error) return target;
  if (target.cluster === entry.cluster) return target.ssa;
  return (
    engine.ctx.targets?.byCluster(entry.cluster)?.ssa ??
    new Error(`cluster ${entry.cluster} is not the Instance's target and not known`)
  );
}
