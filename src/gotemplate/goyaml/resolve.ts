/**
 * What go-yaml v2 (v2.3.0, KUDO 0.19's version) asks of a scalar before writing it: whether a
 * string written plain would read back (YAML 1.1 resolution) as something else — then it is
 * double-quoted — and how a float64 is spelled.
 */

import { formatFloat } from '../fmt.ts';
import { underscoreOK } from '../numbers.ts';

/** The style go-yaml's encoder requests; the emitter may still fall back to a stricter one. */
export type ScalarStyle = 'plain' | 'single' | 'double' | 'literal';

const RESOLVED_WORDS = new Set([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'],
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'],
  ...['', '~', 'null', 'Null', 'NULL'],
  ...['.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'],
  ...['-.inf', '-.Inf', '-.INF'],
]);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * Go's strconv.ParseInt / ParseUint(s, 0, 64) succeeding for text without underscores (go-yaml
 * removes them first): optional sign (signed only), base prefix 0x/0o/0b or a leading 0
 * (octal), digits of the base, within range.
 */
function parsesAsGoInteger(s: string, unsigned: boolean): boolean {
  let rest = s;
  let negative = false;
  if (rest.startsWith('+') || rest.startsWith('-')) {
    if (unsigned) return false;
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  let base = 10;
  let digits = rest;
  if (/^0[xX]/.test(rest)) [base, digits] = [16, rest.slice(2)];
  else if (/^0[bB]/.test(rest)) [base, digits] = [2, rest.slice(2)];
  else if (/^0[oO]/.test(rest)) [base, digits] = [8, rest.slice(2)];
  else if (rest.length > 1 && rest.startsWith('0')) [base, digits] = [8, rest.slice(1)];
  const valid = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ }[base];
  if (!valid?.test(digits)) return false;
  const prefix = { 2: '0b', 8: '0o', 10: '', 16: '0x' }[base] ?? '';
  const value = BigInt(`${prefix}${digits}`) * (negative ? -1n : 1n);
  return unsigned ? value <= UINT64_MAX : value >= INT64_MIN && value <= INT64_MAX;
}

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/**
 * Go's strconv.ParseFloat(s, 64) succeeding for a decimal text (go-yaml only ever asks about
 * texts that cannot be hexadecimal): `inf`/`infinity` with an optional sign, `nan`, or digits
 * with at most one point, an optional exponent, Go's underscore rule, and a finite value.
 */
function parsesAsGoFloat(s: string): boolean {
  if (/^[+-]?(inf|infinity)$/i.test(s) || /^nan$/i.test(s)) return true;
  const m = /^[+-]?([0-9_]*)(?:\.([0-9_]*))?(?:[eE][+-]?([0-9][0-9_]*))?$/.exec(s);
  if (!m) return false;
  if (!/[0-9]/.test(`${m[1] ?? ''}${m[2] ?? ''}`)) return false;
  if (s.includes('_') && !underscoreOK(s)) return false;
  return Number.isFinite(Number(s.replaceAll('_', '')));
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** go-yaml's parseTimestamp: 4 digits, `-`, then one of four time.Parse layouts. */
function isTimestamp(s: string): boolean {
  if (!/^[0-9]{4}-/.test(s)) return false;
  // 2006-1-2, optionally [Tt ]15:4:5[.frac], and with [Tt] a zone (Z or ±hh:mm).
  const m =
    /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:([Tt ])([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$/.exec(
      s,
    );
  if (!m) return false;
  const [, year, month, day, sep, hour, minute, second, zone] = m;
  const mo = Number(month);
  const d = Number(day);
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, Number(year))) return false;
  if (sep === undefined) return true;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return false;
  // The layouts with T/t require a zone; the space-separated one has none.
  if (sep === ' ') return zone === undefined;
  if (zone === undefined) return false;
  if (zone !== 'Z' && (Number(zone.slice(1, 3)) > 24 || Number(zone.slice(4, 6)) > 60)) {
    return false;
  }
  return true;
}

/** Whether go-yaml would read `s`, written plain, as something other than a string. */
function resolvesToNonString(s: string): boolean {
  if (RESOLVED_WORDS.has(s)) return true;
  const first = s[0] ?? '';
  if (first === '.') return parsesAsGoFloat(s);
  if (!/[-+0-9]/.test(first)) return false;
  if (isTimestamp(s)) return true;
  const plain = s.replaceAll('_', '');
  if (parsesAsGoInteger(plain, false) || parsesAsGoInteger(plain, true)) return true;
  return YAML_STYLE_FLOAT.test(plain) && parsesAsGoFloat(plain);
}

/** The style go-yaml's encoder (stringv) requests for a string. */
export function stringStyle(s: string): ScalarStyle {
  if (s.includes('\n')) return 'literal';
  const plainOk = !resolvesToNonString(s) && !BASE60_FLOAT.test(s);
  return plainOk ? 'plain' : 'double';
}

/** go-yaml's floatv: strconv.FormatFloat(f, 'g', -1, 64), infinities and NaN in YAML words. */
export function yamlFloat(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  if (f === Infinity) return '.inf';
  if (f === -Infinity) return '-.inf';
  return formatFloat(f, 'g', -1);
}
