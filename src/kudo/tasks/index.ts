/** Plan tasks: Apply, Delete, Toggle, Dummy, Pipe, KudoOperator. */
export { runTask } from './run.ts';
export { MAX_UNKNOWN_KINDS_PER_TASK } from './objects.ts';
export { inventoryDeletion, resourcesOf } from './resources.ts';
export {
  DEFAULT_WAITER_IMAGE,
  PIPE_POD_ANNOTATION,
  WebSocketPodExec,
  type ExecRequest,
  type ExecResult,
  type PodExec,
} from './pipe/index.ts';
export {
  FatalTaskError,
  TaskError,
  TransientTaskError,
  type AppliedObject,
  type InventoryRecorder,
  type ObjectReader,
  type RecordOptions,
  type TaskContext,
  type TaskServices,
  type TaskOutcome,
} from './types.ts';
export { ANNOTATION_ADOPT, deletionRefused, previousOwner } from './ownership.ts';
export { entryOutOfScope, scopeInventory } from './inventory-scope.ts';
export {
  ANNOTATION_SERVICE_ACCOUNT,
  KUDO_TENANCY,
  TENANCY_POSTURES,
  TenancyFlagError,
  operatorVersionProblem,
  parseGrant,
  identityOf,
  parseNamespace,
  type Identity,
  type NamespaceGrant,
  type ServiceAccountPolicy,
  type TenancyPolicy,
  type TenancyPosture,
} from './tenancy.ts';
export { goYamlMarshal, type GoYamlValue } from './dependencies-hash/index.ts';
