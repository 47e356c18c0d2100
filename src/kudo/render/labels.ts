/**
 * The labels, annotations and owner reference every applied object carries, split the way
 * KUDO split them (docs/packages.md "Old packages on a current cluster" lists them):
 * three labels that identify the owner (`heritage`, `kudo.dev/instance`, `kudo.dev/operator`);
 * annotations that say which plan/phase/step and run applied the object; pod templates get the
 * three labels and `kudo.dev/operator-version`, never plan/phase/step (a pod template change
 * restarts pods, and every plan would otherwise roll them).
 */
import type { ApplyObject } from '../../kube/index.ts';
import { parseApiVersion, namespacedName } from '../../kube/index.ts';
import { KUDO_API_VERSION, type Instance } from '../api/index.ts';
import type { StepCoordinates } from './variables.ts';

export const LABEL_HERITAGE = 'heritage';
export const HERITAGE_KUDO = 'kudo';
export const LABEL_INSTANCE = 'kudo.dev/instance';
export const LABEL_OPERATOR = 'kudo.dev/operator';
export const ANNOTATION_PLAN = 'kudo.dev/plan';
export const ANNOTATION_PHASE = 'kudo.dev/phase';
export const ANNOTATION_STEP = 'kudo.dev/step';
export const ANNOTATION_PLAN_UID = 'kudo.dev/last-plan-execution-uid';
export const ANNOTATION_OPERATOR_VERSION = 'kudo.dev/operator-version';
/** `namespace/name` of the owning Instance: names alone are ambiguous for cluster-scoped objects. */
export const ANNOTATION_OWNER = 'planwright.dev/instance';
/**
 * The uid of the Instance an object was applied for: the proof of ownership of objects no
 * owner reference can carry (cluster-scoped, in another namespace, in a target cluster). A
 * name is not proof: an Instance deleted and created again under the same name is another one.
 */
export const LABEL_OWNER_UID = 'planwright.dev/instance-uid';

export function ownerAnnotation(instance: Instance): string {
  return namespacedName(instance.metadata);
}

/** Label values must be ≤ 63 characters of [A-Za-z0-9._-]; anything else is shortened/replaced. */
export function labelValue(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 63);
  return cleaned.replace(/^[^A-Za-z0-9]+/, '').replace(/[^A-Za-z0-9]+$/, '');
}

/** The label selector of everything an Instance applied (readiness selects workloads by it). */
export function instanceSelector(instanceName: string): Record<string, string> {
  return { [LABEL_HERITAGE]: HERITAGE_KUDO, [LABEL_INSTANCE]: labelValue(instanceName) };
}

/** The three owner labels, which objects and their pod templates carry. */
export function ownerLabels(instanceName: string, operatorName: string): Record<string, string> {
  return {
    ...instanceSelector(instanceName),
    [LABEL_OPERATOR]: labelValue(operatorName),
  };
}

export interface Decoration {
  readonly instance: Instance;
  readonly operatorName: string;
  /** The OperatorVersion's `spec.version` (pod-template annotation). */
  readonly operatorVersion: string;
  readonly at: StepCoordinates;
  /** Whether the object's kind is namespaced (from discovery). */
  readonly namespaced: boolean;
  /**
   * Extra annotations for a pod template (the dependencies hash of the ConfigMaps/Secrets it
   * mounts goes here). Called with the pod template's own `metadata` + `spec` as rendered.
   */
  readonly podTemplateAnnotations?: (template: PodTemplate) => Readonly<Record<string, string>>;
}

type Json = Record<string, unknown>;

/** A pod template (or StatefulSet volume claim template) inside a rendered object. */
export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> } & Json;
  spec?: Json;
  [key: string]: unknown;
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Walks `path` of plain objects; undefined when any step is missing or not an object. */
function at(obj: Json, path: readonly string[]): Json | undefined {
  let cur: unknown = obj;
  for (const key of path) {
    if (!isObject(cur)) return undefined;
    cur = cur[key];
  }
  return isObject(cur) ? cur : undefined;
}

// Where the pod template sits, per workload kind; the groups include the removed beta
// versions (decoration happens before a removed API is converted, as KUDO's apiserver saw it).
const POD_TEMPLATE_PATHS: ReadonlyMap<string, readonly string[]> = new Map([
  ['Deployment', ['spec', 'template']],
  ['StatefulSet', ['spec', 'template']],
  ['DaemonSet', ['spec', 'template']],
  ['ReplicaSet', ['spec', 'template']],
  ['ReplicationController', ['spec', 'template']],
  ['Job', ['spec', 'template']],
  ['CronJob', ['spec', 'jobTemplate', 'spec', 'template']],
]);
const WORKLOAD_GROUPS: ReadonlySet<string> = new Set(['', 'apps', 'extensions', 'batch']);

function podTemplatePath(obj: ApplyObject): readonly string[] | undefined {
  if (!obj.apiVersion || !WORKLOAD_GROUPS.has(parseApiVersion(obj.apiVersion).group)) {
    return undefined;
  }
  return POD_TEMPLATE_PATHS.get(obj.kind ?? '');
}

/** The pod template of a workload (Deployment … CronJob's jobTemplate), if it has one. */
export function podTemplateOf(obj: ApplyObject): PodTemplate | undefined {
  const path = podTemplatePath(obj);
  return path ? at(obj, path) : undefined;
}

/** A copy of `template` whose metadata carries `labels` and `annotations` on top of its own. */
function withMetadata(
  template: Json,
  labels: Readonly<Record<string, string>>,
  annotations: Readonly<Record<string, string>> | undefined,
): Json {
  const meta = isObject(template['metadata']) ? { ...template['metadata'] } : {};
  meta['labels'] = { ...(isObject(meta['labels']) ? meta['labels'] : {}), ...labels };
  if (annotations) {
    meta['annotations'] = {
      ...(isObject(meta['annotations']) ? meta['annotations'] : {}),
      ...annotations,
    };
  }
  return { ...template, metadata: meta };
}

/** A copy of `obj` with the value at `path` (an existing object) replaced by `replace(it)`. */
function replaceAt(obj: Json, path: readonly string[], replace: (value: Json) => Json): Json {
  const [head, ...rest] = path;
  if (head === undefined) return replace(obj);
  const child = obj[head];
  if (!isObject(child)) return obj;
  return { ...obj, [head]: replaceAt(child, rest, replace) };
}

function decoratePodTemplates(
  obj: ApplyObject,
  labels: Readonly<Record<string, string>>,
  d: Decoration,
): ApplyObject {
  const path = podTemplatePath(obj);
  if (!path) return obj;
  let out: Json = obj;
  if (at(out, path)) {
    out = replaceAt(out, path, (template) =>
      withMetadata(template, labels, {
        [ANNOTATION_OPERATOR_VERSION]: d.operatorVersion,
        ...(d.podTemplateAnnotations?.(template) ?? {}),
      }),
    );
  }
  if (obj.kind === 'StatefulSet') {
    const spec = at(out, ['spec']);
    const claims = spec?.['volumeClaimTemplates'];
    if (spec && Array.isArray(claims)) {
      out = {
        ...out,
        spec: {
          ...spec,
          volumeClaimTemplates: claims.map((c: unknown) =>
            isObject(c) ? withMetadata(c, labels, undefined) : c,
          ),
        },
      };
    }
  }
  return out;
}

/**
 * Namespace defaulting, the owner labels and the plan annotations, the owner annotation, pod
 * template labels/annotations and (same namespace) a controller owner reference to the Instance.
 */
export function decorate(obj: ApplyObject, d: Decoration): ApplyObject {
  const meta = { ...(obj.metadata ?? {}) };
  const ns = d.instance.metadata.namespace ?? '';
  if (d.namespaced) meta.namespace = meta.namespace || ns;
  else delete meta.namespace;
  const labels = ownerLabels(d.instance.metadata.name ?? '', d.operatorName);
  meta.labels = { ...(meta.labels ?? {}), ...labels };
  meta.annotations = {
    ...(meta.annotations ?? {}),
    [ANNOTATION_PLAN]: d.at.plan,
    [ANNOTATION_PHASE]: d.at.phase,
    [ANNOTATION_STEP]: d.at.step,
    [ANNOTATION_PLAN_UID]: d.at.planUid ?? '',
    [ANNOTATION_OWNER]: ownerAnnotation(d.instance),
  };
  if (d.instance.metadata.uid) meta.labels[LABEL_OWNER_UID] = d.instance.metadata.uid;
  if (d.namespaced && meta.namespace === ns && d.instance.metadata.uid) {
    meta['ownerReferences'] = [
      {
        apiVersion: KUDO_API_VERSION,
        kind: 'Instance',
        name: d.instance.metadata.name ?? '',
        uid: d.instance.metadata.uid,
        controller: true,
      },
    ];
  }
  return decoratePodTemplates({ ...obj, metadata: meta }, labels, d);
}

/**
 * Whether a live object proves it was applied for `instance` (docs/security.md, "Ownership"):
 * an owner reference (controller or not: a child Instance's is not) or the
 * {@link LABEL_OWNER_UID} label carrying its uid. Both are written by Planwright when it applies
 * the object; only someone who may write the object itself can forge them, and such a person
 * could change or delete it anyway. Names, annotations and the inventory in the Instance's
 * status prove nothing.
 */
export function ownedByInstance(obj: ApplyObject, instance: Instance): boolean {
  const uid = instance.metadata.uid;
  if (uid === undefined || uid === '') return false;
  if (obj.metadata?.labels?.[LABEL_OWNER_UID] === uid) return true;
  const refs = obj.metadata?.['ownerReferences'];
  return (
    Array.isArray(refs) &&
    refs.some(
      (r: unknown) => typeof r === 'object' && r !== null && (r as { uid?: unknown }).uid === uid,
    )
  );
}

/**
 * Whether a live or decorated object carries the controller owner reference decorate gives it
 * (so the garbage collector deletes it with `instance`).
 */
export function controlledByInstance(obj: ApplyObject, instance: Instance): boolean {
  const refs = obj.metadata?.['ownerReferences'];
  const uid = instance.metadata.uid;
  return (
    uid !== undefined &&
    Array.isArray(refs) &&
    refs.some(
      (r: unknown) =>
        typeof r === 'object' &&
        r !== null &&
        (r as { uid?: unknown }).uid === uid &&
        (r as { controller?: unknown }).controller === true,
    )
  );
}
