/** The Toggle task: Apply when the boolean parameter is true, Delete when false. */
import type { Task } from '../api/index.ts';
import { convert } from '../params/index.ts';
import { applyObjects } from './apply.ts';
import { deleteObjects } from './delete.ts';
import { renderTask } from './objects.ts';
import { FatalTaskError, type TaskContext, type TaskOutcome } from './types.ts';

export async function runToggle(task: Task, ctx: TaskContext): Promise<TaskOutcome> {
  const parameter = task.spec?.parameter;
  if (!parameter) {
    throw new FatalTaskError(task.name, 'Toggle needs spec.parameter (a boolean parameter name)');
  }
  const raw = ctx.params[parameter];
  if (raw === undefined) {
    throw new FatalTaskError(
      task.name,
      `no value for parameter ${parameter} found: the OperatorVersion does not define it; add it to the package's parameters or name an existing one in spec.parameter`,
    );
  }
  const value = typeof raw === 'string' ? convert(raw, 'boolean') : raw;
  if (typeof value !== 'boolean') {
    throw new FatalTaskError(
      task.name,
      `parameter ${parameter} must be true or false for a Toggle task, got ${JSON.stringify(raw)}`,
    );
  }
  const rendered = await renderTask(task.name, task.spec?.resources ?? [], ctx);
  return value ? applyObjects(task.name, rendered, ctx) : deleteObjects(task.name, rendered, ctx);
}
