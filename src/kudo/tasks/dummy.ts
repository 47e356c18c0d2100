/** The Dummy task (tests): fails when wantErr (fatally when fatal), else done when `done`. */
import type { Task } from '../api/index.ts';
import { FatalTaskError, TransientTaskError, type TaskOutcome } from './types.ts';

export function runDummy(task: Task): Promise<TaskOutcome> {
  const spec = task.spec ?? {};
  if (spec.wantErr) {
    const Err = spec.fatal ? FatalTaskError : TransientTaskError;
    return Promise.reject(new Err(task.name, 'Dummy task failed as asked (wantErr)'));
  }
  return Promise.resolve(
    spec.done ? { done: true } : { done: false, message: 'Dummy task is not done (done: false)' },
  );
}
