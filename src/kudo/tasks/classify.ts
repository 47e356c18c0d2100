// How an API failure of one object becomes a task error: a refusal the package must fix is
// FATAL, anything else is retried. Shared by apply, prune, delete and pipe.
import { describeObject, type ApplyObject } from '../../kube/index.ts';
import { ApiError } from '../../kube/index.ts';
import { FatalTaskError, TaskError, TransientTaskError } from './types.ts';

export function classify(task: string, obj: ApplyObject, err: unknown): Error {
  if (err instanceof ApiError) {
    if (err.statusCode === 422 || (err.statusCode === 400 && err.reason === 'BadRequest')) {
      const immutable = /immutable/i.test(err.message);
      return new FatalTaskError(
        task,
        `${describeObject(obj)} was refused by the API server: ${err.status?.message ?? err.message}${
          immutable
            ? '. The field cannot be changed in place: delete the object first (a Delete task before the Apply) or keep the field unchanged'
            : '. Fix the template or the parameter values'
        }`,
        { cause: err, object: describeObject(obj) },
      );
    }
    return new TransientTaskError(task, `${describeObject(obj)}: ${err.message}; retrying`, {
      cause: err,
      object: describeObject(obj),
    });
  }
  if (err instanceof TaskError) return err;
  return new TransientTaskError(
    task,
    `${describeObject(obj)}: ${err instanceof Error ? err.message : String(err)}; retrying`,
    { cause: err, object: describeObject(obj) },
  );
}
