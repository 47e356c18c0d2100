/**
 * Prune (KubeVela's ResourceTracker, Flux's garbage collection): once a task's objects are
 * all healthy, the objects it applied before and renders no longer are deleted — except
 * `gc: keep` objects, which are abandoned (they leave the inventory and lose their owner
 * reference to the Instance), and objects another Instance took over, which are only
 * forgotten. An object whose deletion failed stays in the inventory: the next pass retries.
 */
import { describeObject, type ApplyObject, type ServerSideApply } from '../../kube/index.ts';
import { UnknownKindError } from '../../kube/index.ts';
import { objectPath } from '../../kube/index.ts';
import type { Instance } from '../api/types.ts';
import { inventoryKey, objectOf, type InventoryEntry } from '../inventory/index.ts';
import { ownedByAnother } from '../render/index.ts';
import { classify } from './classify.ts';
import type { TaskContext } from './types.ts';

/**
 * Lets go of a live object: removes its owner reference to the Instance (so no garbage
 * collector deletes it with the Instance). Guarded by resourceVersion; a conflict throws
 * and the caller retries.
 */
export async function abandon(
  ssa: ServerSideApply,
  live: ApplyObject,
  instance: Instance,
  signal: AbortSignal,
): Promise<void> {
  const refs = live.metadata?.['ownerReferences'];
  if (!Array.isArray(refs)) return;
  const uid = instance.metadata.uid;
  const rest = (refs as Array<{ uid?: string }>).filter((r) => r.uid !== uid);
  if (rest.length === refs.length) return;
  const mapping = await ssa.mapping(live, signal);
  await ssa.client.request({
    method: 'PATCH',
    path: objectPath(
      mapping,
      live.metadata?.name ?? '',
      mapping.namespaced ? live.metadata?.namespace : undefined,
    ),
    contentType: 'application/merge-patch+json',
    body: {
      metadata: {
        ownerReferences: rest.length > 0 ? rest : null,
        resourceVersion: live.metadata?.['resourceVersion'],
      },
    },
    signal,
  });
}

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
  const going: string[] = [];
  const forget: InventoryEntry[] = [];
  try {
    for (const entry of stale) {
      const obj = objectOf(entry);
      try {
        const live = await ctx.ssa.get(obj, ctx.signal);
        if (!live || ownedByAnother(live, ctx.instance)) {
          forget.push(entry);
          continue;
        }
        if (entry.policy === 'keep') {
          await abandon(ctx.ssa, live, ctx.instance, ctx.signal);
          forget.push(entry);
          continue;
        }
        if ((await ctx.ssa.remove(obj, ctx.signal)) === 'gone') forget.push(entry);
        else going.push(`pruning ${describeObject(obj)}: being deleted`);
      } catch (err) {
        if (err instanceof UnknownKindError) {
          forget.push(entry); // its kind is gone, so is the object
          continue;
        }
        throw classify(task, obj, err, ctx.actingAs);
      }
    }
  } finally {
    if (forget.length > 0) {
      ctx.inventory.forget(forget);
      await ctx.inventory.save();
    }
  }
  return going;
}
