/**
 * The KudoOperator task (docs/packages.md "Pipe and KudoOperator tasks"):
 * create the child Instance, or merge-patch its OperatorVersion and parameters (keys added or
 * overwritten, never removed; labels and owners untouched) — only an Instance whose owner
 * reference proves it is this Instance's child: any other is left alone, unrecorded, and the
 * step fails naming it — then wait for the child's plan.
 * The child is in the parent's inventory (recorded before it is created), so deleting the
 * parent deletes it — and waits for its own cleanup. A child plan that fails fails the
 * parent's step; API errors and webhook denials are retried.
 */
import { ApiError, namespacedName, type ApplyObject } from '../../../kube/index.ts';
import { KUDO_GROUP, KUDO_VERSION, type Instance, type Task } from '../../api/index.ts';
import { entryOf } from '../../inventory/index.ts';
import { ownedByInstance } from '../../render/index.ts';
import { renderParameterFile } from '../objects.ts';
import { previousOwner } from '../ownership.ts';
import {
  FatalTaskError,
  TransientTaskError,
  type TaskContext,
  type TaskOutcome,
} from '../types.ts';
import { childPatch, childProgress, childTarget, desiredChild, type ChildTarget } from './child.ts';

function collection(namespace: string): string {
  return `/apis/${KUDO_GROUP}/${KUDO_VERSION}/namespaces/${encodeURIComponent(namespace)}/instances`;
}

function denial(err: ApiError): string {
  return err.status?.message ?? err.message;
}

async function createOrPatch(
  task: string,
  target: ChildTarget,
  parameters: Readonly<Record<string, string>>,
  ctx: TaskContext,
): Promise<Instance> {
  const desired = desiredChild(target, ctx.instance, parameters);
  const entry = entryOf({
    apiVersion: `${KUDO_GROUP}/${KUDO_VERSION}`,
    kind: 'Instance',
    metadata: { name: target.name, namespace: target.namespace },
  });
  const path = `${collection(target.namespace)}/${encodeURIComponent(target.name)}`;
  const client = ctx.ssa.client;
  try {
    const live = await client
      .request<Instance>({ path, signal: ctx.signal })
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.statusCode === 404) return undefined;
        throw err;
      });
    if (!live) {
      await ctx.inventory.record([entry]);
      return await client.request<Instance>({
        method: 'POST',
        path: collection(target.namespace),
        body: desired,
        signal: ctx.signal,
      });
    }
    // instanceName is the package's choice: it may name an Instance that is not this one's
    // child (another tenant's in this namespace). Only a child proves it: its owner reference
    // carries this Instance's uid. Anything else is not patched, not recorded, not deleted.
    const found = live as ApplyObject;
    if (!ownedByInstance(found, ctx.instance)) {
      throw new FatalTaskError(
        task,
        `child Instance ${target.namespace}/${target.name} exists and is not a child of Instance ${namespacedName(ctx.instance.metadata)} (owner: ${previousOwner(found)}); it was left as it is. Choose another instanceName in the KudoOperator task, or delete that Instance`,
        { object: `Instance ${target.namespace}/${target.name}` },
      );
    }
    await ctx.inventory.record([entry]);
    const patch = childPatch(live, target, parameters);
    if (!patch) return live;
    return await client.request<Instance>({
      method: 'PATCH',
      path,
      contentType: 'application/merge-patch+json',
      body: patch,
      signal: ctx.signal,
    });
  } catch (err) {
    if (err instanceof ApiError) {
      throw new TransientTaskError(
        task,
        `child Instance ${target.namespace}/${target.name}: ${denial(err)}; retrying`,
        { cause: err },
      );
    }
    throw err;
  }
}

export async function runKudoOperator(task: Task, ctx: TaskContext): Promise<TaskOutcome> {
  const spec = task.spec ?? {};
  if (!spec.package || !spec.operatorVersion) {
    throw new FatalTaskError(
      task.name,
      `cannot build the KudoOperator task: it needs package and operatorVersion (it has package ${JSON.stringify(spec.package ?? '')}, operatorVersion ${JSON.stringify(spec.operatorVersion ?? '')}); install the parent with \`kubectl kudo install\`, which resolves them, or write them into the OperatorVersion`,
    );
  }
  const target = childTarget(spec, ctx.instance);
  const parameters = spec.parameterFile
    ? await renderParameterFile(task.name, spec.parameterFile, ctx)
    : {};
  const child = await createOrPatch(task.name, target, parameters, ctx);
  const progress = childProgress(child);
  if (progress.state === 'failed') throw new FatalTaskError(task.name, progress.message);
  if (progress.state === 'waiting') return { done: false, message: progress.message };
  return { done: true };
}
