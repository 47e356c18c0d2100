/**
 * go-yaml v2's key order (keyList.Less): letters after non-letters, digit runs compared as
 * numbers (int64 arithmetic, wrapping as Go's does), then code points.
 */

const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;

// ASCII answered without a string and a regular expression per character: keys are sorted
// for every object hashed, and nearly all of their characters are ASCII (where \p{L} is
// exactly A-Z a-z and \p{Nd} exactly 0-9).
function isLetter(cp: number): boolean {
  if (cp < 0x80) return (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a);
  return LETTER.test(String.fromCodePoint(cp));
}

function isDigit(cp: number): boolean {
  if (cp < 0x80) return cp >= 0x30 && cp <= 0x39;
  return DIGIT.test(String.fromCodePoint(cp));
}

/**
 * A string's code points: the string itself when none of its characters is a surrogate pair
 * (each code unit is then a code point), else an array. Sorting the keys of every object
 * hashed then allocates nothing for the usual keys.
 */
export type CodePoints = string | readonly number[];

const SURROGATE = /[\uD800-\uDFFF]/;

function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0) ?? 0);
  return out;
}

export function codePointsOf(s: string): CodePoints {
  return SURROGATE.test(s) ? codePoints(s) : s;
}

export function codePointArray(s: CodePoints): readonly number[] {
  return typeof s === 'string' ? codePoints(s) : s;
}

export function at(s: CodePoints, i: number): number {
  return typeof s === 'string' ? s.charCodeAt(i) : (s[i] ?? 0);
}

/** go-yaml's keyList.Less for two string keys. */
export function goYamlKeyLess(a: string, b: string): boolean {
  return codePointsLess(codePointsOf(a), codePointsOf(b));
}

function codePointsLess(ar: CodePoints, br: CodePoints): boolean {
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const x = at(ar, i);
    const y = at(br, i);
    if (x === y) continue;
    const xl = isLetter(x);
    const yl = isLetter(y);
    if (xl && yl) return x < y;
    if (xl || yl) return yl;
    let an = 0n;
    let bn = 0n;
    if (x === 0x30 || y === 0x30) {
      for (let j = i - 1; j >= 0 && isDigit(at(ar, j)); j--) {
        if (at(ar, j) !== 0x30) {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(at(ar, ai)); ai++) {
      an = BigInt.asIntN(64, an * 10n + BigInt(at(ar, ai) - 0x30));
    }
    let bi = i;
    for (; bi < br.length && isDigit(at(br, bi)); bi++) {
      bn = BigInt.asIntN(64, bn * 10n + BigInt(at(br, bi) - 0x30));
    }
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return x < y;
  }
  return ar.length < br.length;
}

/**
 * Keys in go-yaml's order (sorted in place). For a few key sets that mix digit runs and
 * letters (`a10`, `a1b`, `a9`) go-yaml's comparison is not transitive; Go then sorts keys
 * taken in random map order, so go-yaml's own output (and KUDO's hash) varies from run to
 * run, and any order is as good.
 */
export function sortYamlKeys(keys: string[]): string[] {
  if (keys.length < 2) return keys;
  if (!keys.some((key) => SURROGATE.test(key))) {
    return keys.sort((a, b) => (codePointsLess(a, b) ? -1 : codePointsLess(b, a) ? 1 : 0));
  }
  // Each key taken apart into code points once, not twice per comparison.
  const decorated = keys.map((key) => ({ key, cps: codePointsOf(key) }));
  decorated.sort((a, b) =>
    codePointsLess(a.cps, b.cps) ? -1 : codePointsLess(b.cps, a.cps) ? 1 : 0,
  );
  return decorated.map((d) => d.key);
}
