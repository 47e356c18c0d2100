/**
 * kuttl's partial match: every field given in `expected` must be present and equal in
 * `actual`; maps may have more keys in `actual`; lists must have the same length and match
 * element by element. Returns undefined on a match, else where and how they differ.
 */
export function subsetMismatch(expected: unknown, actual: unknown, path = ''): string | undefined {
  const where = path === '' ? '(root)' : path;
  if (expected === null || typeof expected !== 'object') {
    // YAML test files write numbers and strings loosely; the apiserver returns them typed.
    return expected === actual
      ? undefined
      : `${where}: expected ${show(expected)}, got ${show(actual)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${where}: expected a list, got ${show(actual)}`;
    if (expected.length !== actual.length) {
      return `${where}: expected ${expected.length} items, got ${actual.length}`;
    }
    for (let i = 0; i < expected.length; i++) {
      const m = subsetMismatch(expected[i], actual[i], `${path}[${i}]`);
      if (m) return m;
    }
    return undefined;
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
    return `${where}: expected an object, got ${show(actual)}`;
  }
  for (const [key, value] of Object.entries(expected)) {
    const m = subsetMismatch(
      value,
      (actual as Record<string, unknown>)[key],
      path ? `${path}.${key}` : key,
    );
    if (m) return m;
  }
  return undefined;
}

function show(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}
