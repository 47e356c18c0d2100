/** Talking to the Kubernetes API: configuration, a raw client, GVK mapping, typed errors. */
export {
  KubeClient,
  statusToApiError,
  type KubeClientLimits,
  type RequestOptions,
  type WatchOptions,
  type QueryValue,
} from './client.ts';
export {
  LiteKubeConfig,
  clientNodeKubeConfig,
  loadClientNode,
  type KubeConfig,
  type KubeConfigParts,
} from './kubeconfig.ts';
export {
  loadKubeConfig,
  inClusterNamespace,
  SERVICE_ACCOUNT_DIR,
  SERVICE_ACCOUNT_ROOT_ENV,
  serviceAccountDir,
  type LoadKubeConfigOptions,
  type LoadedKubeConfig,
} from './config.ts';
export {
  ResourceMapper,
  gvkKey,
  collectionPath,
  objectPath,
  type GroupVersionKind,
  type ResourceMapping,
} from './gvk.ts';
export { apiVersionOf, parseApiVersion } from './api-version.ts';
export {
  exponentialDelayMs,
  JitteredBackoff,
  ItemExponentialBackoff,
  BucketRateLimiter,
  type JitteredBackoffOptions,
  type ItemBackoffOptions,
  type BucketRateLimiterOptions,
} from './backoff.ts';
export {
  ApiError,
  KubeConfigError,
  ResponseTooLargeError,
  WatchInactivityError,
  UnknownKindError,
  parseRetryAfter,
  type StatusBody,
} from './errors.ts';
export {
  parseTargetKubeconfig,
  refusedKubeconfigFields,
  MAX_TARGET_KUBECONFIG_BYTES,
  type TargetKubeconfigOptions,
} from './target-kubeconfig.ts';
export {
  TargetServerPolicy,
  TargetServerFlagError,
  TargetServerRefusedError,
} from './target-server.ts';
export { impersonatingKubeConfig, serviceAccountUser } from './impersonation.ts';
export {
  ClusterGate,
  ClusterUnavailableError,
  GatedKubeClient,
  isUnreachable,
  type ClusterGateOptions,
  type GatedKubeClientOptions,
} from './cluster-gate.ts';
export { namespacedName } from './names.ts';
export {
  type ApplyObject,
  ServerSideApply,
  describeObject,
  isUnchanged,
  normalizeForCompare,
} from './apply.ts';
export {
  ResourceManager,
  ChangeSet,
  ApplyError,
  CrdNotEstablishedError,
  crdEstablished,
  applyStage,
  applyStages,
  type ApplyRequest,
  type ChangeAction,
  type ChangeSetEntry,
  type DeleteRequest,
} from './resource-manager.ts';
export { type KindResolution, resolveKind } from './kinds.ts';
export { OpenApiSchemas, type UnknownFields } from './openapi-schemas.ts';
export { deadlineSignal, type DeadlineSignal } from './deadline.ts';
