/**
 * An Instance being deleted: its spec is frozen, except that the controller schedules
 * `cleanup`, which nobody can replace, clear or abort.
 */
import type { JsonPatchOperation, StatusCause } from '../../server/index.ts';
import { PLAN_CLEANUP } from '../api/index.ts';
import { describeRunning } from './messages.ts';
import type { Decision, DecisionDeps, UpdateFacts } from './types.ts';
import { OPERATOR_VERSION_FIELD, PLAN_NAME_FIELD, allow, deny, schedule } from './results.ts';
import { namespacedName } from '../../kube/index.ts';

export function decideWhileDeleting(
  facts: UpdateFacts,
  isController: boolean,
  restore: readonly JsonPatchOperation[],
  deps: DecisionDeps,
): Decision {
  const { instance, request, running } = facts;
  const label = namespacedName(instance.metadata);
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
