/**
 * When an Instance carries the cleanup finalizer `kudo.dev.instance.cleanup` (KUDO's name):
 * only when deleting it needs Planwright — its OperatorVersion has a `cleanup` plan (KUDO added
 * the finalizer for exactly these), or it recorded an object the garbage collector does not
 * remove with it (inventory/collected.ts: cluster-scoped, other namespaces, target clusters,
 * `gc: keep`, child Instances). An Instance of owned objects only is deleted by the collector
 * alone, like KUDO's Instances without a cleanup plan, and costs no finalizer write.
 *
 * For a cleanup plan, the mutating webhook adds it at CREATE, as KUDO does (admission/decide.ts),
 * so an Instance deleted before the controller first sees it still runs its cleanup; the
 * apiserver then warns on that create that the name has no "/" — KUDO's name is kept for
 * compatibility. The controller adds it on its first look when it is missing (an Instance created
 * before, or an upgrade to an OperatorVersion with a cleanup plan) and, for recorded objects,
 * before the first of them is applied (StatusSession.record). Only Instances that need it get it:
 * for the others the warning and the write are both avoided. Once there it stays until the
 * deletion is done.
 */
import {
  hasCleanupPlan,
  CLEANUP_FINALIZER,
  type Instance,
  type OperatorVersion,
} from '../api/index.ts';
import { collectedWithInstance, type InventoryEntry } from '../inventory/index.ts';

export function hasCleanupFinalizer(instance: Instance): boolean {
  return (instance.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER);
}

export function cleanupFinalizerNeeded(
  instance: Instance,
  ov: OperatorVersion | undefined,
  entries: readonly InventoryEntry[],
): boolean {
  return hasCleanupPlan(ov) || entries.some((e) => !collectedWithInstance(e, instance));
}
