/** Runs the tasks of one step and folds their outcomes into a {@link StepOutcome}. */
import type { Instance, OperatorVersion, Phase, Step } from '../api/types.ts';
import {
  FatalTaskError,
  runTask,
  type InventoryRecorder,
  type PodExec,
  type TaskContext,
} from '../tasks/index.ts';
import type { ServerSideApply } from '../../kube/apply.ts';
import type { RenderBudget, Renderer } from '../render/index.ts';
import type { StepOutcome } from './plan.ts';

export interface StepRunnerDeps {
  readonly instance: Instance;
  readonly operatorVersion: OperatorVersion;
  readonly planName: string;
  /** The run's uid (annotated on every applied object). */
  readonly planUid: string;
  readonly params: Readonly<Record<string, unknown>>;
  /** `.Pipes` of the plan (see planPipes). */
  readonly pipes: Readonly<Record<string, string>>;
  readonly ssa: ServerSideApply;
  /** The target cluster's key; undefined for the home cluster. */
  readonly cluster?: string;
  readonly onApplied?: TaskContext['onApplied'];
  readonly templates: Renderer;
  readonly renderBudget?: RenderBudget;
  readonly inventory: InventoryRecorder;
  readonly signal: AbortSignal;
  readonly warn?: (reason: string, message: string) => void;
  readonly pipeWaiterImage?: string;
  readonly podExec?: PodExec;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Failures that repeat identically on every retry: the stack or a string/array length
 * exhausted (RangeError — never an API or network error), or a cyclic object. Retrying them
 * forever as ERROR helps nobody; they end the step as FATAL_ERROR.
 */
function deterministic(err: unknown): boolean {
  return (
    err instanceof RangeError ||
    (err instanceof TypeError && /circular structure/i.test(err.message))
  );
}

/** All tasks of the step run each pass; fatal beats error beats waiting beats done. */
export async function runStepTasks(
  deps: StepRunnerDeps,
  phase: Phase,
  step: Step,
): Promise<StepOutcome> {
  const ctx: TaskContext = {
    instance: deps.instance,
    operatorVersion: deps.operatorVersion,
    at: {
      plan: deps.planName,
      phase: phase.name ?? '',
      step: step.name ?? '',
      planUid: deps.planUid,
    },
    params: deps.params,
    pipes: deps.pipes,
    ssa: deps.ssa,
    ...(deps.cluster !== undefined ? { cluster: deps.cluster } : {}),
    ...(deps.onApplied ? { onApplied: deps.onApplied } : {}),
    templates: deps.templates,
    ...(deps.renderBudget ? { renderBudget: deps.renderBudget } : {}),
    inventory: deps.inventory,
    signal: deps.signal,
    ...(deps.warn ? { warn: deps.warn } : {}),
    ...(deps.pipeWaiterImage ? { pipeWaiterImage: deps.pipeWaiterImage } : {}),
    ...(deps.podExec ? { podExec: deps.podExec } : {}),
  };
  const fatal: string[] = [];
  const errors: string[] = [];
  const waiting: string[] = [];
  for (const taskName of step.tasks ?? []) {
    const task = deps.operatorVersion.spec?.tasks?.find((t) => t.name === taskName);
    if (!task) {
      fatal.push(
        `step ${step.name ?? ''} names task ${taskName}, which OperatorVersion ${deps.operatorVersion.metadata.name ?? ''} does not define; add it to spec.tasks`,
      );
      continue;
    }
    try {
      const outcome = await runTask(task, ctx);
      if (!outcome.done) waiting.push(outcome.message ?? `task ${task.name} is not done`);
    } catch (err) {
      if (deps.signal.aborted) throw err;
      if (err instanceof FatalTaskError) fatal.push(err.message);
      else if (deterministic(err)) {
        fatal.push(
          `task ${task.name}: ${messageOf(err).slice(0, 300)} (this repeats on every retry)`,
        );
      } else errors.push(messageOf(err));
    }
  }
  if (fatal.length > 0) return { state: 'fatal', message: fatal.join('; ') };
  if (errors.length > 0) return { state: 'error', message: errors.join('; ') };
  if (waiting.length > 0) return { state: 'waiting', message: waiting.join('; ') };
  return { state: 'done' };
}
