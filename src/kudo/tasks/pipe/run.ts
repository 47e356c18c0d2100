/**
 * The Pipe task (docs/packages.md "Pipe and KudoOperator tasks"): render the
 * package's pod template, check it, create the pipe pod (waiting first for a pod of an earlier
 * run to be gone), wait until its init container has produced the files and the waiter runs,
 * copy each file out through `pods/exec`, and write the Secrets/ConfigMaps. Done when they
 * are applied; the engine deletes the pod once the step is recorded COMPLETE, so a completed
 * step never copies again. Everything a retry cannot fix is fatal and names the pod, the file
 * and what to do; API and connection problems are retried.
 */
import { describeObject, type ApplyObject } from '../../../kube/index.ts';
import type { Task } from '../../api/index.ts';
import { entryOf } from '../../inventory/index.ts';
import { pipeArtifactName, pipePodName, type PipeCoordinates } from '../../package/index.ts';
import { ANNOTATION_PLAN_UID, ownedByInstance } from '../../render/index.ts';
import { applyObjects } from '../apply.ts';
import { classify } from '../classify.ts';
import { decorateAll, renderTask } from '../objects.ts';
import { previousOwner } from '../ownership.ts';
import { resourcesOf } from '../resources.ts';
import {
  FatalTaskError,
  TransientTaskError,
  type TaskContext,
  type TaskOutcome,
} from '../types.ts';
import { pipeArtifact } from './artifacts.ts';
import { copyPipeFile, PipeFileError, type PipePodRef } from './copy.ts';
import { EnvFileError } from './env-file.ts';
import { ExecConnectionError, WebSocketPodExec } from './exec.ts';
import {
  buildPipePod,
  DEFAULT_WAITER_IMAGE,
  PipePodKindError,
  PipePodValidationError,
  validatePipePod,
  WAITER_CONTAINER,
} from './pod.ts';
import { pipePodState } from './pod-status.ts';
import { pipeTaskSpec, type PipeTaskSpec } from './spec.ts';

/** Longest object name the API server accepts (a DNS subdomain). */
const MAX_NAME = 253;

export function pipeCoordinates(task: string, ctx: TaskContext): PipeCoordinates {
  return {
    instance: ctx.instance.metadata.name ?? '',
    plan: ctx.at.plan,
    phase: ctx.at.phase,
    step: ctx.at.step,
    task,
  };
}

function checkNameLength(task: string, what: string, name: string): void {
  if (name.length > MAX_NAME) {
    throw new FatalTaskError(
      task,
      `the ${what} name ${name} has ${name.length} characters, more than the ${MAX_NAME} Kubernetes allows; it is made of the Instance, plan, phase, step and task names (and the pipe key): shorten them`,
    );
  }
}

/** The rendered, checked and decorated pipe pod. */
async function desiredPod(
  task: string,
  spec: PipeTaskSpec,
  name: string,
  ctx: TaskContext,
): Promise<ApplyObject> {
  const [rendered] = await renderTask(task, [spec.pod], ctx, 'pod');
  if (!rendered) throw new FatalTaskError(task, `template ${spec.pod} rendered no pod`);
  let pod: ApplyObject;
  try {
    const mount = validatePipePod(rendered.object, spec.files);
    pod = buildPipePod(
      rendered.object,
      name,
      mount,
      ctx.services.pipeWaiterImage ?? DEFAULT_WAITER_IMAGE,
    );
  } catch (err) {
    if (err instanceof PipePodKindError || err instanceof PipePodValidationError) {
      throw new FatalTaskError(task, `template ${spec.pod}: the pipe pod ${err.message}`);
    }
    throw err;
  }
  const [decorated] = await decorateAll(task, [{ template: spec.pod, object: pod }], ctx);
  if (!decorated) throw new FatalTaskError(task, `template ${spec.pod}: Pods are not served`);
  return decorated;
}

/**
 * The pipe pod of this run: created when absent; a pod of the same name from an earlier run
 * is deleted first and awaited (KUDO reused it, files and all). Undefined while waiting.
 */
async function ensurePod(
  task: string,
  desired: ApplyObject,
  ctx: TaskContext,
): Promise<{ pod: ApplyObject } | { waiting: string }> {
  const resources = resourcesOf(ctx);
  let live: ApplyObject | undefined;
  try {
    live = await resources.get(desired, ctx.signal);
    if (live?.metadata?.['deletionTimestamp']) {
      return {
        waiting: `pipe pod ${describeObject(desired)} of an earlier run is being deleted; waiting until it is gone`,
      };
    }
    if (live && !ownedByInstance(live, ctx.instance)) {
      // Pipe pod names keep only letters and digits of the Instance's name (KUDO's naming), so
      // Instances `my-app` and `myapp` share them: never delete or use the other one's pod.
      throw new TransientTaskError(
        task,
        `pipe pod ${describeObject(desired)} exists and is not this Instance's (owner: ${previousOwner(live)}); pipe pod names keep only the letters and digits of the Instance's name, so another Instance's pipe step may be using it. Retrying until it is gone; rename one of the Instances to run both at once`,
        { object: describeObject(desired) },
      );
    }
    const run = ctx.at.planUid ?? '';
    if (live && live.metadata?.annotations?.[ANNOTATION_PLAN_UID] !== run) {
      await resources.delete({ object: desired, live }, ctx.signal);
      return {
        waiting: `deleting pipe pod ${describeObject(desired)} left by an earlier run; a new one is created once it is gone`,
      };
    }
    if (live) return { pod: live };
    await ctx.inventory.record([entryOf(desired)]);
    // A Pod is not made by a create (createsAsApplied): this is one apply, as always.
    return { pod: (await resources.createOrApply(desired, { signal: ctx.signal })).object };
  } catch (err) {
    throw classify(task, desired, err, ctx.actingAs);
  }
}

export async function runPipe(task: Task, ctx: TaskContext): Promise<TaskOutcome> {
  const spec = pipeTaskSpec(task);
  const at = pipeCoordinates(task.name, ctx);
  const podName = pipePodName(at);
  checkNameLength(task.name, 'pipe pod', podName);
  for (const file of spec.files) {
    checkNameLength(task.name, `pipe artifact (key ${file.key})`, pipeArtifactName(at, file.key));
  }
  const desired = await desiredPod(task.name, spec, podName, ctx);
  const ensured = await ensurePod(task.name, desired, ctx);
  if ('waiting' in ensured) return { done: false, message: ensured.waiting };
  const image = ctx.services.pipeWaiterImage ?? DEFAULT_WAITER_IMAGE;
  const state = pipePodState(ensured.pod, image);
  if (state.state === 'failed') throw new FatalTaskError(task.name, state.message);
  if (state.state === 'waiting') return { done: false, message: state.message };

  const exec = ctx.services.podExec ?? new WebSocketPodExec(ctx.ssa.client.kubeConfig);
  const ref: PipePodRef = {
    namespace: desired.metadata?.namespace ?? '',
    pod: podName,
    container: WAITER_CONTAINER,
  };
  let contents: Buffer[];
  try {
    contents = await Promise.all(
      spec.files.map((f) => copyPipeFile(exec, ref, f.path, ctx.signal)),
    );
  } catch (err) {
    if (err instanceof PipeFileError) throw new FatalTaskError(task.name, err.message);
    if (err instanceof ExecConnectionError) {
      throw new TransientTaskError(
        task.name,
        `copying the pipe files from pod ${ref.namespace}/${ref.pod}: ${err.message}; retrying`,
      );
    }
    throw err;
  }
  let artifacts: ApplyObject[];
  try {
    artifacts = spec.files.map((f, i) =>
      pipeArtifact(f, pipeArtifactName(at, f.key), contents[i] ?? Buffer.alloc(0)),
    );
  } catch (err) {
    if (err instanceof EnvFileError) {
      throw new FatalTaskError(
        task.name,
        `${err.message} (copied from pod ${ref.namespace}/${ref.pod}); fix what the init container writes`,
      );
    }
    throw err;
  }
  const outcome = await applyObjects(
    task.name,
    artifacts.map((object) => ({ template: spec.pod, object })),
    ctx,
    {
      neverTakeOver:
        "pipe artifact names keep only the letters and digits of the Instance's name, so it may be another Instance's; it was left as it is. Rename one of the Instances",
    },
  );
  return outcome.done ? { done: true } : outcome;
}
