/**
 * The Delete task: render and delete the objects (never one that belongs to another
 * Instance). Done when they are gone.
 */
import { describeObject } from '../../kube/apply.ts';
import type { Task } from '../api/types.ts';
import { entryOf } from '../inventory/index.ts';
import { ownedByAnother } from '../render/index.ts';
import { classify } from './apply.ts';
import { decorateAll, renderTask } from './objects.ts';
import type { TaskContext, TaskOutcome } from './types.ts';
import type { ApplyObject } from '../../kube/apply.ts';

export async function runDelete(task: Task, ctx: TaskContext): Promise<TaskOutcome> {
  const rendered = renderTask(task.name, task.spec?.resources ?? [], ctx);
  return deleteObjects(task.name, rendered, ctx);
}

export async function deleteObjects(
  task: string,
  rendered: readonly ApplyObject[],
  ctx: TaskContext,
): Promise<TaskOutcome> {
  const objects = await decorateAll(task, rendered, ctx, true);
  const waiting: string[] = [];
  for (const obj of objects) {
    try {
      const live = await ctx.ssa.get(obj, ctx.signal);
      if (!live) {
        ctx.inventory.forget([entryOf(obj)]);
        continue;
      }
      if (ownedByAnother(live, ctx.instance)) {
        waiting.push(`${describeObject(obj)} belongs to another Instance and is left alone`);
        continue;
      }
      const result = await ctx.ssa.remove(obj, ctx.signal);
      if (result === 'gone') ctx.inventory.forget([entryOf(obj)]);
      else waiting.push(`${describeObject(obj)} is being deleted (finalizers pending)`);
    } catch (err) {
      throw classify(task, obj, err);
    }
  }
  // An object of another Instance is not ours to wait for.
  const pending = waiting.filter((w) => !w.includes('another Instance'));
  return pending.length === 0 ? { done: true } : { done: false, message: pending.join('; ') };
}
