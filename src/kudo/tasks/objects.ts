/** Rendering a task's resources into decorated objects, ordered for applying. */
import { describeObject, type ApplyObject } from '../../kube/apply.ts';
import { UnknownKindError } from '../../kube/errors.ts';
import {
  MissingTemplateError,
  ParameterValueError,
  RenderError,
  decorate,
  operatorName,
  renderObjects,
  templateVariables,
} from '../render/index.ts';
import { FatalTaskError, TransientTaskError, type TaskContext } from './types.ts';

const FIRST = new Set(['CustomResourceDefinition', 'Namespace']);
const LAST = new Set(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);

export function applyOrder(obj: ApplyObject): number {
  if (FIRST.has(obj.kind ?? '')) return 0;
  if (LAST.has(obj.kind ?? '')) return 2;
  return 1;
}

/** Renders (FatalTaskError on template problems) without resolving kinds. */
export function renderTask(
  task: string,
  resources: readonly string[],
  ctx: TaskContext,
): ApplyObject[] {
  const vars = templateVariables(ctx.instance, ctx.operatorVersion, ctx.at, { ...ctx.params });
  const out: ApplyObject[] = [];
  for (const name of resources) {
    try {
      out.push(...renderObjects(ctx.templates, ctx.operatorVersion, name, vars));
    } catch (err) {
      if (
        err instanceof RenderError ||
        err instanceof MissingTemplateError ||
        err instanceof ParameterValueError
      ) {
        throw new FatalTaskError(task, err.message, { cause: err });
      }
      throw err;
    }
  }
  return out;
}

/**
 * Resolves each object's kind and decorates it (namespace, labels, owner). A kind the server
 * does not serve yet (its CRD is applied by an earlier step) is a transient error, unless
 * `missingKindIsGone` (deleting such an object is already done: it cannot exist).
 */
export async function decorateAll(
  task: string,
  objects: readonly ApplyObject[],
  ctx: TaskContext,
  missingKindIsGone = false,
  unserved?: TransientTaskError[],
): Promise<ApplyObject[]> {
  const out: ApplyObject[] = [];
  for (const obj of objects) {
    let namespaced: boolean;
    try {
      namespaced = (await ctx.ssa.mapping(obj, ctx.signal)).namespaced;
    } catch (err) {
      if (err instanceof UnknownKindError) {
        if (missingKindIsGone) continue;
        const problem = new TransientTaskError(
          task,
          `${describeObject(obj)}: ${err.message}; retrying: this clears once a CustomResourceDefinition providing the kind is Established, otherwise the package must use an apiVersion this cluster serves`,
          { cause: err },
        );
        if (!unserved) throw problem;
        unserved.push(problem);
        continue;
      }
      throw err;
    }
    out.push(
      decorate(obj, {
        instance: ctx.instance,
        operatorName: operatorName(ctx.instance, ctx.operatorVersion),
        operatorVersion: ctx.operatorVersion.spec?.version ?? '',
        at: ctx.at,
        namespaced,
      }),
    );
  }
  return out;
}
