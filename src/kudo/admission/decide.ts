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
 * See examples/api/kudo.ts.
 */
import type { JsonPatchOperation } from '../../server/index.ts';
import {
  hasCleanupPlan,
  operatorVersionRef,
  runningPlan,
  CLEANUP_FINALIZER,
  PLAN_CLEANUP,
  PLAN_DEPLOY,
  type Instance,
  type NamespacedName,
  type RunningPlan,
} from '../api/index.ts';
import { describeRunning, listPlans, wayOut } from './messages.ts';
import type { Decision, DecisionDeps, DecisionInput, UpdateFacts } from './types.ts';
import {
  ABORT_FIELD,
  KUBECONFIG_FIELD,
  OPERATOR_VERSION_FIELD,
  PLAN_NAME_FIELD,
  allow,
  changedNames,
  deny,
  invalidParameters,
  missingReference,
  operatorVersionNotFound,
  planNames,
  schedule,
} from './results.ts';
import { decideAbort } from './abort.ts';
import { decideWhileDeleting } from './deletion.ts';
import { decideParameters, decideRequest, decideUpgrade } from './plans.ts';
import { namespacedName } from '../../kube/index.ts';

export function decide(input: DecisionInput, deps: DecisionDeps): Decision {
  const decision =
    input.operation === 'CREATE' || !input.oldInstance
      ? decideCreate(input, deps)
      : decideUpdate(input, input.oldInstance, deps);
  return withCleanupFinalizer(decision, input);
}

function decideCreate(input: DecisionInput, deps: DecisionDeps): Decision {
  const { instance, operatorVersion: ov } = input;
  if (!operatorVersionRef(instance)) return missingReference(instance);
  if (!ov) return operatorVersionNotFound(instance);
  const problems = deps.validator.validate(
    ov,
    instance.spec?.parameters ?? {},
    undefined,
    input.decoded,
  );
  if (problems.length > 0) return invalidParameters(instance, ov, problems);
  const plans = planNames(ov);
  if (!plans.includes(PLAN_DEPLOY)) {
    return deny(
      `Instance ${namespacedName(instance.metadata)}: OperatorVersion ${namespacedName(ov.metadata)} has no "deploy" plan, so an Instance of it cannot be installed (plans: ${listPlans(plans)}). Fix the package.`,
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

/**
 * An Instance whose OperatorVersion has a `cleanup` plan carries the cleanup finalizer from
 * the moment it is created, as KUDO's webhook adds it: deleting it runs the cleanup plan even
 * when it is deleted before the controller first looks at it (or while no manager runs). The
 * finalizer is kept on every later write while the Instance is not being deleted: a repeated
 * server-side apply whose configuration never named it drops it (the applier owns what the
 * webhook added for it), and an upgrade to an OperatorVersion with a cleanup plan needs it.
 * Instances without one get none here: the controller adds it only when they record objects
 * the garbage collector does not remove (engine/finalizer.ts).
 */
function withCleanupFinalizer(decision: Decision, input: DecisionInput): Decision {
  const { instance, operatorVersion: ov } = input;
  if (decision.kind !== 'allow' || instance.metadata.deletionTimestamp) return decision;
  if (!hasCleanupPlan(ov)) return decision;
  const finalizers = instance.metadata.finalizers;
  if (finalizers?.includes(CLEANUP_FINALIZER)) return decision;
  const add: JsonPatchOperation =
    finalizers === undefined
      ? { op: 'add', path: '/metadata/finalizers', value: [CLEANUP_FINALIZER] }
      : { op: 'add', path: '/metadata/finalizers/-', value: CLEANUP_FINALIZER };
  return { ...decision, patch: [...decision.patch, add] };
}

/** spec.kubeConfig is fixed at creation: the inventory and cleanup depend on the cluster. */
function decideTargetUnchanged(instance: Instance, old: Instance): Decision | undefined {
  const was = JSON.stringify(old.spec?.kubeConfig ?? null);
  const now = JSON.stringify(instance.spec?.kubeConfig ?? null);
  if (was === now) return undefined;
  const describe = (v: string): string => (v === 'null' ? 'not set (this cluster)' : v);
  return deny(
    `Instance ${namespacedName(instance.metadata)}: spec.kubeConfig cannot be changed after creation (it was ${describe(was)}, the change makes it ${describe(now)}). An Instance keeps the cluster it was created for: delete it and create it again to move it; to give Planwright new credentials for the same cluster, update the Secret instead.`,
    [
      {
        field: KUBECONFIG_FIELD,
        message:
          'immutable after creation: delete and re-create the Instance to move it to another cluster, or update the Secret to rotate its credentials',
        reason: 'FieldValueForbidden',
      },
    ],
  );
}

/** What an update changes: the spec's parameters, its OperatorVersion, a direct plan request. */
function updateFacts(instance: Instance, old: Instance, newRef: NamespacedName): UpdateFacts {
  const oldRef = operatorVersionRef(old);
  const upgrade = !oldRef || oldRef.namespace !== newRef.namespace || oldRef.name !== newRef.name;
  const changed = changedNames(old.spec?.parameters ?? {}, instance.spec?.parameters ?? {});
  const oldPe = old.spec?.planExecution;
  const newPe = instance.spec?.planExecution;
  const request =
    newPe !== undefined &&
    ((newPe.planName ?? '') !== (oldPe?.planName ?? '') || (newPe.uid ?? '') !== (oldPe?.uid ?? ''))
      ? { planName: newPe.planName ?? '' }
      : undefined;
  return { instance, old, changed, upgrade, request, running: runningPlan(old) };
}

/**
 * An Instance written without planExecution (kubectl replace, a server-side apply that
 * dropped the field) did not ask to clear it: the stored record is put back.
 */
function restoredPlanExecution(instance: Instance, old: Instance): JsonPatchOperation[] {
  const oldPe = old.spec?.planExecution;
  return instance.spec?.planExecution === undefined && oldPe !== undefined
    ? [{ op: 'add', path: '/spec/planExecution', value: oldPe }]
    : [];
}

/** An abort the webhook accepted stays: the controller is ending the plan. */
function refuseAbortWithdrawal(instance: Instance, running: RunningPlan): Decision {
  return deny(
    `Instance ${namespacedName(instance.metadata)}: the abort of ${describeRunning(running)} was accepted and cannot be withdrawn. ${wayOut(instance, running)}`,
    [
      {
        field: ABORT_FIELD,
        message: `an accepted abort cannot be withdrawn; the controller will mark plan "${running.planName}" ABORTED`,
        reason: 'FieldValueForbidden',
      },
    ],
  );
}

/** Only the controller schedules cleanup, on deletion. */
function refuseCleanupRequest(instance: Instance): Decision {
  return deny(
    `Instance ${namespacedName(instance.metadata)}: plan "cleanup" is scheduled only by the Planwright controller when the Instance is deleted. To remove the Instance run: kubectl delete instance ${instance.metadata.name ?? ''} -n ${instance.metadata.namespace ?? ''}`,
    [
      {
        field: PLAN_NAME_FIELD,
        message: `only the controller schedules "cleanup", on deletion; to remove the Instance run: kubectl delete instance ${instance.metadata.name ?? ''} -n ${instance.metadata.namespace ?? ''}`,
        reason: 'FieldValueForbidden',
      },
    ],
  );
}

/** A directly requested plan must be the only change: an upgrade or parameters wait for it. */
function refuseCombinedRequest(facts: UpdateFacts, planName: string): Decision {
  const { instance, upgrade, changed } = facts;
  const what = upgrade
    ? 'an upgrade (spec.operatorVersion)'
    : `parameter changes (${changed.join(', ')})`;
  return deny(
    `Instance ${namespacedName(instance.metadata)}: plan "${planName}" was requested directly together with ${what}. Make them separate changes: first one, then the other once its plan is finished.`,
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

function decideUpdate(input: DecisionInput, old: Instance, deps: DecisionDeps): Decision {
  const { instance } = input;
  const target = decideTargetUnchanged(instance, old);
  if (target) return target;
  const newRef = operatorVersionRef(instance);
  if (!newRef) return missingReference(instance);
  const facts = updateFacts(instance, old, newRef);
  const { changed, upgrade, request, running } = facts;
  const restore = restoredPlanExecution(instance, old);
  const oldPe = old.spec?.planExecution;
  const newPe = instance.spec?.planExecution;
  const deleting = Boolean(old.metadata.deletionTimestamp ?? instance.metadata.deletionTimestamp);
  const isController = deps.controllerUsers.has(input.user.username ?? '');

  // Abort: asked for now (it was not set before), and nothing else may change with it.
  if (newPe?.abort === true && oldPe?.abort !== true) return decideAbort(input, facts, deps);
  if (newPe !== undefined && oldPe?.abort === true && newPe.abort !== true && !request && running) {
    return refuseAbortWithdrawal(instance, running);
  }

  if (deleting) return decideWhileDeleting(facts, isController, restore, deps);

  if (request?.planName === PLAN_CLEANUP) return refuseCleanupRequest(instance);

  // Metadata-only or identical spec: nothing to schedule, and no OperatorVersion needed
  // (finalizers must come off even when the OperatorVersion is gone).
  if (!request && changed.length === 0 && !upgrade) return allow(restore);

  const ov = input.operatorVersion;
  if (!ov) return operatorVersionNotFound(instance);

  if (request && (upgrade || changed.length > 0)) {
    return refuseCombinedRequest(facts, request.planName);
  }

  if (request) return decideRequest(facts, request.planName, ov, deps);
  if (upgrade) return decideUpgrade(input, facts, ov, deps);
  return decideParameters(input, facts, ov, deps);
}
