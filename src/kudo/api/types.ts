/**
 * TypeScript shapes of the kudo.dev/v1beta1 kinds, as stored by the CRDs in
 * `manifests/crds/`. Fields are optional where the API allows omitting them: objects come
 * from users and packages, and readers must not trust presence.
 */

export const KUDO_GROUP = 'kudo.dev';
export const KUDO_VERSION = 'v1beta1';
export const KUDO_API_VERSION = `${KUDO_GROUP}/${KUDO_VERSION}`;

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  deletionTimestamp?: string;
  creationTimestamp?: string;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

// ---------------------------------------------------------------- Operator

export interface Maintainer {
  name?: string;
  email?: string;
}

export interface OperatorSpec {
  description?: string;
  kudoVersion?: string;
  kubernetesVersion?: string;
  url?: string;
  namespaceManifest?: string;
  maintainers?: Maintainer[];
}

export interface Operator {
  apiVersion?: string;
  kind?: 'Operator';
  metadata: ObjectMeta;
  spec?: OperatorSpec;
  status?: Record<string, unknown>;
}

// ---------------------------------------------------------------- OperatorVersion

export type ParameterValueType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'map';

export const PARAMETER_VALUE_TYPES: readonly ParameterValueType[] = [
  'string',
  'integer',
  'number',
  'boolean',
  'array',
  'map',
];

export interface Parameter {
  name: string;
  displayName?: string;
  description?: string;
  /** Always a string in the API; array/map defaults are YAML text. */
  default?: string | null;
  required?: boolean;
  trigger?: string;
  /** Empty or absent means `string`. */
  'value-type'?: ParameterValueType | '';
  immutable?: boolean;
  enum?: string[] | null;
}

export type TaskKind = 'Apply' | 'Delete' | 'Toggle' | 'Pipe' | 'Dummy' | 'KudoOperator';

export interface PipeSpec {
  file?: string;
  envFile?: string;
  kind?: string;
  key?: string;
}

export interface TaskSpec {
  resources?: string[] | null;
  parameter?: string;
  wantErr?: boolean;
  fatal?: boolean;
  done?: boolean;
  pod?: string;
  pipe?: PipeSpec[] | null;
  package?: string;
  instanceName?: string;
  appVersion?: string;
  operatorVersion?: string;
  parameterFile?: string;
}

export interface Task {
  name: string;
  /** One of {@link TaskKind}; kept as string because packages may carry others. */
  kind: string;
  spec?: TaskSpec;
}

export type Ordering = 'serial' | 'parallel';

export interface Step {
  name?: string;
  tasks?: string[] | null;
}

export interface Phase {
  name?: string;
  /** {@link Ordering}; kept as string: packages may carry other spellings. */
  strategy?: string;
  steps?: Step[] | null;
}

export interface Plan {
  /** {@link Ordering}; kept as string: packages may carry other spellings. */
  strategy?: string;
  phases?: Phase[] | null;
}

export interface OperatorVersionSpec {
  operator?: ObjectReference;
  version?: string;
  appVersion?: string;
  connectionString?: string;
  upgradableFrom?: ObjectReference[];
  templates?: Record<string, string>;
  parameters?: Parameter[];
  tasks?: Task[];
  plans?: Record<string, Plan> | null;
}

export interface OperatorVersion {
  apiVersion?: string;
  kind?: 'OperatorVersion';
  metadata: ObjectMeta;
  spec?: OperatorVersionSpec;
  status?: Record<string, unknown>;
}

// ---------------------------------------------------------------- Instance

export type ExecutionStatus =
  'NEVER_RUN' | 'PENDING' | 'IN_PROGRESS' | 'ERROR' | 'FATAL_ERROR' | 'COMPLETE' | 'ABORTED';

/** A run is over: nothing more will happen to it without a new spec change. */
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set<ExecutionStatus>([
  'COMPLETE',
  'FATAL_ERROR',
  'ABORTED',
]);

export const PLAN_DEPLOY = 'deploy';
export const PLAN_UPDATE = 'update';
export const PLAN_UPGRADE = 'upgrade';
export const PLAN_CLEANUP = 'cleanup';

/** The finalizer that makes deletion run the cleanup plan first. */
export const CLEANUP_FINALIZER = 'kudo.dev.instance.cleanup';

export interface PlanExecution {
  planName?: string;
  uid?: string;
  /** KUDO compatibility; Planwright never reads it. */
  status?: string;
  /** The user asks the controller to stop the run identified by `uid`. */
  abort?: boolean;
  /** Written by the webhook when it accepts an abort. */
  abortRequestedBy?: string;
  abortRequestedAt?: string;
}

/** Flux's convention: a Secret in the Instance's namespace holding a kubeconfig. */
export interface KubeConfigReference {
  secretRef?: { name?: string; key?: string };
}

export interface InstanceSpec {
  operatorVersion?: ObjectReference;
  /** The cluster the plans apply to (immutable); the home cluster when absent. */
  kubeConfig?: KubeConfigReference;
  parameters?: Record<string, string>;
  planExecution?: PlanExecution;
}

export interface StepStatus {
  name?: string;
  /** An {@link ExecutionStatus}; kept as string: other writers may use others. */
  status?: string;
  message?: string;
  /** When this step of the run first started (optional step timeout). */
  startedAt?: string | null;
  /** Passes of this run that ended in ERROR for this step (optional retry limit). */
  retries?: number;
}

export interface PhaseStatus {
  name?: string;
  /** An {@link ExecutionStatus}; kept as string: other writers may use others. */
  status?: string;
  message?: string;
  steps?: StepStatus[];
}

export interface PlanStatus {
  name?: string;
  uid?: string;
  /** An {@link ExecutionStatus}; kept as string: other writers may use others. */
  status?: string;
  message?: string;
  lastUpdatedTimestamp?: string | null;
  startedAt?: string | null;
  phases?: PhaseStatus[];
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

export interface InstanceStatus {
  planExecution?: {
    planName?: string;
    uid?: string;
    status?: string;
    startedAt?: string;
    /** The Instance generation whose spec.planExecution this reflects (engine/unrecorded.ts). */
    observedGeneration?: number;
  };
  planStatus?: Record<string, PlanStatus>;
  conditions?: Condition[];
  inventory?: Array<Record<string, unknown>>;
}

export interface Instance {
  apiVersion?: string;
  kind?: 'Instance';
  metadata: ObjectMeta;
  spec?: InstanceSpec;
  status?: InstanceStatus;
}
