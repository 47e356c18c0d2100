/**
 * A Pipe task's spec, checked the way KUDO built the task (its texts, via the package
 * verifier's checks): at least one entry, each with exactly one of `file`/`envFile`, kind
 * ConfigMap or Secret, and a key of `[a-zA-Z0-9_-]`. Violations are fatal.
 */
import type { Task } from '../../api/index.ts';
import { taskBuildProblems } from '../../verify/index.ts';
import { FatalTaskError } from '../types.ts';

export interface PipeFile {
  /** Path in the pod (absolute). */
  readonly path: string;
  /** `file`: the whole file becomes one data key; `envFile`: one key per KEY=VALUE line. */
  readonly format: 'file' | 'envFile';
  readonly kind: 'ConfigMap' | 'Secret';
  readonly key: string;
}

export interface PipeTaskSpec {
  /** The pod template's name. */
  readonly pod: string;
  readonly files: readonly PipeFile[];
}

export function pipeTaskSpec(task: Task): PipeTaskSpec {
  const problems = taskBuildProblems(task, true);
  if (!task.spec?.pod) problems.push('task validation error: pipe task has no pod template');
  if (problems.length > 0) {
    throw new FatalTaskError(
      task.name,
      `cannot build the Pipe task: ${problems.join('; ')}; fix the task in the OperatorVersion`,
    );
  }
  return {
    pod: task.spec?.pod ?? '',
    files: (task.spec?.pipe ?? []).map((p) => ({
      path: p.file || p.envFile || '',
      format: p.file ? 'file' : 'envFile',
      kind: p.kind === 'Secret' ? 'Secret' : 'ConfigMap',
      key: p.key ?? '',
    })),
  };
}
