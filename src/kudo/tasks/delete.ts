/**
 * The Delete task: render and delete the objects with background propagation (never one
 * that belongs to another Instance, and in the multi-tenant posture only this Instance's; kinds the server does not serve are skipped: such objects
 * cannot exist). Done when a fresh GET of each object answers NotFound.
 */
import { describeObject } from '../../kube/index.ts';
import type { Task } from '../api/types.ts';
import { entryOf } from '../inventory/index.ts';
import { namespacedName } from '../../kube/index.ts';
import { KUDO_TENANCY, mayDelete, previousOwner } from './tenancy.ts';
import { classify } from './classify.ts';
import { decorateAll, renderTask, type Rendered } from './objects.ts';
import type { TaskContext, TaskOutcome } from './types.ts';

export async function runDelete(task: Task, ctx: TaskContext): Promise<TaskOutcome> {
  const rendered = await renderTask(task.name, task.spec?.resources ?? [], ctx);
  return deleteObjects(task.name, rendered, ctx);
}

export async function deleteObjects(
  task: string,
  rendered: readonly Rendered[],
  ctx: TaskContext,
): Promise<TaskOutcome> {
  const objects = await decorateAll(task, rendered, ctx, { missingKindIsGone: true });
  const waiting: string[] = [];
  for (const obj of objects) {
    try {
      const live = await ctx.ssa.get(obj, ctx.signal);
      if (!live) {
        ctx.inventory.forget([entryOf(obj, { cluster: ctx.cluster })]);
        continue;
      }
      // An object of another Instance (multi-tenant: any object not this Instance's) is not
      // ours to delete nor to wait for.
      if (!mayDelete(ctx.tenancy ?? KUDO_TENANCY, live, ctx.instance)) {
        ctx.warn?.(
          'DeleteSkipped',
          `task ${task}: ${describeObject(live)} does not belong to Instance ${namespacedName(ctx.instance.metadata)} (owner: ${previousOwner(live)}); left in place`,
        );
        continue;
      }
      if (!live.metadata?.['deletionTimestamp']) await ctx.ssa.remove(obj, ctx.signal);
      // Gone only when the server says NotFound: finalizers (and a garbage collector, for
      // what the object owns) may keep it a while.
      const after = await ctx.ssa.get(obj, ctx.signal);
      if (!after) {
        ctx.inventory.forget([entryOf(obj, { cluster: ctx.cluster })]);
        continue;
      }
      const finalizers = after.metadata?.['finalizers'];
      waiting.push(
        `${describeObject(obj)} is being deleted${
          Array.isArray(finalizers) && finalizers.length > 0
            ? ` (waiting for finalizers ${finalizers.join(', ')})`
            : ''
        }`,
      );
    } catch (err) {
      throw classify(task, obj, err, ctx.actingAs);
    }
  }
  return waiting.length === 0 ? { done: true } : { done: false, message: waiting.join('; ') };
}
