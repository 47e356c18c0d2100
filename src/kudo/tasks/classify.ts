// How an API failure of one object becomes a task error: a refusal the package must fix is
// FATAL, anything else is retried. Shared by apply, prune, delete and pipe.
import { describeObject, type ApplyObject } from '../../kube/index.ts';
import { ApiError } from '../../kube/index.ts';
import { FatalTaskError, TaskError, TransientTaskError } from './types.ts';

export function classify(task: string, obj: ApplyObject, err: unknown, actingAs?: string): Error {
  if (err instanceof ApiError) {
    if (err.statusCode === 403 && actingAs !== undefined)
      return forbidden(task, obj, err, actingAs);
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

/**
 * The ServiceAccount a plan acts as may not do what the plan asks: FATAL_ERROR naming the
 * object, the ServiceAccount and the verb. Retrying cannot help until an administrator grants
 * it; a new plan run (or a changed spec) tries again.
 */
function forbidden(task: string, obj: ApplyObject, err: ApiError, actingAs: string): Error {
  const said = err.status?.message ?? err.message;
  const m = /cannot (\S+) resource "([^"]+)"/.exec(said);
  const verb = m?.[1] ?? err.verb.toLowerCase();
  const resource = m?.[2] ?? (obj.kind ?? 'object').toLowerCase();
  const where = obj.metadata?.namespace ? `namespace ${obj.metadata.namespace}` : 'the cluster';
  return new FatalTaskError(
    task,
    `${describeObject(obj)}: the plan acts as ${actingAs}, which may not ${verb} ${resource} in ${where} (the API server answered: ${said}). Grant that ServiceAccount the verb with a Role and RoleBinding, or leave the object out of the package`,
    { cause: err, object: describeObject(obj) },
  );
}
