/**
 * Aborting the running plan: accepted only while a plan runs, only as the only change, never
 * for cleanup; the webhook records who asked and when.
 */
import type { StatusCause } from '../../server/index.ts';
import { PLAN_CLEANUP } from '../api/index.ts';
import { abortCommand } from './messages.ts';
import type { Decision, DecisionDeps, DecisionInput, UpdateFacts } from './types.ts';
import { ABORT_FIELD, allow, deny } from './results.ts';
import { namespacedName } from '../../kube/index.ts';

export function decideAbort(
  input: DecisionInput,
  facts: UpdateFacts,
  deps: DecisionDeps,
): Decision {
  const { instance, old, running } = facts;
  const label = namespacedName(instance.metadata);
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
