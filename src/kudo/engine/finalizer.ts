/**
 * When an Instance carries the cleanup finalizer `kudo.dev.instance.cleanup` (KUDO's name):
 * only when deleting it needs Planwright — its OperatorVersion has a `cleanup` plan (KUDO added
 * the finalizer for exactly these), or it recorded an object the garbage collector does not
 * remove with it (inventory/collected.ts: cluster-scoped, other namespaces, target clusters,
 * `gc: keep`, child Instances). An Instance of owned objects only is deleted by the collector
 * alone, like KUDO's Instances without a cleanup plan, and costs no finalizer write.
 *
 * Not at CREATE (the mutating webhook): the apiserver warns on every create of an object with a
 * finalizer name without a "/". The controller adds it on its first look at the Instance (a
 * cleanup plan, or an upgrade to an OperatorVersion with one) and, for recorded objects,
 * before the first of them is applied (StatusSession.record). Once there it stays until the
 * deletion is done.
 */
import {
  CLEANUP_FINALIZER,
  PLAN_CLEANUP,
  type Instance,
  type OperatorVersion,
} from '../api/types.ts';
import { collectedWithInstance, type InventoryEntry } from '../inventory/index.ts';

export function hasCleanupFinalizer(instance: Instance): boolean {
  return (instance.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER);
}

export function cleanupFinalizerNeeded(
  instance: Instance,
  ov: OperatorVersion | undefined,
  entries: readonly InventoryEntry[],
): boolean {
  const plans = ov?.spec?.plans ?? {};
  return (
    Object.hasOwn(plans, PLAN_CLEANUP) || entries.some((e) => !collectedWithInstance(e, instance))
  );
}
