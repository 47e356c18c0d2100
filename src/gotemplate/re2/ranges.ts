// Character classes as sorted, disjoint [lo, hi] code point pairs (Go keeps rune pairs the
// same way; keeping them normalised at every step is simpler and matches the same set).

export type Ranges = readonly number[];

export const MAX_RUNE = 0x10ffff;

/** Sort and merge overlapping or abutting pairs. */
export function clean(r: readonly number[]): number[] {
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < r.length; i += 2) pairs.push([r[i]!, r[i + 1]!]);
  pairs.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: number[] = [];
  for (const [lo, hi] of pairs) {
    const n = out.length;
    if (n > 0 && lo <= out[n - 1]! + 1) {
      if (hi > out[n - 1]!) out[n - 1] = hi;
    } else out.push(lo, hi);
  }
  return out;
}

export function negate(r: Ranges): number[] {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i + 1 < r.length; i += 2) {
    if (next <= r[i]! - 1) out.push(next, r[i]! - 1);
    next = r[i + 1]! + 1;
  }
  if (next <= MAX_RUNE) out.push(next, MAX_RUNE);
  return out;
}

export function union(a: Ranges, b: Ranges): number[] {
  return clean([...a, ...b]);
}

export function contains(r: Ranges, c: number): boolean {
  for (let i = 0; i + 1 < r.length; i += 2) if (r[i]! <= c && c <= r[i + 1]!) return true;
  return false;
}
