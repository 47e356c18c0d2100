/**
 * Prune (KubeVela's ResourceTracker, Flux's garbage collection): once a task's objects are
 * all healthy, the objects it applied before and renders no longer are deleted — except
 * `gc: keep` objects, which are abandoned (they leave the inventory and lose their owner
 * reference to the Instance). An entry whose live object does not prove it is this Instance's
 * (ownership.ts: the inventory is a list the tenant can write) is dropped with a Warning Event
 * naming it, and the object is left alone. An object whose deletion failed stays in the
 * inventory: the next pass retries.
 */
import { UnknownKindError } from '../../kube/index.ts';
import type { InventoryEntry } from '../inventory/index.ts';
import { inventoryKey } from '../inventory/index.ts';
import { classify } from './classify.ts';
import { deletionRefused } from './ownership.ts';
import { inventoryDeletion, resourcesOf } from './resources.ts';
import type { TaskContext } from './types.ts';

/** Prunes what `task` applied before and did not render now; returns what is still going. */
export async function pruneTask(
  task: string,
  rendered: readonly InventoryEntry[],
  ctx: TaskContext,
): Promise<string[]> {
  const now = new Set(rendered.map(inventoryKey));
  const stale = ctx.inventory
    .list()
    .filter((e) => e.task === task && e.cluster === ctx.cluster && !now.has(inventoryKey(e)));
  if (stale.length === 0) return [];
  const resources = resourcesOf(ctx);
  const going: string[] = [];
  const forget: InventoryEntry[] = [];
  try {
    for (const entry of stale) {
      const deletion = inventoryDeletion(entry, ctx.instance);
      let change;
      try {
        change = await resources.delete(deletion, ctx.signal);
      } catch (err) {
        if (err instanceof UnknownKindError) {
          forget.push(entry); // its kind is gone, so is the object
          continue;
        }
        throw classify(task, deletion.object, err, ctx.actingAs);
      }
      if (change.action === 'skipped') {
        const why = deletionRefused(`prune of task ${task}`, change.object, ctx.instance);
        if (why !== undefined) ctx.warn?.('PruneSkipped', why);
      }
      // Gone, abandoned (`gc: keep`) or not this Instance's: no longer this task's.
      if (change.action === 'deleting') going.push(`pruning ${change.subject}: being deleted`);
      else forget.push(entry);
    }
  } finally {
    if (forget.length > 0) {
      ctx.inventory.forget(forget);
      await ctx.inventory.save();
    }
  }
  return going;
}
