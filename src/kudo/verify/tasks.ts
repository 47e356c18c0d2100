/**
 * Task and plan checks of `package verify`: every task must be one the engine can build
 * (KUDO's task.Build texts), plan steps must name defined tasks, unused tasks are warned
 * about, and a `deploy` plan must exist.
 */
import type { PipeSpec, Task } from '../api/index.ts';
import { PLAN_DEPLOY } from '../api/index.ts';
import type { Findings } from './findings.ts';
import type { VerifySubject } from './subject.ts';

const PIPE_KEY = /^[a-zA-Z0-9_-]+$/;

/** Go's `%v` of KUDO's PipeFile struct: `{file envFile kind key}`. */
function pipeText(p: PipeSpec): string {
  return `{${p.file ?? ''} ${p.envFile ?? ''} ${p.kind ?? ''} ${p.key ?? ''}}`;
}

/** Why the engine could not build `task`, in KUDO's words (empty when it can). */
export function taskBuildProblems(task: Task, needsOperatorVersion: boolean): string[] {
  const spec = task.spec ?? {};
  const resources = spec.resources ?? [];
  switch (task.kind) {
    case 'Apply':
    case 'Delete':
      return resources.length === 0
        ? [
            `task validation error: ${task.kind.toLowerCase()} task '${task.name}' has an empty resource list. if that's what you need, use a Dummy task instead`,
          ]
        : [];
    case 'Toggle': {
      const out: string[] = [];
      if (resources.length === 0) {
        out.push(
          "task validation error: toggle task has an empty resource list. if that's what you need, use a Dummy task instead",
        );
      }
      if (!spec.parameter)
        out.push('task validation error: Missing parameter to evaluate the Toggle Task');
      return out;
    }
    case 'Pipe': {
      const pipes = spec.pipe ?? [];
      if (pipes.length === 0)
        return ['task validation error: pipe task has an empty pipe files list'];
      const out: string[] = [];
      for (const p of pipes) {
        if (Boolean(p.file) === Boolean(p.envFile)) {
          out.push(
            `task validation error: pipe file ${pipeText(p)} must have either 'file' or 'envFile' field set but not both`,
          );
        } else if (p.kind !== 'Secret' && p.kind !== 'ConfigMap') {
          out.push(
            `task validation error: invalid pipe kind (must be Secret or ConfigMap): ${pipeText(p)}`,
          );
        } else if (!PIPE_KEY.test(p.key ?? '')) {
          out.push(
            `task validation error: invalid pipe key (only letters, numbers and _ and - are allowed): ${pipeText(p)}`,
          );
        }
      }
      return out;
    }
    case 'KudoOperator': {
      if (!spec.package) {
        return [
          `task validation error: kudo operator task '${task.name}' has an empty package name`,
        ];
      }
      if (needsOperatorVersion && !spec.operatorVersion) {
        return [
          `task validation error: kudo operator task '${task.name}' has an empty operatorVersion`,
        ];
      }
      return [];
    }
    case 'Dummy':
      return [];
    default:
      return [`unknown task kind ${task.kind}`];
  }
}

export function checkTasksAndPlans(s: VerifySubject, out: Findings): void {
  s.tasks.forEach((task, i) => {
    for (const problem of taskBuildProblems(task, s.kudoOperatorNeedsVersion)) {
      out.error(problem, s.field.task(i));
    }
  });

  const defined = new Set(s.tasks.map((t) => t.name));
  const used = new Set<string>();
  for (const [planName, plan] of Object.entries(s.plans)) {
    (plan.phases ?? []).forEach((phase, pi) => {
      (phase.steps ?? []).forEach((step, si) => {
        (step.tasks ?? []).forEach((name, ti) => {
          used.add(name);
          if (!defined.has(name)) {
            out.error(
              `task ${JSON.stringify(name)} in plan ${JSON.stringify(planName)} is not defined`,
              s.field.plan(planName, `phases[${pi}].steps[${si}].tasks[${ti}]`),
            );
          }
        });
      });
    });
  }
  s.tasks.forEach((task, i) => {
    if (!used.has(task.name))
      out.warning(`task ${JSON.stringify(task.name)} defined but not used`, s.field.task(i));
  });

  if (!Object.hasOwn(s.plans, PLAN_DEPLOY)) {
    out.error(`an operator is required to have '${PLAN_DEPLOY}' plan`, s.field.plan(PLAN_DEPLOY));
  }
}
