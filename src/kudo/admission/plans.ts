/**
 * Which plan a spec change schedules (direct request, upgrade, parameter triggers), and the
 * running-plan rule: only the same plan may be re-triggered while one runs.
 */
import { PLAN_DEPLOY, PLAN_UPDATE, PLAN_UPGRADE, type OperatorVersion } from '../api/index.ts';
import { immutabilityProblems } from '../params/index.ts';
import { describeRunning, listPlans, runningCauses, wayOut } from './messages.ts';
import type { Decision, DecisionDeps, DecisionInput, Scheduled, UpdateFacts } from './types.ts';
import {
  OPERATOR_VERSION_FIELD,
  PLAN_NAME_FIELD,
  allow,
  deny,
  invalidParameters,
  planNames,
  schedule,
} from './results.ts';
import { namespacedName } from '../../kube/index.ts';

export function decideRequest(
  facts: UpdateFacts,
  planName: string,
  ov: OperatorVersion,
  deps: DecisionDeps,
): Decision {
  const { instance, running } = facts;
  const label = namespacedName(instance.metadata);
  if (planName === '') {
    if (!running) return allow();
    return deny(
      `Instance ${label}: cannot clear spec.planExecution: ${describeRunning(running)} is running. ${wayOut(instance, running)}`,
      runningCauses(instance, running, [PLAN_NAME_FIELD], 'the scheduled plan cannot be cleared'),
    );
  }
  const plans = planNames(ov);
  if (!plans.includes(planName)) {
    return deny(
      `Instance ${label}: OperatorVersion ${namespacedName(ov.metadata)} has no plan "${planName}"; its plans are ${listPlans(plans)}.`,
      [
        {
          field: PLAN_NAME_FIELD,
          message: `unknown plan "${planName}"; the plans are ${listPlans(plans)}`,
          reason: 'FieldValueNotSupported',
        },
      ],
    );
  }
  return scheduleUnlessBlocked(facts, deps, {
    plan: planName,
    reason: 'direct',
    fields: [PLAN_NAME_FIELD],
    lead: `cannot run plan "${planName}" (requested in spec.planExecution.planName) now`,
  });
}

export function decideUpgrade(
  input: DecisionInput,
  facts: UpdateFacts,
  ov: OperatorVersion,
  deps: DecisionDeps,
): Decision {
  const { instance, old, running } = facts;
  const label = namespacedName(instance.metadata);
  const target = namespacedName(ov.metadata);
  if (running) {
    return deny(
      `Instance ${label}: cannot upgrade to OperatorVersion ${target} now: ${describeRunning(running)} is running. ${wayOut(instance, running)}`,
      runningCauses(
        instance,
        running,
        [OPERATOR_VERSION_FIELD],
        `the upgrade to ${target} cannot start`,
      ),
    );
  }
  const oldOv = input.oldOperatorVersion;
  const from = oldOv?.spec?.operator?.name;
  const to = ov.spec?.operator?.name;
  if (from && to && from !== to) {
    return deny(
      `Instance ${label}: OperatorVersion ${target} belongs to operator "${to}", but the Instance runs operator "${from}". Upgrade to a version of "${from}", or install "${to}" as a new Instance.`,
      [
        {
          field: OPERATOR_VERSION_FIELD,
          message: `a version of operator "${to}", not "${from}"`,
          reason: 'FieldValueInvalid',
        },
      ],
    );
  }
  const plans = planNames(ov);
  const plan = [PLAN_UPGRADE, PLAN_UPDATE, PLAN_DEPLOY].find((p) => plans.includes(p));
  if (!plan) {
    return deny(
      `Instance ${label}: OperatorVersion ${target} has none of the plans "upgrade", "update" or "deploy", so nothing can run the upgrade (plans: ${listPlans(plans)}). Fix the package.`,
      [
        {
          field: OPERATOR_VERSION_FIELD,
          message: 'the OperatorVersion has no upgrade, update or deploy plan',
          reason: 'FieldValueInvalid',
        },
      ],
    );
  }
  const newValues = instance.spec?.parameters ?? {};
  const problems = [
    ...deps.validator.validate(ov, newValues, undefined, input.decoded),
    ...immutabilityProblems({
      oldValues: old.spec?.parameters ?? {},
      newValues,
      oldOperatorVersion: oldOv,
      newOperatorVersion: ov,
      upgrade: true,
    }),
  ];
  if (problems.length > 0) return invalidParameters(instance, ov, problems);
  const warnings: string[] = [];
  if (!oldOv) {
    warnings.push(
      'the previous OperatorVersion no longer exists; immutable parameters were checked against explicit values only',
    );
  }
  if (facts.changed.length > 0) {
    warnings.push(
      `parameters ${facts.changed.join(', ')} changed together with the upgrade: plan "${plan}" applies them; their own trigger plans do not run`,
    );
  }
  return schedule(plan, 'upgrade', deps, warnings);
}

export function decideParameters(
  input: DecisionInput,
  facts: UpdateFacts,
  ov: OperatorVersion,
  deps: DecisionDeps,
): Decision {
  const { instance, old, changed } = facts;
  const label = namespacedName(instance.metadata);
  const newValues = instance.spec?.parameters ?? {};
  const problems = [
    ...deps.validator.validate(ov, newValues, new Set(changed), input.decoded),
    ...immutabilityProblems({
      oldValues: old.spec?.parameters ?? {},
      newValues,
      oldOperatorVersion: input.oldOperatorVersion ?? ov,
      newOperatorVersion: ov,
      upgrade: false,
    }),
  ];
  if (problems.length > 0) return invalidParameters(instance, ov, problems);

  const plans = planNames(ov);
  const fallback = plans.includes(PLAN_UPDATE) ? PLAN_UPDATE : PLAN_DEPLOY;
  const definitions = new Map((ov.spec?.parameters ?? []).map((p) => [p.name, p]));
  const triggers = new Map<string, string>();
  for (const name of changed) {
    // A removed parameter the OperatorVersion no longer defines triggers the default plan.
    triggers.set(name, definitions.get(name)?.trigger || fallback);
  }
  const unknown = [...triggers].filter(([, plan]) => !plans.includes(plan));
  if (unknown.length > 0) {
    return deny(
      `Instance ${label}: OperatorVersion ${namespacedName(ov.metadata)} makes ${unknown.map(([n, p]) => `${n} trigger plan "${p}"`).join(', ')}, which it does not define (plans: ${listPlans(plans)}). This is a fault in the package; report it to its maintainers.`,
      unknown.map(([n, p]) => ({
        field: `spec.parameters.${n}`,
        message: `triggers plan "${p}", which does not exist`,
        reason: 'FieldValueInvalid',
      })),
    );
  }
  const distinct = [...new Set(triggers.values())];
  if (distinct.length > 1) {
    return deny(
      `Instance ${label}: the changed parameters trigger different plans at once (${[...triggers].map(([n, p]) => `${n} → "${p}"`).join(', ')}), and only one plan can run at a time. Change them in separate steps, one plan at a time.`,
      [...triggers].map(([n, p]) => ({
        field: `spec.parameters.${n}`,
        message: `triggers plan "${p}"; other changed parameters trigger ${listPlans(distinct.filter((d) => d !== p))}`,
        reason: 'FieldValueForbidden',
      })),
    );
  }
  const plan = distinct[0] ?? fallback;
  return scheduleUnlessBlocked(facts, deps, {
    plan,
    reason: 'parameters',
    fields: changed.map((n) => `spec.parameters.${n}`),
    lead: `cannot accept this change now: changing ${changed.map((n) => `spec.parameters.${n}`).join(', ')} would schedule plan "${plan}"`,
  });
}

/** Schedules `plan` unless a different plan runs; re-triggering the running plan restarts it. */
export function scheduleUnlessBlocked(
  facts: UpdateFacts,
  deps: DecisionDeps,
  request: {
    readonly plan: string;
    readonly reason: Scheduled['reason'];
    /** The fields whose change asks for the plan. */
    readonly fields: readonly string[];
    /** The lead of the denial: what was asked and that it cannot happen now. */
    readonly lead: string;
  },
): Decision {
  const { plan, reason, fields, lead } = request;
  const { instance, running } = facts;
  if (!running) return schedule(plan, reason, deps);
  if (running.planName !== plan) {
    return deny(
      `Instance ${namespacedName(instance.metadata)}: ${lead}, because ${describeRunning(running)} is running. ${wayOut(instance, running)}`,
      runningCauses(instance, running, fields, `this change would schedule plan "${plan}"`),
    );
  }
  const where = [
    running.phase && `phase "${running.phase}"`,
    running.step && `step "${running.step}"`,
  ]
    .filter(Boolean)
    .join(', ');
  return schedule(plan, reason, deps, [
    `plan "${plan}" was ${running.status}${where ? ` at ${where}` : ''}; it restarts from the beginning as a new run`,
  ]);
}
