/**
 * `.Pipes` for one run of a plan: computed before any step runs, from every Pipe task the
 * plan's steps name (so steps before the Pipe task can reference its artifacts too). A key
 * used twice in the plan fails the plan (KUDO left it PENDING and retried forever).
 */
import type { Instance, OperatorVersion, Plan } from '../api/index.ts';
import { DuplicatePipeKeyError, planPipes } from '../package/index.ts';

export type PlanPipes =
  | { readonly ok: true; readonly pipes: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly message: string };

export function pipesOfPlan(
  planName: string,
  plan: Plan,
  ov: OperatorVersion,
  instance: Instance,
): PlanPipes {
  try {
    const map = planPipes(planName, plan, ov.spec?.tasks ?? [], {
      instance: instance.metadata.name ?? '',
    });
    const pipes = Object.create(null) as Record<string, string>;
    for (const [key, name] of map) pipes[key] = name;
    return { ok: true, pipes };
  } catch (err) {
    if (!(err instanceof DuplicatePipeKeyError)) throw err;
    return {
      ok: false,
      message: `could not make task pipes: duplicated pipe key ${err.key}: plan ${planName} has two Pipe task entries with that key (in one task, or one task used in two steps); give each file its own key in OperatorVersion ${ov.metadata.name ?? ''}`,
    };
  }
}
