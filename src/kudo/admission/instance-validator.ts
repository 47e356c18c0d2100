/**
 * The validating webhook for Instances (`/validate/instances`): the final guard after every
 * mutating webhook. Reads the request like the mutating webhook does and refuses what
 * {@link finalGuard} refuses, with the same 422 causes; never patches.
 *
 * See examples/api/kudo.ts.
 */
import { allow, type AdmissionHandler } from '../../server/index.ts';
import type { ParameterValidator } from '../params/index.ts';
import { finalGuard } from './final-guard.ts';
import { gatherDecisionInput, isDecisionInput, type GatherOptions } from './gather.ts';
import { toAdmissionResult } from './handler.ts';
import { namespacedName } from '../../kube/index.ts';

export interface InstanceValidatorOptions extends GatherOptions {
  readonly validator: ParameterValidator;
  /** Usernames allowed to schedule `cleanup` (the controller's service account). */
  readonly controllerUsers: ReadonlySet<string>;
  readonly now?: () => Date;
}

export function instanceValidator(options: InstanceValidatorOptions): AdmissionHandler {
  const deps = {
    validator: options.validator,
    controllerUsers: options.controllerUsers,
    // The guard only compares plan names; the uid a scheduling would get does not matter.
    newUid: (): string => '',
    now: options.now ?? ((): Date => new Date()),
  };
  // A logger only for a denial.
  return async (request, context) => {
    const input = await gatherDecisionInput(request, options, context);
    if (!isDecisionInput(input)) return input;
    const decision = finalGuard(input, deps);
    if (decision.kind === 'deny') {
      context.logger.info(
        {
          instance: namespacedName({
            namespace: input.instance.metadata.namespace ?? request.namespace,
            name: input.instance.metadata.name ?? request.name,
          }),
          operation: request.operation,
          user: request.userInfo.username,
        },
        'instance refused by the final guard',
      );
    }
    // Warnings were already given by the mutating webhook; only a denial says anything here.
    return decision.kind === 'deny' ? toAdmissionResult(decision) : allow();
  };
}
