/**
 * Drift: how a live object differs from what Planwright last applied to it. The baseline of
 * an object is every leaf field of the applied content (plan annotations left out) with the
 * value the API server answered for it after the apply — so the server's own normalisation
 * (quantities, defaults inside lists) never counts as drift — and the object as applied, for
 * correcting it. Fields the package never set are not ours and never count.
 *
 * Compact, because one is kept per applied object of every Instance with drift on: the leaf
 * paths are a shape shared by every object rendered from the same template structure
 * (interned in {@link DriftShapes}), the answered values are 52-bit fingerprints (one number
 * per field: enough to name the fields that changed), and the applied object is kept as its
 * JSON text (parsed only on the rare correcting path). A full object graph per object cost
 * ~2.5 kB; this is a few hundred bytes plus the JSON.
 */
import { hash } from 'node:crypto';
import type { ApplyObject } from '../../kube/index.ts';
import { contentOf } from './policy.ts';

type Segment = string | number;

/** The leaf paths of an applied object's content, in document order. */
export interface DriftShape {
  /** Identity of the shape (the paths as JSON): equal paths, one shape. */
  readonly key: string;
  readonly paths: ReadonlyArray<readonly Segment[]>;
}

export interface DriftBaseline {
  /** The inventory digest the baseline belongs to. */
  readonly digest: string;
  readonly shape: DriftShape;
  /** Per path of the shape, the fingerprint of the value the API server answered. */
  readonly values: readonly number[];
  /** What was applied (policy annotations stripped), as JSON: re-applied to correct drift. */
  readonly desired: string;
}

/**
 * Shapes in use, each kept once however many baselines share it; a shape is forgotten with
 * its last baseline (counted), so the table is bounded by the baselines themselves.
 */
export class DriftShapes {
  private readonly shapes = new Map<string, { shape: DriftShape; users: number }>();

  get size(): number {
    return this.shapes.size;
  }

  /** The shared shape equal to `shape`, counted as used once more. */
  acquire(shape: DriftShape): DriftShape {
    const known = this.shapes.get(shape.key);
    if (known) {
      known.users++;
      return known.shape;
    }
    this.shapes.set(shape.key, { shape, users: 1 });
    return shape;
  }

  /** One user of `shape` is gone. */
  release(shape: DriftShape): void {
    const known = this.shapes.get(shape.key);
    if (!known || known.shape !== shape) return;
    if (--known.users <= 0) this.shapes.delete(shape.key);
  }
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

/** An empty list/map and an absent one are the same to the API server. */
function empty(v: unknown): boolean {
  return (
    v === undefined ||
    v === null ||
    (Array.isArray(v) && v.length === 0) ||
    (typeof v === 'object' && v !== null && Object.keys(v).length === 0)
  );
}

/** The fingerprint of every empty value (absent, null, [] and {}). */
const EMPTY = 0;

/**
 * 52 bits of the SHA-1 of the value with its type: distinct values collide with a chance of
 * 2^-52 per changed field (a drift left unseen), which is far below any other failure.
 * node:crypto rather than a hand-written hash: it is native, and this runs only for the
 * objects of Instances with drift on.
 */
export function fingerprint(value: unknown): number {
  if (empty(value)) return EMPTY;
  // JSON values: a string, a number, a boolean, or a non-empty list/map where the applied
  // content had a leaf (the type is part of the text: 1 and "1" differ).
  const text =
    typeof value === 'string'
      ? `s${value}`
      : typeof value === 'number' || typeof value === 'boolean'
        ? `${typeof value}:${value}`
        : `j${JSON.stringify(value)}`;
  // 13 hex digits = 52 bits, an exact integer in a double; never EMPTY.
  return parseInt(hash('sha1', text, 'hex').slice(0, 13), 16) || 1;
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

/**
 * The baseline of an object just applied (`result` is the server's answer). With `shapes`,
 * the baseline's shape is the shared one (the caller releases it when it drops the baseline).
 */
export function driftBaseline(
  desired: ApplyObject,
  result: ApplyObject,
  digest: string,
  shapes?: DriftShapes,
): DriftBaseline {
  const content = contentOf(desired);
  const meta = { ...(content.metadata ?? {}) };
  delete meta.name;
  delete meta.namespace;
  const all: Segment[][] = [];
  leaves({ ...content, metadata: meta }, [], all);
  const paths = all.filter((p) => p[0] !== 'apiVersion' && p[0] !== 'kind');
  const found: DriftShape = { key: JSON.stringify(paths), paths };
  const shape = shapes ? shapes.acquire(found) : found;
  return {
    digest,
    shape,
    values: shape.paths.map((path) => fingerprint(at(result, path))),
    desired: JSON.stringify(desired),
  };
}

/** The baseline of the same object after a re-apply (`result` is the server's answer). */
export function reappliedBaseline(baseline: DriftBaseline, result: ApplyObject): DriftBaseline {
  return {
    ...baseline,
    values: baseline.shape.paths.map((path) => fingerprint(at(result, path))),
  };
}

/** What the baseline's object was applied as (a fresh copy). */
export function appliedObject(baseline: DriftBaseline): ApplyObject {
  return JSON.parse(baseline.desired) as ApplyObject;
}

/** The fields of the baseline the live object no longer holds, as paths. */
export function driftedFields(baseline: DriftBaseline, live: ApplyObject): string[] {
  const out: string[] = [];
  const { paths } = baseline.shape;
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i] as readonly Segment[];
    if (fingerprint(at(live, path)) !== baseline.values[i]) out.push(fieldPath(path));
  }
  return out;
}
