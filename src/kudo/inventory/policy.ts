/**
 * Per-object policies, written as annotations in a package's templates and stripped before
 * the object is applied (they are instructions to Planwright, not state of the object):
 *
 * * `planwright.dev/gc: keep` — never deleted, neither by prune nor when the Instance is
 *   deleted; the object leaves the inventory (and loses its owner reference) instead.
 * * `planwright.dev/apply: once` — created when absent, never updated afterwards: for objects
 *   users or other controllers take over.
 *
 * And the digest of what was applied, recorded per inventory entry: the plan annotations
 * (which change with every run) are left out, so equal content gives an equal digest.
 */
import { createHash } from 'node:crypto';
import { normalizeForCompare, type ApplyObject } from '../../kube/index.ts';
import type { ObjectPolicy } from './inventory.ts';

export const ANNOTATION_GC = 'planwright.dev/gc';
export const ANNOTATION_APPLY = 'planwright.dev/apply';

/** Annotations that change with every plan run and so do not count as content. */
const VOLATILE_ANNOTATIONS = new Set([
  'kudo.dev/plan',
  'kudo.dev/phase',
  'kudo.dev/step',
  'kudo.dev/last-plan-execution-uid',
]);

/** A policy annotation with a value Planwright does not know. */
export class PolicyAnnotationError extends Error {
  override readonly name = 'PolicyAnnotationError';
}

export interface PolicyExtraction {
  /** The object without the policy annotations. */
  readonly object: ApplyObject;
  readonly policy?: ObjectPolicy;
}

/** Reads and strips the policy annotations; throws {@link PolicyAnnotationError} on unknown values. */
export function extractPolicy(obj: ApplyObject, describe: string): PolicyExtraction {
  const annotations = obj.metadata?.annotations;
  if (!annotations || !(ANNOTATION_GC in annotations || ANNOTATION_APPLY in annotations)) {
    return { object: obj };
  }
  const gc = annotations[ANNOTATION_GC];
  const apply = annotations[ANNOTATION_APPLY];
  if (gc !== undefined && gc !== 'keep') {
    throw new PolicyAnnotationError(
      `${describe}: annotation ${ANNOTATION_GC} is "${gc}"; the only value is "keep" (remove the annotation for the default: deleted when no longer rendered)`,
    );
  }
  if (apply !== undefined && apply !== 'once') {
    throw new PolicyAnnotationError(
      `${describe}: annotation ${ANNOTATION_APPLY} is "${apply}"; the only value is "once" (remove the annotation for the default: updated on every apply)`,
    );
  }
  if (gc !== undefined && apply !== undefined) {
    throw new PolicyAnnotationError(
      `${describe}: annotations ${ANNOTATION_GC} and ${ANNOTATION_APPLY} exclude each other; keep one`,
    );
  }
  const rest: Record<string, string> = {};
  for (const [k, v] of Object.entries(annotations)) {
    if (k !== ANNOTATION_GC && k !== ANNOTATION_APPLY) rest[k] = v;
  }
  return {
    object: { ...obj, metadata: { ...obj.metadata, annotations: rest } },
    policy: gc !== undefined ? 'keep' : 'once',
  };
}

/** The object as compared and digested: normalized, plan annotations left out. */
export function contentOf(obj: ApplyObject): ApplyObject {
  const out = normalizeForCompare(obj);
  const annotations = out.metadata?.annotations;
  if (annotations) {
    const kept: Record<string, string> = {};
    for (const [k, v] of Object.entries(annotations)) {
      if (!VOLATILE_ANNOTATIONS.has(k)) kept[k] = v;
    }
    out.metadata = { ...out.metadata, annotations: kept };
  }
  return out;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort())
      out[k] = canonical((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/** 16 hex characters of the sha256 of the object's content (key order does not matter). */
export function digestOf(obj: ApplyObject): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(contentOf(obj))))
    .digest('hex')
    .slice(0, 16);
}
