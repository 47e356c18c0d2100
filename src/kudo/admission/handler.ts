/**
 * The mutating webhook for Instances (`/mutate/instances`): reads the request, fetches the
 * OperatorVersion(s) it needs, and turns the pure {@link decide} result into an admission
 * result — a JSON patch of `spec.planExecution`, or a 422 Invalid with field causes.
 *
 * See examples/api/kudo.ts.
 */
import { randomUUID } from 'node:crypto';
import {
  allow,
  denyInvalid,
  patch,
  type AdmissionHandler,
  type AdmissionResult,
} from '../../server/index.ts';
import { decide } from './decide.ts';
import { gatherDecisionInput, isDecisionInput, type GatherOptions } from './gather.ts';
import { shardLabelPatch, type AdmissionSharding } from './shard-label.ts';
import type { Decision, DecisionInput } from './types.ts';
import { namespacedName } from '../../kube/index.ts';

export interface InstanceMutatorOptions extends GatherOptions {
  /** Usernames allowed to schedule `cleanup` (the controller's service account). */
  readonly controllerUsers: ReadonlySet<string>;
  readonly newUid?: () => string;
  readonly now?: () => Date;
  /** Label admitted Instances with their shard (see shard-label.ts). Without: no label. */
  readonly sharding?: AdmissionSharding;
}

/** Turns a decision into the server's result type. */
export function toAdmissionResult(decision: Decision): AdmissionResult {
  if (decision.kind === 'deny') {
    return denyInvalid(decision.message, decision.causes, { warnings: decision.warnings });
  }
  return decision.patch.length > 0
    ? patch(decision.patch, { warnings: decision.warnings })
    : allow({ warnings: decision.warnings });
}

/** An allowed change also gets the Instance's shard label. */
function withShardLabel(
  decision: Decision,
  input: DecisionInput,
  sharding: AdmissionSharding | undefined,
): Decision {
  if (!sharding || decision.kind !== 'allow') return decision;
  const label = shardLabelPatch(input.instance, input.oldInstance, sharding);
  return label.length > 0 ? { ...decision, patch: [...decision.patch, ...label] } : decision;
}

export function instanceMutator(options: InstanceMutatorOptions): AdmissionHandler {
  const deps = {
    validator: options.validator,
    controllerUsers: options.controllerUsers,
    newUid: options.newUid ?? randomUUID,
    now: options.now ?? ((): Date => new Date()),
  };
  // The context's logger is read only when debug is on: most reviews log nothing.
  return async (request, context) => {
    // A status write that still arrives (a misconfigured registration) is allowed by gather:
    // it must never be blocked.
    const input = await gatherDecisionInput(request, options, context);
    if (!isDecisionInput(input)) return input;
    const { instance } = input;
    const decision = withShardLabel(decide(input, deps), input, options.sharding);
    if (context.isLevelEnabled('debug')) {
      context.logger.debug(
        {
          instance: namespacedName({
            namespace: instance.metadata.namespace ?? request.namespace,
            name: instance.metadata.name ?? request.name,
          }),
          operation: request.operation,
          outcome: decision.kind,
          scheduled: decision.kind === 'allow' ? decision.scheduled : undefined,
        },
        'instance admission',
      );
    }
    return toAdmissionResult(decision);
  };
}
