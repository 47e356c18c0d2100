// Backslash escapes and bracketed classes, as regexp/syntax parses them with Perl flags.
// Each function takes the whole expression and an index, and returns the parsed value
// and the index after it, or throws Go's error with Go's excerpt.

import { Re2Error } from './errors.ts';
import { perlGroups, posixGroups } from './groups.ts';
import type { CharGroup } from './groups.ts';
import { clean, negate } from './ranges.ts';
import { checkUTF8, isalnum, nextRune, unhex } from './text.ts';
import { foldClosure, unicodeTable } from './unicode.ts';

const isOctal = (s: string, i: number): boolean => i < s.length && s[i]! >= '0' && s[i]! <= '7';

const C_ESCAPES: Readonly<Record<string, number>> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 };

/** A single-character escape at s[i] === '\\' (octal, hex, C escapes, escaped punctuation). */
export function parseEscape(s: string, i: number): [number, number] {
  if (i + 1 >= s.length) throw new Re2Error('trailing backslash at end of expression', '');
  const [c, after] = nextRune(s, i + 1);
  const r = escapeValue(s, c, after);
  if (r) return r;
  // Go reports what it consumed while deciding the escape was bad.
  throw new Re2Error('invalid escape sequence', s.slice(i, badEnd(s, c, after)));
}

function escapeValue(s: string, c: number, t: number): [number, number] | undefined {
  const ch = String.fromCodePoint(c);
  if (c < 0x80 && !isalnum(c)) return [c, t];
  // \1-\7 alone would be a backreference, which RE2 does not have.
  if ((ch >= '1' && ch <= '7' && isOctal(s, t)) || ch === '0') {
    let r = c - 0x30;
    for (let k = 1; k < 3 && isOctal(s, t); k++, t++) r = r * 8 + s.charCodeAt(t) - 0x30;
    return [r, t];
  }
  if (ch === 'x') return hexEscape(s, t)?.value;
  const simple = C_ESCAPES[ch];
  return simple === undefined ? undefined : [simple, t];
}

interface HexResult {
  value?: [number, number];
  end: number;
}

/** \xFF or \x{10FFFF}; `end` is how far Go read when it gave up. */
function hexEscape(s: string, t: number): HexResult | undefined {
  if (t >= s.length) return undefined;
  let c: number;
  [c, t] = nextRune(s, t);
  if (c === 0x7b) {
    let r = 0;
    let nhex = 0;
    for (;;) {
      if (t >= s.length) return { end: t };
      [c, t] = nextRune(s, t);
      if (c === 0x7d) break;
      const v = unhex(c);
      if (v < 0) return { end: t };
      r = r * 16 + v;
      if (r > 0x10ffff) return { end: t };
      nhex++;
    }
    return nhex === 0 ? { end: t } : { value: [r, t], end: t };
  }
  const x = unhex(c);
  [c, t] = nextRune(s, t);
  const y = unhex(c);
  return x < 0 || y < 0 ? { end: t } : { value: [x * 16 + y, t], end: t };
}

function badEnd(s: string, c: number, t: number): number {
  return c === 0x78 ? (hexEscape(s, t)?.end ?? t) : t;
}

function groupRanges(g: CharGroup, fold: boolean): number[] {
  const r = fold ? foldClosure(g.ranges) : [...g.ranges];
  return g.negated ? negate(r) : r;
}

/** \d \s \w and their negations at s[i], if present. */
export function parsePerlClassEscape(
  s: string,
  i: number,
  fold: boolean,
): [number[], number] | undefined {
  const g = perlGroups.get(s.slice(i, i + 2));
  return g ? [groupRanges(g, fold), i + 2] : undefined;
}

/** \pL, \p{Greek}, \PL, \p{^L} at s[i], if s[i] starts one; errors once committed. */
export function parseUnicodeClass(
  s: string,
  i: number,
  fold: boolean,
): [number[], number] | undefined {
  if (s[i] !== '\\' || (s[i + 1] !== 'p' && s[i + 1] !== 'P')) return undefined;
  let sign = s[i + 1] === 'P' ? -1 : 1;
  const [c, next] = nextRune(s, i + 2);
  let t = next;
  let seq: string;
  let name: string;
  if (c !== 0x7b) {
    seq = s.slice(i, t);
    name = seq.slice(2);
  } else {
    const end = s.indexOf('}', i);
    if (end < 0) {
      checkUTF8(s.slice(i));
      throw new Re2Error('invalid character class range', s.slice(i));
    }
    seq = s.slice(i, end + 1);
    t = end + 1;
    name = s.slice(i + 3, end);
    checkUTF8(name);
  }
  if (name.startsWith('^')) {
    sign = -sign;
    name = name.slice(1);
  }
  const tab = unicodeTable(name);
  if (!tab) throw new Re2Error('invalid character class range', seq);
  if (tab.negated) sign = -sign;
  const r = tab.ranges(fold);
  return [sign > 0 ? [...r] : negate(r), t];
}

/** [:alpha:] and friends at s[i] (inside brackets), if present. */
function parseNamedClass(s: string, i: number, fold: boolean): [number[], number] | undefined {
  const close = s.indexOf(':]', i + 2);
  if (close < 0) return undefined;
  const name = s.slice(i, close + 2);
  const g = posixGroups.get(name);
  if (!g) throw new Re2Error('invalid character class range', name);
  return [groupRanges(g, fold), close + 2];
}

function parseClassChar(s: string, i: number, classStart: number): [number, number] {
  if (i >= s.length) throw new Re2Error('missing closing ]', s.slice(classStart));
  return s[i] === '\\' ? parseEscape(s, i) : nextRune(s, i);
}

/** A bracketed class at s[i] === '['; returns its code point ranges, negation applied. */
export function parseClass(s: string, i: number, fold: boolean): [number[], number] {
  let t = i + 1;
  let negated = false;
  if (s[t] === '^') {
    negated = true;
    t++;
  }
  const out: number[] = [];
  // ] and - are literal as the first character.
  let first = true;
  while (t >= s.length || s[t] !== ']' || first) {
    first = false;
    const special =
      (s.length - t > 2 && s[t] === '[' && s[t + 1] === ':'
        ? parseNamedClass(s, t, fold)
        : undefined) ??
      parseUnicodeClass(s, t, fold) ??
      (s[t] === '\\' ? parsePerlClassEscape(s, t, fold) : undefined);
    if (special) {
      out.push(...special[0]);
      t = special[1];
      continue;
    }
    const rangeStart = t;
    let lo: number;
    [lo, t] = parseClassChar(s, t, i);
    let hi = lo;
    // [a-] is a and -, so a - needs something other than ] after it to make a range.
    if (s.length - t >= 2 && s[t] === '-' && s[t + 1] !== ']') {
      [hi, t] = parseClassChar(s, t + 1, i);
      if (hi < lo) throw new Re2Error('invalid character class range', s.slice(rangeStart, t));
    }
    out.push(...(fold ? foldClosure([lo, hi]) : [lo, hi]));
  }
  const ranges = clean(out);
  return [negated ? negate(ranges) : ranges, t + 1];
}
