/**
 * The shape of an Instance as admission reads it, checked before anything reads it. The
 * apiserver validates against the CRD schema first, so a wrong shape here comes from a
 * client talking to the webhook directly or from a schema that drifted; either way the
 * answer is a denial naming the field, never a handler tripping over a number where a
 * string belongs.
 */
import type { StatusCause } from '../../server/index.ts';
import { checkShape, isRecord, kindOf, type Shape } from '../api/index.ts';

/** Every field of an Instance's metadata and spec that admission (decide, messages) reads. */
const INSTANCE: Shape = {
  fields: {
    metadata: {
      fields: {
        name: 'string',
        namespace: 'string',
        uid: 'string',
        resourceVersion: 'string',
        generation: 'number',
        labels: { map: 'string' },
        annotations: { map: 'string' },
        finalizers: { list: 'string' },
        deletionTimestamp: 'string',
      },
    },
    spec: {
      fields: {
        operatorVersion: { fields: { name: 'string', namespace: 'string' } },
        parameters: { map: 'string' },
        planExecution: {
          fields: {
            planName: 'string',
            uid: 'string',
            status: 'string',
            abort: 'boolean',
            abortRequestedBy: 'string',
            abortRequestedAt: 'string',
          },
        },
      },
    },
    // No status: gather reads it through readStatus first, which leaves out every part of the
    // wrong shape (the stored status is untyped and not the requester's to fix).
  },
};

/** At most this many causes are reported (kubectl shows each on its own line). */
const MAX_CAUSES = 10;

function check(value: unknown, shape: Shape, path: string, out: StatusCause[]): void {
  checkShape(value, shape, path, { out, max: MAX_CAUSES });
}

/**
 * Problems with the shape of `object` as an Instance (`metadata` required), one cause per
 * field, at most {@link MAX_CAUSES}. `prefix` names the object (`object`, `oldObject`) in
 * the paths when it is not the object being written.
 */
export function instanceShapeProblems(object: unknown, prefix = ''): StatusCause[] {
  const out: StatusCause[] = [];
  const root = prefix ? `${prefix}.` : '';
  if (!isRecord(object)) {
    return [
      {
        field: prefix || 'object',
        message: `must be a map, got ${kindOf(object)}`,
        reason: 'FieldValueInvalid',
      },
    ];
  }
  if (!isRecord(object['metadata'])) {
    out.push({
      field: `${root}metadata`,
      message:
        object['metadata'] === undefined
          ? 'required'
          : `must be a map, got ${kindOf(object['metadata'])}`,
      reason: object['metadata'] === undefined ? 'FieldValueRequired' : 'FieldValueInvalid',
    });
    return out;
  }
  for (const [key, fieldShape] of Object.entries(
    (INSTANCE as { fields: Record<string, Shape> }).fields,
  )) {
    const item = object[key];
    if (item !== null && item !== undefined) check(item, fieldShape, `${root}${key}`, out);
  }
  return out;
}

/**
 * `object` (already shape-checked) without the fields the shape knows that are `null`: JSON's
 * way of spelling an absent optional field becomes an absent field, so code after the check
 * that asks `field !== undefined` never meets a `null`. Copies only along the changed paths.
 */
export function withoutNullFields<T>(object: T): T {
  return dropNulls(object, INSTANCE) as T;
}

function dropNulls(value: unknown, shape: Shape): unknown {
  if (typeof shape === 'string' || value === null || typeof value !== 'object') return value;
  if ('list' in shape) {
    if (!Array.isArray(value)) return value;
    const items = value.map((item: unknown) => dropNulls(item, shape.list));
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  if (!isRecord(value)) return value;
  let copy: Record<string, unknown> | undefined;
  const entries: [string, Shape][] =
    'map' in shape
      ? Object.keys(value).map((key) => [key, shape.map])
      : Object.entries(shape.fields).filter(([key]) => Object.hasOwn(value, key));
  for (const [key, fieldShape] of entries) {
    const item = value[key];
    if (item === null && 'fields' in shape) {
      copy ??= { ...value };
      delete copy[key];
      continue;
    }
    const next = dropNulls(item, fieldShape);
    if (next !== item) {
      copy ??= { ...value };
      copy[key] = next;
    }
  }
  return copy ?? value;
}
