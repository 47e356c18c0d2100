/** Dispatches a task by kind. */
import type { Task } from '../api/index.ts';
import { runApply } from './apply.ts';
import { runDelete } from './delete.ts';
import { runDummy } from './dummy.ts';
import { runKudoOperator } from './kudo-operator/index.ts';
import { runPipe } from './pipe/index.ts';
import { runToggle } from './toggle.ts';
import { FatalTaskError, type TaskContext, type TaskOutcome } from './types.ts';

export function runTask(task: Task, ctx: TaskContext): Promise<TaskOutcome> {
  // Pipe pods are exec'd through the home cluster and child Instances live at home: neither
  // has a meaning in a target cluster yet.
  if (ctx.cluster !== undefined && (task.kind === 'Pipe' || task.kind === 'KudoOperator')) {
    return Promise.reject(
      new FatalTaskError(
        task.name,
        `${task.kind} tasks are not supported for an Instance that applies to another cluster (spec.kubeConfig names cluster ${ctx.cluster}); install this package without spec.kubeConfig`,
      ),
    );
  }
  switch (task.kind) {
    case 'Apply':
      return runApply(task, ctx);
    case 'Delete':
      return runDelete(task, ctx);
    case 'Toggle':
      return runToggle(task, ctx);
    case 'Dummy':
      return runDummy(task);
    case 'Pipe':
      return runPipe(task, ctx);
    case 'KudoOperator':
      return runKudoOperator(task, ctx);
    default:
      return Promise.reject(
        new FatalTaskError(
          task.name,
          `unknown task kind "${task.kind}" (known: Apply, Delete, Toggle, Dummy, Pipe, KudoOperator)`,
        ),
      );
  }
}
