/** The labels, annotation and owner reference every applied object carries. */
import type { ApplyObject } from '../../kube/apply.ts';
import { KUDO_API_VERSION, type Instance } from '../api/types.ts';
import type { StepCoordinates } from './variables.ts';

export const LABEL_INSTANCE = 'kudo.dev/instance';
export const LABEL_OPERATOR = 'kudo.dev/operator';
export const LABEL_OPERATOR_VERSION = 'kudo.dev/operator-version';
export const LABEL_PLAN = 'kudo.dev/plan';
export const LABEL_PHASE = 'kudo.dev/phase';
export const LABEL_STEP = 'kudo.dev/step';
export const LABEL_HERITAGE = 'heritage';
/** `namespace/name` of the owning Instance: names alone are ambiguous for cluster-scoped objects. */
export const ANNOTATION_OWNER = 'planwright.dev/instance';

export function ownerAnnotation(instance: Instance): string {
  return `${instance.metadata.namespace ?? ''}/${instance.metadata.name ?? ''}`;
}

/** Label values must be ≤ 63 characters of [A-Za-z0-9._-]; anything else is shortened/replaced. */
function labelValue(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 63);
  return cleaned.replace(/^[^A-Za-z0-9]+/, '').replace(/[^A-Za-z0-9]+$/, '');
}

export interface Decoration {
  readonly instance: Instance;
  readonly operatorName: string;
  readonly operatorVersion: string;
  readonly at: StepCoordinates;
  /** Whether the object's kind is namespaced (from discovery). */
  readonly namespaced: boolean;
}

/** Namespace defaulting, labels, owner annotation and (same namespace) owner reference. */
export function decorate(obj: ApplyObject, d: Decoration): ApplyObject {
  const meta = { ...(obj.metadata ?? {}) };
  const ns = d.instance.metadata.namespace ?? '';
  if (d.namespaced) meta.namespace = meta.namespace || ns;
  else delete meta.namespace;
  meta.labels = {
    ...(meta.labels ?? {}),
    [LABEL_HERITAGE]: 'kudo',
    [LABEL_INSTANCE]: labelValue(d.instance.metadata.name ?? ''),
    [LABEL_OPERATOR]: labelValue(d.operatorName),
    [LABEL_OPERATOR_VERSION]: labelValue(d.operatorVersion),
    [LABEL_PLAN]: labelValue(d.at.plan),
    [LABEL_PHASE]: labelValue(d.at.phase),
    [LABEL_STEP]: labelValue(d.at.step),
  };
  meta.annotations = {
    ...(meta.annotations ?? {}),
    [ANNOTATION_OWNER]: ownerAnnotation(d.instance),
  };
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
  return { ...obj, metadata: meta };
}

/**
 * Whether a live object belongs to another Instance: its owner annotation names another
 * Instance, or (no annotation) its instance label names another one.
 */
export function ownedByAnother(obj: ApplyObject, instance: Instance): boolean {
  const annotation = obj.metadata?.annotations?.[ANNOTATION_OWNER];
  if (annotation !== undefined) return annotation !== ownerAnnotation(instance);
  const label = obj.metadata?.labels?.[LABEL_INSTANCE];
  return label !== undefined && label !== labelValue(instance.metadata.name ?? '');
}
