/**
 * The Instance status as the engine may read it. The CRD stores `status` untyped
 * (x-kubernetes-preserve-unknown-fields: a typed schema made every status write cost the
 * apiserver more, bench/apiserver-cost.ts), so anyone with rights on `instances/status` can store any JSON there.
 * Every engine read of the status goes through {@link readStatus} once per reconcile: a part
 * of the wrong shape is named and treated as absent (the controller then writes the status
 * back in the right shape), never tripped over. Nothing is copied when the status fits.
 */
import {
  checkShape,
  CONDITION_SHAPE,
  isRecord,
  kindOf,
  PLAN_EXECUTION_STATUS_SHAPE,
  PLAN_STATUS_SHAPE,
  childPath,
  type ShapeProblem,
} from './shape-check.ts';
import type { Instance } from './types.ts';

/** At most this many problems are named (one Event message). */
const MAX_PROBLEMS = 10;

export interface StatusRead {
  /** The Instance itself when its status fits; else a shallow copy with the bad parts left out. */
  readonly instance: Instance;
  /** What was left out, one per field. Empty when the status fits. */
  readonly problems: readonly ShapeProblem[];
}

function invalid(field: string, message: string): ShapeProblem {
  return { field, message, reason: 'FieldValueInvalid' };
}

/** Problems of `value` against the shape, null list items counted as wrong. */
function problemsOf(
  value: unknown,
  shape: Parameters<typeof checkShape>[1],
  path: string,
): ShapeProblem[] {
  const out: ShapeProblem[] = [];
  checkShape(value, shape, path, { out, max: MAX_PROBLEMS, nullItems: false });
  return out;
}

/** Inventory entries must at least be maps naming version, kind and name as strings. */
function inventoryItemProblem(item: unknown, path: string): ShapeProblem | undefined {
  if (!isRecord(item)) return invalid(path, `must be a map, got ${kindOf(item)}`);
  for (const key of ['version', 'kind', 'name'] as const) {
    if (typeof item[key] !== 'string')
      return invalid(`${path}.${key}`, `must be a string, got ${kindOf(item[key])}`);
  }
  return undefined;
}

/**
 * Checks the shape of `instance.status` once; see the module comment. Unknown fields are kept
 * as they are (they are not read).
 */
export function readStatus(instance: Instance): StatusRead {
  const raw: unknown = instance.status;
  if (raw === undefined || raw === null) return { instance, problems: [] };
  if (!isRecord(raw)) {
    const rest = { ...instance };
    delete rest.status;
    return { instance: rest, problems: [invalid('status', `must be a map, got ${kindOf(raw)}`)] };
  }
  const problems: ShapeProblem[] = [];
  let fixed: Record<string, unknown> | undefined;
  const drop = (key: string): void => {
    fixed ??= { ...raw };
    delete fixed[key];
  };

  const pe = raw['planExecution'];
  if (pe !== undefined && pe !== null) {
    const found = problemsOf(pe, PLAN_EXECUTION_STATUS_SHAPE, 'status.planExecution');
    if (found.length > 0) {
      problems.push(...found);
      drop('planExecution');
    }
  }

  const plans = raw['planStatus'];
  if (plans !== undefined && plans !== null) {
    if (!isRecord(plans)) {
      problems.push(invalid('status.planStatus', `must be a map, got ${kindOf(plans)}`));
      drop('planStatus');
    } else {
      let kept: Record<string, unknown> | undefined;
      for (const [name, plan] of Object.entries(plans)) {
        const found = problemsOf(plan, PLAN_STATUS_SHAPE, childPath('status.planStatus', name));
        if (found.length === 0) continue;
        problems.push(...found);
        kept ??= Object.assign(Object.create(null) as Record<string, unknown>, plans);
        delete kept[name];
      }
      if (kept) (fixed ??= { ...raw })['planStatus'] = kept;
    }
  }

  // A list field: not a list → dropped whole; items of the wrong shape → left out one by one.
  const checkList = (
    key: string,
    itemProblems: (item: unknown, path: string) => ShapeProblem[],
  ): void => {
    const list = raw[key];
    if (list === undefined || list === null) return;
    if (!Array.isArray(list)) {
      problems.push(invalid(`status.${key}`, `must be a list, got ${kindOf(list)}`));
      drop(key);
      return;
    }
    const bad = list.map((item: unknown, i) => {
      const found = itemProblems(item, `status.${key}[${i}]`);
      problems.push(...found);
      return found.length > 0;
    });
    if (bad.some(Boolean)) (fixed ??= { ...raw })[key] = list.filter((_, i) => !bad[i]);
  };

  checkList('conditions', (c, path) => {
    const found = problemsOf(c, CONDITION_SHAPE, path);
    if (isRecord(c) && typeof c['type'] !== 'string' && found.length === 0)
      found.push(invalid(`${path}.type`, `must be a string, got ${kindOf(c['type'])}`));
    return found;
  });
  checkList('inventory', (item, path) => {
    const found = inventoryItemProblem(item, path);
    return found ? [found] : [];
  });

  if (!fixed) return { instance, problems };
  return {
    instance: { ...instance, status: fixed },
    problems: problems.slice(0, MAX_PROBLEMS),
  };
}

/** One line naming the fields left out, for a log line and a Warning Event. */
export function describeStatusProblems(problems: readonly ShapeProblem[]): string {
  return problems.map((p) => `${p.field} ${p.message}`).join('; ');
}
