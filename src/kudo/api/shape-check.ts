/**
 * A small structural checker for the parts of KUDO objects whose shape the apiserver does not
 * enforce (admission reads whole Instances with it; the engine reads the untyped Instance
 * status with it). Written by hand rather than with a JSON-schema library: the shapes are a
 * handful of fields, and the hot path (a status check per reconcile and per status event) is a
 * walk over them that builds only the field paths it visits, no validator or error objects.
 */

export type Shape =
  | 'string'
  | 'boolean'
  | 'number'
  | { readonly map: Shape }
  | { readonly list: Shape }
  | { readonly fields: Readonly<Record<string, Shape>> };

/** One field whose value has the wrong kind; structurally a server StatusCause. */
export interface ShapeProblem {
  readonly field: string;
  readonly message: string;
  readonly reason: 'FieldValueInvalid' | 'FieldValueRequired';
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a map' : `a ${typeof value}`;
}

function wanted(shape: Shape): string {
  if (typeof shape === 'string') return `a ${shape}`;
  return 'list' in shape ? 'a list' : 'a map';
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `spec.parameters.x`; a key that is not a plain name is quoted. */
export function childPath(path: string, key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key)
    ? `${path}.${key}`
    : `${path}[${JSON.stringify(key.slice(0, 60))}]`;
}

/** Where problems go: a ShapeProblem[] or any list of wider causes. */
export interface ProblemSink {
  readonly length: number;
  push(problem: ShapeProblem): number;
}

/** Where a shape check reports, and how much. */
export interface ShapeReport {
  readonly out: ProblemSink;
  /** The check stops once `out` holds this many. */
  readonly max: number;
  /** List items that are `null` pass (default), or count as wrong. */
  readonly nullItems?: boolean;
}

/**
 * Appends to `report.out` one problem per field of `value` (at `path`) that does not fit
 * `shape`, stopping once it holds `report.max`. Fields the shape does not name are not
 * checked; `null` is an absent optional field.
 */
export function checkShape(value: unknown, shape: Shape, path: string, report: ShapeReport): void {
  const { out, max } = report;
  if (out.length >= max) return;
  const fits =
    typeof shape === 'string'
      ? typeof value === shape && (shape !== 'number' || Number.isFinite(value))
      : 'list' in shape
        ? Array.isArray(value)
        : isRecord(value);
  if (!fits) {
    out.push({
      field: path,
      message: `must be ${wanted(shape)}, got ${kindOf(value)}`,
      reason: 'FieldValueInvalid',
    });
    return;
  }
  if (typeof shape === 'string') return;
  if ('list' in shape) {
    (value as unknown[]).forEach((item, i) => {
      if (item !== null || report.nullItems === false)
        checkShape(item, shape.list, `${path}[${i}]`, report);
    });
    return;
  }
  const record = value as Record<string, unknown>;
  if ('map' in shape) {
    // Map values must be present: a null parameter value is not a string.
    for (const [key, item] of Object.entries(record))
      checkShape(item, shape.map, childPath(path, key), report);
    return;
  }
  for (const [key, fieldShape] of Object.entries(shape.fields)) {
    if (!Object.hasOwn(record, key)) continue;
    const item = record[key];
    // null is how JSON spells an absent optional field.
    if (item !== null && item !== undefined)
      checkShape(item, fieldShape, childPath(path, key), report);
  }
}

const STEP: Shape = {
  fields: {
    name: 'string',
    status: 'string',
    message: 'string',
    startedAt: 'string',
    retries: 'number',
  },
};
const PHASE: Shape = {
  fields: { name: 'string', status: 'string', message: 'string', steps: { list: STEP } },
};
export const PLAN_STATUS_SHAPE: Shape = {
  fields: {
    name: 'string',
    uid: 'string',
    status: 'string',
    message: 'string',
    lastUpdatedTimestamp: 'string',
    startedAt: 'string',
    phases: { list: PHASE },
  },
};
export const PLAN_EXECUTION_STATUS_SHAPE: Shape = {
  fields: {
    planName: 'string',
    uid: 'string',
    status: 'string',
    startedAt: 'string',
    observedGeneration: 'number',
  },
};
export const CONDITION_SHAPE: Shape = {
  fields: {
    type: 'string',
    status: 'string',
    reason: 'string',
    message: 'string',
    lastTransitionTime: 'string',
    observedGeneration: 'number',
  },
};
