/**
 * Every admission webhook Planwright serves, registered on one server: the paths here are the
 * paths manifests/webhook/ registers (a test checks that each one is served).
 *
 * | path | configuration | what |
 * |---|---|---|
 * | /mutate/instances | MutatingWebhookConfiguration planwright-instances | which plan a change schedules |
 * | /validate/instances | ValidatingWebhookConfiguration planwright-validation | the final guard |
 * | /validate/operatorversions | ValidatingWebhookConfiguration planwright-validation | package verify (warnings, or refusal when strict); delete in use |
 * | /validate/operators | ValidatingWebhookConfiguration planwright-validation | delete in use |
 *
 * See examples/api/kudo.ts.
 */
import type { AdmissionHandler } from '../../server/index.ts';
import { instanceMutator } from './handler.ts';
import { instanceValidator } from './instance-validator.ts';
import {
  operatorValidator,
  operatorVersionValidator,
  type OperatorSource,
  type OperatorVersionVerifier,
} from './operator-version-validator.ts';
import type { GatherOptions } from './gather.ts';
import type { KudoUsage } from './usage.ts';
import type { PackagePolicy } from './verify-verdict.ts';
import type { AdmissionSharding } from './shard-label.ts';

/** Webhook names as served (`/mutate/<name>`, `/validate/<name>`). */
export const ADMISSION_PATHS = {
  mutating: ['instances'],
  validating: ['instances', 'operatorversions', 'operators'],
} as const;

export interface AdmissionServer {
  registerMutating(name: string, handler: AdmissionHandler): void;
  registerValidating(name: string, handler: AdmissionHandler): void;
}

export interface AdmissionWebhooksOptions extends GatherOptions {
  /** Usernames allowed to schedule `cleanup` (the controller's service account). */
  readonly controllerUsers: ReadonlySet<string>;
  readonly verify: OperatorVersionVerifier;
  readonly operators: OperatorSource;
  readonly usage: KudoUsage;
  /** What a `package verify` error in an OperatorVersion does (see verify-verdict.ts). */
  readonly packagePolicy?: PackagePolicy;
  /** Label admitted Instances with their shard. */
  readonly sharding?: AdmissionSharding;
}

export function registerAdmissionWebhooks(
  server: AdmissionServer,
  options: AdmissionWebhooksOptions,
): void {
  server.registerMutating('instances', instanceMutator(options));
  server.registerValidating('instances', instanceValidator(options));
  server.registerValidating(
    'operatorversions',
    operatorVersionValidator({
      verify: options.verify,
      operators: options.operators,
      usage: options.usage,
      policy: options.packagePolicy,
    }),
  );
  server.registerValidating('operators', operatorValidator({ usage: options.usage }));
}
