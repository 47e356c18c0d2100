/**
 * Drift: how a live object differs from what Planwright last applied to it. The baseline of
 * an object is every leaf field of the applied content (plan annotations left out) with the
 * value the API server answered for it after the apply — so the server's own normalisation
 * (quantities, defaults inside lists) never counts as drift — and the object as applied, for
 * correcting it. Fields the package never set are not ours and never count.
 */
import type { ApplyObject } from '../../kube/apply.ts';
import { contentOf } from './policy.ts';

type Segment = string | number;

export interface DriftBaseline {
  /** The inventory digest the baseline belongs to. */
  readonly digest: string;
  /** What was applied (policy annotations stripped): re-applied to correct drift. */
  readonly desired: ApplyObject;
  readonly fields: ReadonlyArray<{ readonly path: readonly Segment[]; readonly value: unknown }>;
}

function leaves(value: unknown, path: Segment[], out: Segment[][]): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => leaves(item, [...path, i], out));
    return;
  }
  if (value !== null && typeof value === 'object') {
    // Empty lists and maps set nothing: the API server drops them anyway.
    for (const [k, v] of Object.entries(value)) leaves(v, [...path, k], out);
    return;
  }
  out.push([...path]);
}

function at(obj: unknown, path: readonly Segment[]): unknown {
  let cur: unknown = obj;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // An empty list/map and an absent one are the same to the API server.
  const empty = (v: unknown): boolean =>
    v === undefined ||
    v === null ||
    (Array.isArray(v) && v.length === 0) ||
    (typeof v === 'object' && v !== null && Object.keys(v).length === 0);
  return empty(a) && empty(b);
}

/** `spec.template.spec.containers[0].image` */
export function fieldPath(path: readonly Segment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** The baseline of an object just applied (`result` is the server's answer). */
export function driftBaseline(
  desired: ApplyObject,
  result: ApplyObject,
  digest: string,
): DriftBaseline {
  const content = contentOf(desired);
  const meta = { ...(content.metadata ?? {}) };
  delete meta.name;
  delete meta.namespace;
  const paths: Segment[][] = [];
  leaves({ ...content, metadata: meta }, [], paths);
  return {
    digest,
    desired,
    fields: paths
      .filter((p) => p[0] !== 'apiVersion' && p[0] !== 'kind')
      .map((path) => ({ path, value: at(result, path) })),
  };
}

/** The fields of the baseline the live object no longer holds, as paths. */
export function driftedFields(baseline: DriftBaseline, live: ApplyObject): string[] {
  const out: string[] = [];
  for (const { path, value } of baseline.fields) {
    if (!same(value, at(live, path))) out.push(fieldPath(path));
  }
  return out;
}
