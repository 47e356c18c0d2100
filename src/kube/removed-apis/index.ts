/**
 * API versions Kubernetes no longer serves, and how to turn an object written for one into
 * the served version the way the API server did when it still served both (conversion plus
 * the old version's defaults). Generic Kubernetes knowledge: callers decide when to use it
 * (only when discovery says the old version is not served) and tell the user.
 *
 * See examples/api/kube.ts.
 */
import { convertCustomResourceDefinition } from './crd.ts';
import type { Json } from './json.ts';
import { convertIngress } from './networking.ts';
import { convertPodDisruptionBudget } from './policy.ts';
import { convertWorkload, WORKLOAD_KINDS, type WorkloadSource } from './workloads.ts';

export {
  API_APPROVAL_ANNOTATION,
  CONVERTED_APPROVAL,
  convertCrdLikeTheApiServer,
  isProtectedGroup,
  makeCrdCreatable,
} from './crd.ts';
export { structuralSchema } from './structural.ts';

export interface RemovedApi {
  /** apiVersion the object was written for (`policy/v1beta1`). */
  readonly from: string;
  /** The served apiVersion it becomes (`policy/v1`). */
  readonly to: string;
  readonly kind: string;
  /** Kubernetes release that stopped serving `from` for this kind. */
  readonly removedIn: string;
  /** A converted deep copy; the input is not changed. */
  convert<T extends object>(obj: T): T;
}

type InPlace = (obj: Json) => void;

function entry(
  from: string,
  to: string,
  kind: string,
  removedIn: string,
  convert: InPlace,
): RemovedApi {
  return {
    from,
    to,
    kind,
    removedIn,
    convert<T extends object>(obj: T): T {
      const copy = structuredClone(obj) as unknown as Json;
      convert(copy);
      copy['apiVersion'] = to;
      return copy as unknown as T;
    },
  };
}

/** Same shape in both versions: only the apiVersion changes. */
const identity: InPlace = () => undefined;

const REMOVED_IN: Readonly<Record<WorkloadSource, string>> = {
  'extensions/v1beta1': '1.16',
  'apps/v1beta1': '1.16',
  'apps/v1beta2': '1.16',
};

const RBAC_KINDS = ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'];

/** Every removed version/kind this module converts (Kubernetes' deprecated API migration guide). */
export const REMOVED_APIS: readonly RemovedApi[] = [
  ...[...WORKLOAD_KINDS].flatMap(([from, kinds]) =>
    kinds.map((kind) =>
      entry(from, 'apps/v1', kind, REMOVED_IN[from], (obj) => convertWorkload(obj, from)),
    ),
  ),
  entry('extensions/v1beta1', 'networking.k8s.io/v1', 'Ingress', '1.22', convertIngress),
  entry('networking.k8s.io/v1beta1', 'networking.k8s.io/v1', 'Ingress', '1.22', convertIngress),
  entry('networking.k8s.io/v1beta1', 'networking.k8s.io/v1', 'IngressClass', '1.22', identity),
  entry('extensions/v1beta1', 'networking.k8s.io/v1', 'NetworkPolicy', '1.16', identity),
  entry('policy/v1beta1', 'policy/v1', 'PodDisruptionBudget', '1.25', convertPodDisruptionBudget),
  entry('batch/v1beta1', 'batch/v1', 'CronJob', '1.25', identity),
  ...RBAC_KINDS.map((kind) =>
    entry(
      'rbac.authorization.k8s.io/v1beta1',
      'rbac.authorization.k8s.io/v1',
      kind,
      '1.22',
      identity,
    ),
  ),
  entry('scheduling.k8s.io/v1beta1', 'scheduling.k8s.io/v1', 'PriorityClass', '1.22', identity),
  entry(
    'apiextensions.k8s.io/v1beta1',
    'apiextensions.k8s.io/v1',
    'CustomResourceDefinition',
    '1.22',
    convertCustomResourceDefinition,
  ),
];

const BY_KEY: ReadonlyMap<string, RemovedApi> = new Map(
  REMOVED_APIS.map((r) => [`${r.from}|${r.kind}`, r]),
);

/** The conversion of `kind` written for `apiVersion`, if that is a removed version we know. */
export function removedApi(apiVersion: string, kind: string): RemovedApi | undefined {
  return BY_KEY.get(`${apiVersion}|${kind}`);
}
