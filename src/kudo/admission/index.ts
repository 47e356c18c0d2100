/** Instance admission: the decision (pure), the webhook handler, and OperatorVersion lookup. */
export { decide } from './decide.ts';
export { instanceMutator, toAdmissionResult, type InstanceMutatorOptions } from './handler.ts';
export {
  CachedOperatorVersionSource,
  LiveOperatorSource,
  LiveOperatorVersionSource,
  OPERATOR_VERSION_GVK,
  OperatorVersionLookupError,
  type CachedOperatorVersionSourceOptions,
  type LiveOperatorVersionSourceOptions,
  type OperatorVersionCache,
  type OperatorVersionSource,
} from './source.ts';
export type { AdmissionUser, Decision, DecisionDeps, DecisionInput, Scheduled } from './types.ts';
export { finalGuard } from './final-guard.ts';
export { instanceValidator, type InstanceValidatorOptions } from './instance-validator.ts';
export {
  nameInstances,
  operatorValidator,
  operatorVersionValidator,
  type OperatorSource,
  type OperatorValidatorOptions,
  type OperatorVersionValidatorOptions,
  type OperatorVersionVerifier,
  WEBHOOK_PROBE_ANNOTATION,
} from './operator-version-validator.ts';
export {
  CachedKudoUsage,
  INSTANCE_USAGE_VIEW,
  UsageLookupError,
  type CachedKudoUsageOptions,
  type KudoUsage,
  type UsageCache,
} from './usage.ts';
export {
  ADMISSION_PATHS,
  registerAdmissionWebhooks,
  type AdmissionServer,
  type AdmissionWebhooksOptions,
} from './register.ts';
export { verifyVerdict, type PackagePolicy } from './verify-verdict.ts';
export { shardLabelPatch, type AdmissionSharding } from './shard-label.ts';
export {
  INSTANCE_CACHE_CHECK,
  OPERATOR_VERSION_CACHE_CHECK,
  serveAdmission,
  type AdmissionCaches,
  type AdmissionSettings,
  type ServeAdmission,
} from './serve.ts';
