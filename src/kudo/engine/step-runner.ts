/** Runs the tasks of one step and folds their outcomes into a {@link StepOutcome}. */
import type { Phase, Step } from '../api/index.ts';
import { FatalTaskError, runTask, type TaskContext } from '../tasks/index.ts';
import type { StepOutcome } from './plan.ts';
import type { PassWaits } from './waits.ts';

/** What a step's tasks share: their TaskContext but for where they stand in the plan. */
export interface StepRunnerDeps extends Omit<TaskContext, 'at'> {
  readonly planName: string;
  /** The run's uid (annotated on every applied object). */
  readonly planUid: string;
  /** Told about every task that is not done, and whether a watch event ends its wait. */
  readonly passWaits?: PassWaits;
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
  const { planName, planUid, passWaits, ...shared } = deps;
  const ctx: TaskContext = {
    ...shared,
    at: { plan: planName, phase: phase.name ?? '', step: step.name ?? '', planUid },
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
      if (!outcome.done) {
        waiting.push(outcome.message ?? `task ${task.name} is not done`);
        passWaits?.wait(outcome.wakesOnChange === true);
      }
    } catch (err) {
      if (deps.signal.aborted) throw err;
      // A failed task is retried on the backoff timer.
      passWaits?.wait(false);
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
