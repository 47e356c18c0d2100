/**
 * The Instance admission decision, as a pure function: which plan a spec change schedules
 * (answered as a JSON patch of `spec.planExecution`), or why it is refused now — with field
 * causes, so `kubectl edit` reopens the editor with the user's edits under the reason.
 *
 * Rules (shared/spec/kudo.md): CREATE schedules deploy; an upgrade schedules the first of
 * upgrade/update/deploy; changed parameters schedule their one distinct trigger (default
 * update, else deploy); a user may request a plan directly; only the controller schedules
 * cleanup, and only while the Instance is being deleted; while a plan runs only the same plan
 * may be re-triggered (or the plan aborted); metadata-only changes always pass.
 *
 * @example
 * const decision = decide({ operation: 'UPDATE', instance, oldInstance, operatorVersion: ov,
 *   oldOperatorVersion: ov, user: { username: 'alice' }, dryRun: false },
 *   { validator, newUid: randomUUID, now: () => new Date(), controllerUsers: new Set() });
 */
import type { JsonPatchOperation, StatusCause } from '../../server/index.ts';
import { operatorVersionRef, runningPlan, type RunningPlan } from '../api/read.ts';
import {
  PLAN_CLEANUP,
  PLAN_DEPLOY,
  PLAN_UPDATE,
  PLAN_UPGRADE,
  type Instance,
  type OperatorVersion,
  type PlanExecution,
} from '../api/types.ts';
import { immutabilityProblems } from '../params/immutability.ts';
import type { ParameterProblem } from '../params/errors.ts';
import { operatorVersionLabel } from '../params/validator.ts';
import {
  abortCommand,
  describeRunning,
  instanceLabel,
  listPlans,
  runningCauses,
  wayOut,
} from './messages.ts';
import type { Decision, DecisionDeps, DecisionInput, Scheduled } from './types.ts';

const OPERATOR_VERSION_FIELD = 'spec.operatorVersion';
const PLAN_NAME_FIELD = 'spec.planExecution.planName';
const ABORT_FIELD = 'spec.planExecution.abort';

function deny(
  message: string,
  causes: readonly StatusCause[],
  warnings: readonly string[] = [],
): Decision {
  return { kind: 'deny', message, causes, warnings };
}

function allow(
  patch: readonly JsonPatchOperation[] = [],
  warnings: readonly string[] = [],
  scheduled?: Scheduled,
): Decision {
  return { kind: 'allow', patch, warnings, ...(scheduled ? { scheduled } : {}) };
}

function schedule(
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

function planNames(ov: OperatorVersion): string[] {
  return Object.keys(ov.spec?.plans ?? {});
}

function problemCauses(problems: readonly ParameterProblem[]): StatusCause[] {
  return problems.map((p) => ({ field: p.field, message: p.message, reason: p.reason }));
}

function invalidParameters(
  instance: Instance,
  ov: OperatorVersion,
  problems: readonly ParameterProblem[],
): Decision {
  const list = problems.map((p) => `${p.field}: ${p.message}`).join('; ');
  return deny(
    `Instance ${instanceLabel(instance)}: parameters do not fit OperatorVersion ${operatorVersionLabel(ov)}: ${list}. Fix the values and try again.`,
    problemCauses(problems),
  );
}

function missingReference(instance: Instance): Decision {
  return deny(
    `Instance ${instanceLabel(instance)}: spec.operatorVersion.name is required: name the OperatorVersion this Instance runs.`,
    [
      {
        field: `${OPERATOR_VERSION_FIELD}.name`,
        message: 'required',
        reason: 'FieldValueRequired',
      },
    ],
  );
}

function operatorVersionNotFound(instance: Instance): Decision {
  const ref = operatorVersionRef(instance);
  const where = `${ref?.namespace ?? ''}/${ref?.name ?? ''}`;
  return deny(
    `Instance ${instanceLabel(instance)}: OperatorVersion ${where} does not exist. Install the operator package (its OperatorVersion) first, or correct spec.operatorVersion.`,
    [
      {
        field: OPERATOR_VERSION_FIELD,
        message: `OperatorVersion ${where} not found; install the operator package first or correct spec.operatorVersion`,
        reason: 'FieldValueNotFound',
      },
    ],
  );
}

function changedNames(
  before: Readonly<Record<string, string>>,
  after: Readonly<Record<string, string>>,
): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((n) => before[n] !== after[n]).sort();
}

export function decide(input: DecisionInput, deps: DecisionDeps): Decision {
  return input.operation === 'CREATE' || !input.oldInstance
    ? decideCreate(input, deps)
    : decideUpdate(input, input.oldInstance, deps);
}

function decideCreate(input: DecisionInput, deps: DecisionDeps): Decision {
  const { instance, operatorVersion: ov } = input;
  if (!operatorVersionRef(instance)) return missingReference(instance);
  if (!ov) return operatorVersionNotFound(instance);
  const problems = deps.validator.validate(ov, instance.spec?.parameters ?? {});
  if (problems.length > 0) return invalidParameters(instance, ov, problems);
  const plans = planNames(ov);
  if (!plans.includes(PLAN_DEPLOY)) {
    return deny(
      `Instance ${instanceLabel(instance)}: OperatorVersion ${operatorVersionLabel(ov)} has no "deploy" plan, so an Instance of it cannot be installed (plans: ${listPlans(plans)}). Fix the package.`,
      [
        {
          field: OPERATOR_VERSION_FIELD,
          message: 'the OperatorVersion has no "deploy" plan',
          reason: 'FieldValueInvalid',
        },
      ],
    );
  }
  const requested = instance.spec?.planExecution?.planName;
  const warnings =
    requested && requested !== PLAN_DEPLOY
      ? [
          `spec.planExecution.planName "${requested}" was ignored: a new Instance always starts with plan "deploy"`,
        ]
      : [];
  return schedule(PLAN_DEPLOY, 'create', deps, warnings);
}

interface UpdateFacts {
  readonly instance: Instance;
  readonly old: Instance;
  readonly changed: readonly string[];
  readonly upgrade: boolean;
  /** A direct plan request: planName or uid differs from the stored one. '' = clearing. */
  readonly request: { readonly planName: string } | undefined;
  readonly running: RunningPlan | undefined;
}

function decideUpdate(input: DecisionInput, old: Instance, deps: DecisionDeps): Decision {
  const { instance } = input;
  const label = instanceLabel(instance);
  const newRef = operatorVersionRef(instance);
  if (!newRef) return missingReference(instance);
  const oldRef = operatorVersionRef(old);
  const upgrade = !oldRef || oldRef.namespace !== newRef.namespace || oldRef.name !== newRef.name;
  const changed = changedNames(old.spec?.parameters ?? {}, instance.spec?.parameters ?? {});
  const oldPe = old.spec?.planExecution;
  const newPe = instance.spec?.planExecution;
  // An Instance written without planExecution (kubectl replace, a server-side apply that
  // dropped the field) did not ask to clear it: the stored record is put back.
  const restore: JsonPatchOperation[] =
    newPe === undefined && oldPe !== undefined
      ? [{ op: 'add', path: '/spec/planExecution', value: oldPe }]
      : [];
  const request =
    newPe !== undefined &&
    ((newPe.planName ?? '') !== (oldPe?.planName ?? '') || (newPe.uid ?? '') !== (oldPe?.uid ?? ''))
      ? { planName: newPe.planName ?? '' }
      : undefined;
  const running = runningPlan(old);
  const facts: UpdateFacts = { instance, old, changed, upgrade, request, running };
  const deleting = Boolean(old.metadata.deletionTimestamp ?? instance.metadata.deletionTimestamp);
  const isController = deps.controllerUsers.has(input.user.username ?? '');

  // Abort: asked for now (it was not set before), and nothing else may change with it.
  if (newPe?.abort === true && oldPe?.abort !== true) return decideAbort(input, facts, deps);
  if (newPe !== undefined && oldPe?.abort === true && newPe.abort !== true && !request && running) {
    return deny(
      `Instance ${label}: the abort of ${describeRunning(running)} was accepted and cannot be withdrawn. ${wayOut(instance, running)}`,
      [
        {
          field: ABORT_FIELD,
          message: `an accepted abort cannot be withdrawn; the controller will mark plan "${running.planName}" ABORTED`,
          reason: 'FieldValueForbidden',
        },
      ],
    );
  }

  if (deleting) return decideWhileDeleting(facts, isController, restore, deps);

  if (request?.planName === PLAN_CLEANUP) {
    return deny(
      `Instance ${label}: plan "cleanup" is scheduled only by the Planwright controller when the Instance is deleted. To remove the Instance run: kubectl delete instance ${instance.metadata.name ?? ''} -n ${instance.metadata.namespace ?? ''}`,
      [
        {
          field: PLAN_NAME_FIELD,
          message: `only the controller schedules "cleanup", on deletion; to remove the Instance run: kubectl delete instance ${instance.metadata.name ?? ''} -n ${instance.metadata.namespace ?? ''}`,
          reason: 'FieldValueForbidden',
        },
      ],
    );
  }

  // Metadata-only or identical spec: nothing to schedule, and no OperatorVersion needed
  // (finalizers must come off even when the OperatorVersion is gone).
  if (!request && changed.length === 0 && !upgrade) return allow(restore);

  const ov = input.operatorVersion;
  if (!ov) return operatorVersionNotFound(instance);

  if (request && (upgrade || changed.length > 0)) {
    const what = upgrade
      ? 'an upgrade (spec.operatorVersion)'
      : `parameter changes (${changed.join(', ')})`;
    return deny(
      `Instance ${label}: plan "${request.planName}" was requested directly together with ${what}. Make them separate changes: first one, then the other once its plan is finished.`,
      [
        {
          field: PLAN_NAME_FIELD,
          message:
            'a directly requested plan must be the only change: make the other changes separately, once its plan is finished',
          reason: 'FieldValueForbidden',
        },
        ...(upgrade
          ? [
              {
                field: OPERATOR_VERSION_FIELD,
                message: 'cannot be combined with a plan request',
                reason: 'FieldValueForbidden',
              },
            ]
          : changed.map((n) => ({
              field: `spec.parameters.${n}`,
              message: 'cannot be combined with a plan request',
              reason: 'FieldValueForbidden',
            }))),
      ],
    );
  }

  if (request) return decideRequest(facts, request.planName, ov, deps);
  if (upgrade) return decideUpgrade(input, facts, ov, deps);
  return decideParameters(input, facts, ov, deps);
}

function decideAbort(input: DecisionInput, facts: UpdateFacts, deps: DecisionDeps): Decision {
  const { instance, old, running } = facts;
  const label = instanceLabel(instance);
  const cause = (message: string): StatusCause[] => [
    { field: ABORT_FIELD, message, reason: 'FieldValueForbidden' },
  ];
  if (facts.request || facts.upgrade || facts.changed.length > 0) {
    return deny(
      `Instance ${label}: an abort must be the only change; this request also changes ${[
        ...(facts.request ? ['spec.planExecution.planName/uid'] : []),
        ...(facts.upgrade ? ['spec.operatorVersion'] : []),
        ...facts.changed.map((n) => `spec.parameters.${n}`),
      ].join(
        ', ',
      )}. Abort first (${abortCommand(instance)}), then make the change once the plan is ABORTED.`,
      cause(
        'an abort must be the only change: abort first, then make the other changes once the plan is ABORTED',
      ),
    );
  }
  if (!running) {
    const pe = old.spec?.planExecution;
    const last = pe?.planName ? old.status?.planStatus?.[pe.planName]?.status : undefined;
    return deny(
      pe?.planName
        ? `Instance ${label}: nothing to abort: plan "${pe.planName}" is not running (${last ?? 'finished'}). Remove spec.planExecution.abort.`
        : `Instance ${label}: nothing to abort: no plan was scheduled. Remove spec.planExecution.abort.`,
      cause(
        pe?.planName
          ? `nothing to abort: plan "${pe.planName}" is not running (${last ?? 'finished'})`
          : 'nothing to abort: no plan was scheduled',
      ),
    );
  }
  if (running.planName === PLAN_CLEANUP) {
    return deny(
      `Instance ${label}: plan "cleanup" runs because the Instance is being deleted, and cannot be aborted: stopping it would leave objects behind. Wait for it (${`kubectl get instance ${instance.metadata.name ?? ''} -n ${instance.metadata.namespace ?? ''} -w`}).`,
      cause(
        'plan "cleanup" runs because the Instance is being deleted and cannot be aborted; wait for the deletion to finish',
      ),
    );
  }
  const by = input.user.username ?? 'unknown user';
  return allow(
    [
      { op: 'add', path: '/spec/planExecution/abortRequestedBy', value: by },
      {
        op: 'add',
        path: '/spec/planExecution/abortRequestedAt',
        value: deps
          .now()
          .toISOString()
          .replace(/\.\d{3}Z$/, 'Z'),
      },
    ],
    [
      `plan "${running.planName}" will be stopped and marked ABORTED by the controller; objects it already applied stay as they are. The next change is accepted once its status is ABORTED.`,
    ],
  );
}

function decideWhileDeleting(
  facts: UpdateFacts,
  isController: boolean,
  restore: readonly JsonPatchOperation[],
  deps: DecisionDeps,
): Decision {
  const { instance, request, running } = facts;
  const label = instanceLabel(instance);
  if (
    request?.planName === PLAN_CLEANUP &&
    isController &&
    !facts.upgrade &&
    facts.changed.length === 0
  ) {
    return schedule(PLAN_CLEANUP, 'cleanup', deps);
  }
  const causes: StatusCause[] = [
    ...(facts.upgrade
      ? [
          {
            field: OPERATOR_VERSION_FIELD,
            message: 'the Instance is being deleted; its spec can no longer change',
            reason: 'FieldValueForbidden',
          },
        ]
      : []),
    ...facts.changed.map((n) => ({
      field: `spec.parameters.${n}`,
      message: 'the Instance is being deleted; its spec can no longer change',
      reason: 'FieldValueForbidden',
    })),
    ...(request
      ? [
          {
            field: PLAN_NAME_FIELD,
            message:
              running?.planName === PLAN_CLEANUP
                ? 'plan "cleanup" runs and cannot be replaced or cleared'
                : 'the Instance is being deleted; no plan can start now (the controller runs "cleanup")',
            reason: 'FieldValueForbidden',
          },
        ]
      : []),
  ];
  if (causes.length === 0) return allow(restore);
  const now = running ? ` Now: ${describeRunning(running)}.` : '';
  return deny(
    `Instance ${label} is being deleted: its spec can no longer change and no plan other than "cleanup" (scheduled by the controller) can run.${now} Wait for the deletion to finish (kubectl get instance ${instance.metadata.name ?? ''} -n ${instance.metadata.namespace ?? ''} -w).`,
    causes,
  );
}

function decideRequest(
  facts: UpdateFacts,
  planName: string,
  ov: OperatorVersion,
  deps: DecisionDeps,
): Decision {
  const { instance, running } = facts;
  const label = instanceLabel(instance);
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
      `Instance ${label}: OperatorVersion ${operatorVersionLabel(ov)} has no plan "${planName}"; its plans are ${listPlans(plans)}.`,
      [
        {
          field: PLAN_NAME_FIELD,
          message: `unknown plan "${planName}"; the plans are ${listPlans(plans)}`,
          reason: 'FieldValueNotSupported',
        },
      ],
    );
  }
  return scheduleUnlessBlocked(
    facts,
    planName,
    'direct',
    [PLAN_NAME_FIELD],
    `cannot run plan "${planName}" (requested in spec.planExecution.planName) now`,
    deps,
  );
}

function decideUpgrade(
  input: DecisionInput,
  facts: UpdateFacts,
  ov: OperatorVersion,
  deps: DecisionDeps,
): Decision {
  const { instance, old, running } = facts;
  const label = instanceLabel(instance);
  const target = operatorVersionLabel(ov);
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
    ...deps.validator.validate(ov, newValues),
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

function decideParameters(
  input: DecisionInput,
  facts: UpdateFacts,
  ov: OperatorVersion,
  deps: DecisionDeps,
): Decision {
  const { instance, old, changed } = facts;
  const label = instanceLabel(instance);
  const newValues = instance.spec?.parameters ?? {};
  const problems = [
    ...deps.validator.validate(ov, newValues, new Set(changed)),
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
      `Instance ${label}: OperatorVersion ${operatorVersionLabel(ov)} makes ${unknown.map(([n, p]) => `${n} trigger plan "${p}"`).join(', ')}, which it does not define (plans: ${listPlans(plans)}). This is a fault in the package; report it to its maintainers.`,
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
  return scheduleUnlessBlocked(
    facts,
    plan,
    'parameters',
    changed.map((n) => `spec.parameters.${n}`),
    `cannot accept this change now: changing ${changed.map((n) => `spec.parameters.${n}`).join(', ')} would schedule plan "${plan}"`,
    deps,
  );
}

/** Schedules `plan` unless a different plan runs; re-triggering the running plan restarts it. */
function scheduleUnlessBlocked(
  facts: UpdateFacts,
  plan: string,
  reason: Scheduled['reason'],
  fields: readonly string[],
  /** The lead of the denial: what was asked and that it cannot happen now. */
  lead: string,
  deps: DecisionDeps,
): Decision {
  const { instance, running } = facts;
  if (!running) return schedule(plan, reason, deps);
  if (running.planName !== plan) {
    return deny(
      `Instance ${instanceLabel(instance)}: ${lead}, because ${describeRunning(running)} is running. ${wayOut(instance, running)}`,
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
