/**
 * Pipe task naming (deterministic, no UID): `sanitize(x)` lower-cases and drops everything
 * outside [a-z0-9]; the pod is `instance.plan.phase.step.task.pipepod`, each artifact the same
 * five parts then `.key`. `.Pipes` maps each pipe key of a plan to its artifact name.
 */
import type { Plan, Task } from '../api/index.ts';

export function sanitizePipeName(part: string): string {
  return part.toLowerCase().replace(/[^a-z0-9]/g, '');
}

export interface PipeCoordinates {
  readonly instance: string;
  readonly plan: string;
  readonly phase: string;
  readonly step: string;
  readonly task: string;
}

function prefix(at: PipeCoordinates): string {
  return [at.instance, at.plan, at.phase, at.step, at.task].map(sanitizePipeName).join('.');
}

export function pipePodName(at: PipeCoordinates): string {
  return `${prefix(at)}.pipepod`;
}

export function pipeArtifactName(at: PipeCoordinates, key: string): string {
  return `${prefix(at)}.${sanitizePipeName(key)}`;
}

/** The same key twice in one plan. */
export class DuplicatePipeKeyError extends Error {
  override readonly name = 'DuplicatePipeKeyError';
  constructor(
    readonly key: string,
    readonly plan: string,
  ) {
    super(`duplicated pipe key ${key} in plan ${plan}`);
  }
}

/**
 * `.Pipes` for one plan: every pipe key of its Pipe tasks → artifact name. A key seen twice
 * throws {@link DuplicatePipeKeyError}, unless `onDuplicate` is given: then it is called and
 * the first name is kept (the verifier reports and goes on).
 */
export function planPipes(
  planName: string,
  plan: Plan,
  tasks: readonly Task[],
  of: {
    /** The Instance's name (part of each artifact's name; '' when verifying a package). */
    readonly instance: string;
    readonly onDuplicate?: (error: DuplicatePipeKeyError) => void;
  },
): Map<string, string> {
  const { instance, onDuplicate } = of;
  const byName = new Map(tasks.map((t) => [t.name, t]));
  const pipes = new Map<string, string>();
  for (const phase of plan.phases ?? []) {
    for (const step of phase.steps ?? []) {
      for (const taskName of step.tasks ?? []) {
        const task = byName.get(taskName);
        if (task?.kind !== 'Pipe') continue;
        const at = {
          instance,
          plan: planName,
          phase: phase.name ?? '',
          step: step.name ?? '',
          task: taskName,
        };
        for (const pipe of task.spec?.pipe ?? []) {
          const key = pipe.key ?? '';
          if (pipes.has(key)) {
            const error = new DuplicatePipeKeyError(key, planName);
            if (!onDuplicate) throw error;
            onDuplicate(error);
            continue;
          }
          pipes.set(key, pipeArtifactName(at, key));
        }
      }
    }
  }
  return pipes;
}
