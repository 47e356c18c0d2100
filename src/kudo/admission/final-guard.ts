/**
 * The validating webhook's rule for Instances, as a pure function: the object as it will be
 * stored — after every mutating webhook of every product — must be explained by the plan
 * scheduling rules. The mutating webhook (`decide`) records which plan a change schedules in
 * `spec.planExecution`; a mutating webhook that runs after it, or a client that edits
 * `spec.planExecution` itself, can produce an object whose spec changed while a plan runs, or
 * whose record names another plan than the change schedules. Those are refused here with the
 * same 422 causes `decide` gives, so nothing slips past the running-plan rule.
 *
 * How: `decide` is asked twice. First about the spec changes alone (the stored
 * `planExecution` put back): its denial is the answer, and a plan it schedules must be the
 * one the object records, as a new run. Then, when the spec changes schedule nothing, about
 * the object as it is: a direct plan request, an abort or the controller's `cleanup` are
 * judged by the same rules as in the mutating webhook.
 *
 * See examples/api/kudo.ts.
 */
import { jsonEqual, PLAN_DEPLOY, type Instance, type PlanExecution } from '../api/index.ts';
import { decide } from './decide.ts';
import { PLAN_NAME_FIELD, allow, deny } from './results.ts';
import type { Decision, DecisionDeps, DecisionInput } from './types.ts';
import { namespacedName } from '../../kube/index.ts';

const PLAN_EXECUTION_FIELD = 'spec.planExecution';

/** The run an object records: planName and uid (both '' when absent). */
function recorded(instance: Instance | undefined): { planName: string; uid: string } {
  const pe = instance?.spec?.planExecution;
  return { planName: pe?.planName ?? '', uid: pe?.uid ?? '' };
}

/** `instance` with `spec.planExecution` as in `old` (absent when `old` has none). */
function withStoredRecord(instance: Instance, old: Instance): Instance {
  const spec = { ...(instance.spec ?? {}) };
  const stored: PlanExecution | undefined = old.spec?.planExecution;
  if (stored === undefined) delete spec.planExecution;
  else spec.planExecution = stored;
  return { ...instance, spec };
}

/** Where a change came from that no scheduling explains, and what to do about it. */
function unexplained(instance: Instance, what: string, wanted: string): Decision {
  const label = namespacedName(instance.metadata);
  return deny(
    `Instance ${label}: ${what}, but ${wanted}. The Instance was changed after Planwright's mutating webhook decided which plan runs — by another mutating webhook on instances.kudo.dev, or by a client that edits spec.planExecution itself. Make the change again without editing spec.planExecution, and check the other mutating webhooks (kubectl get mutatingwebhookconfigurations).`,
    [
      {
        field: PLAN_NAME_FIELD,
        message: `${what}, but ${wanted}; the change did not go through Planwright's plan scheduling`,
        reason: 'FieldValueInvalid',
      },
    ],
  );
}

function describeRecord(r: { planName: string; uid: string }): string {
  return r.planName
    ? `spec.planExecution records plan "${r.planName}"${r.uid ? ` (run ${r.uid})` : ' without a run uid'}`
    : 'spec.planExecution records no plan';
}

export function finalGuard(input: DecisionInput, deps: DecisionDeps): Decision {
  const { instance } = input;
  const old = input.operation === 'UPDATE' ? input.oldInstance : undefined;
  const now = recorded(instance);

  if (!old) {
    const created = decide(input, deps);
    if (created.kind === 'deny') return created;
    if (now.planName !== PLAN_DEPLOY || now.uid === '') {
      return unexplained(
        instance,
        `a new Instance must start with plan "${PLAN_DEPLOY}" and ${describeRecord(now)}`,
        'Planwright records plan "deploy" with a new run uid on every create',
      );
    }
    return allow();
  }

  // Metadata, finalizers, labels: nothing to schedule, nothing to check.
  if (jsonEqual(instance.spec ?? {}, old.spec ?? {})) return allow();

  const before = recorded(old);
  const changes = decide({ ...input, instance: withStoredRecord(instance, old) }, deps);
  if (changes.kind === 'deny') return changes;
  if (changes.scheduled) {
    const plan = changes.scheduled.planName;
    if (now.planName !== plan || now.uid === '' || now.uid === before.uid) {
      return unexplained(
        instance,
        `this change schedules plan "${plan}" as a new run`,
        `${describeRecord(now)}${now.uid !== '' && now.uid === before.uid ? ', the run that was already recorded' : ''}`,
      );
    }
    return allow();
  }

  // The spec changes alone schedule nothing: what changed is spec.planExecution itself (a
  // plan request, an abort, cleanup by the controller), judged as the mutating webhook does.
  const direct = decide(input, deps);
  if (direct.kind === 'deny') return direct;
  if (instance.spec?.planExecution === undefined && old.spec?.planExecution !== undefined) {
    // The mutating webhook puts a dropped record back; here it would be lost for good.
    return deny(
      `Instance ${namespacedName(instance.metadata)}: this change would remove spec.planExecution (${describeRecord(before)}), the record of which plan runs. Planwright's mutating webhook keeps it; it did not run for this change, or another mutating webhook removed the field after it. Write the Instance again with spec.planExecution as stored.`,
      [
        {
          field: PLAN_EXECUTION_FIELD,
          message: `would be removed; it records ${before.planName ? `plan "${before.planName}"` : 'the last plan run'} and must be kept`,
          reason: 'FieldValueRequired',
        },
      ],
    );
  }
  if (direct.scheduled && (now.planName !== direct.scheduled.planName || now.uid === '')) {
    return unexplained(
      instance,
      `plan "${direct.scheduled.planName}" was requested`,
      describeRecord(now),
    );
  }
  return allow();
}
