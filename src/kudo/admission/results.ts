/** Building blocks of admission decisions: result constructors and the common denials. */
import {
  ADMISSION_BOUNDS,
  clip,
  type JsonPatchOperation,
  type StatusCause,
} from '../../server/index.ts';
import {
  operatorVersionRef,
  type Instance,
  type OperatorVersion,
  type PlanExecution,
} from '../api/index.ts';
import type { ParameterProblem } from '../params/index.ts';
import type { Decision, DecisionDeps, Scheduled } from './types.ts';
import { namespacedName } from '../../kube/index.ts';

export const OPERATOR_VERSION_FIELD = 'spec.operatorVersion';
export const PLAN_NAME_FIELD = 'spec.planExecution.planName';
export const ABORT_FIELD = 'spec.planExecution.abort';
export const KUBECONFIG_FIELD = 'spec.kubeConfig';

export function deny(
  message: string,
  causes: readonly StatusCause[],
  warnings: readonly string[] = [],
): Decision {
  return { kind: 'deny', message, causes, warnings };
}

export function allow(
  patch: readonly JsonPatchOperation[] = [],
  warnings: readonly string[] = [],
  scheduled?: Scheduled,
): Decision {
  return { kind: 'allow', patch, warnings, scheduled };
}

export function schedule(
  planName: string,
  reason: Scheduled['reason'],
  deps: DecisionDeps,
  warnings: readonly string[] = [],
): Decision {
  const uid = deps.newUid();
  // `add` on an existing member replaces it: the whole planExecution is rewritten, which
  // also drops a previous run's abort fields.
  const value: PlanExecution = { planName, uid };
  return allow([{ op: 'add', path: '/spec/planExecution', value }], warnings, {
    planName,
    uid,
    reason,
  });
}

export function planNames(ov: OperatorVersion): string[] {
  return Object.keys(ov.spec?.plans ?? {});
}

export function problemCauses(problems: readonly ParameterProblem[]): StatusCause[] {
  return problems.map((p) => ({ field: p.field, message: p.message, reason: p.reason }));
}

/** Problems a denial's message spells out. */
const MESSAGE_PROBLEMS = 10;

export function invalidParameters(
  instance: Instance,
  ov: OperatorVersion,
  problems: readonly ParameterProblem[],
): Decision {
  // The causes carry every problem (the server bounds them); the message names the first few.
  const shown = problems
    .slice(0, MESSAGE_PROBLEMS)
    .map((p) => clip(`${p.field}: ${p.message}`, ADMISSION_BOUNDS.causeChars));
  if (problems.length > MESSAGE_PROBLEMS) {
    shown.push(`and ${problems.length - MESSAGE_PROBLEMS} more`);
  }
  const list = shown.join('; ');
  return deny(
    `Instance ${namespacedName(instance.metadata)}: parameters do not fit OperatorVersion ${namespacedName(ov.metadata)}: ${list}. Fix the values and try again.`,
    problemCauses(problems),
  );
}

export function missingReference(instance: Instance): Decision {
  return deny(
    `Instance ${namespacedName(instance.metadata)}: spec.operatorVersion.name is required: name the OperatorVersion this Instance runs.`,
    [
      {
        field: `${OPERATOR_VERSION_FIELD}.name`,
        message: 'required',
        reason: 'FieldValueRequired',
      },
    ],
  );
}

export function operatorVersionNotFound(instance: Instance): Decision {
  const ref = operatorVersionRef(instance);
  const where = namespacedName(ref);
  return deny(
    `Instance ${namespacedName(instance.metadata)}: OperatorVersion ${where} does not exist. Install the operator package (its OperatorVersion) first, or correct spec.operatorVersion.`,
    [
      {
        field: OPERATOR_VERSION_FIELD,
        message: `OperatorVersion ${where} not found; install the operator package first or correct spec.operatorVersion`,
        reason: 'FieldValueNotFound',
      },
    ],
  );
}

export function changedNames(
  before: Readonly<Record<string, string>>,
  after: Readonly<Record<string, string>>,
): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  // Own keys only: a parameter may be called `constructor` or `toString`.
  const get = (m: Readonly<Record<string, string>>, n: string): string | undefined =>
    Object.hasOwn(m, n) ? m[n] : undefined;
  return [...names].filter((n) => get(before, n) !== get(after, n)).sort();
}
