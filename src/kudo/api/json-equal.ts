/**
 * Equality of two JSON values as the API means it: same members with equal values, in any
 * key order. node:util's isDeepStrictEqual also compares prototypes, which differ between
 * objects from different realms (a worker, a test sandbox) although the JSON is the same.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x).filter((k) => x[k] !== undefined);
  if (keys.length !== Object.keys(y).filter((k) => y[k] !== undefined).length) return false;
  return keys.every((k) => Object.hasOwn(y, k) && jsonEqual(x[k], y[k]));
}
