/**
 * The Delete task: render and delete the objects with background propagation — in both
 * postures only an object whose live copy proves it is this Instance's (ownership.ts); any other
 * is left in place with a Warning Event `DeleteSkipped`. Kinds the server does not serve are
 * skipped: such objects cannot exist. Done when a fresh GET of each object answers NotFound.
 */
import { describeObject, type ApplyObject } from '../../kube/index.ts';
import type { Task } from '../api/index.ts';
import { entryOf } from '../inventory/index.ts';
import { deletionRefused } from './ownership.ts';
import { classify } from './classify.ts';
import { decorateAll, renderTask, type Rendered } from './objects.ts';
import { resourcesOf } from './resources.ts';
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
  const resources = resourcesOf(ctx);
  for (const obj of objects) {
    try {
      // An object that is not this Instance's is not ours to delete nor to wait for.
      const skip = (live: ApplyObject): boolean => {
        const why = deletionRefused(`task ${task}`, live, ctx.instance);
        if (why === undefined) return false;
        ctx.warn?.('DeleteSkipped', why);
        return true;
      };
      const change = await resources.delete({ object: obj, skip }, ctx.signal);
      if (change.action === 'skipped') continue;
      // Gone only when the server says so: finalizers (and a garbage collector, for what the
      // object owns) may keep it a while.
      const after = change.action === 'deleting' ? await resources.get(obj, ctx.signal) : undefined;
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
