// time.Duration (int64 nanoseconds): String, Round and ParseDuration.

import { i64, maxInt64, minInt64, u64 } from './civil.ts';
import { quote } from './quote.ts';

export const nanosecond = 1n;
export const microsecond = 1000n;
export const millisecond = 1_000_000n;
export const second = 1_000_000_000n;
export const minute = 60n * second;
export const hour = 60n * minute;

/** Digits of v below `prec` places, trailing zeros dropped; returns the text and v / 10^prec. */
function fmtFrac(v: bigint, prec: number): [string, bigint] {
  let out = '';
  let print = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    print = print || digit !== 0n;
    if (print) out = digit.toString() + out;
    v /= 10n;
  }
  return [print ? '.' + out : '', v];
}

export function durationString(d: bigint): string {
  let u = u64(d);
  const neg = d < 0n;
  if (neg) u = u64(-u);
  let out: string;
  if (u < second) {
    // Sub-second durations use a smaller unit so that there is a leading digit.
    let prec: number;
    let unit: string;
    if (u === 0n) return '0s';
    if (u < microsecond) {
      prec = 0;
      unit = 'ns';
    } else if (u < millisecond) {
      prec = 3;
      unit = 'µs';
    } else {
      prec = 6;
      unit = 'ms';
    }
    const [frac, rest] = fmtFrac(u, prec);
    out = rest.toString() + frac + unit;
  } else {
    const [frac, rest] = fmtFrac(u, 9);
    u = rest;
    out = (u % 60n).toString() + frac + 's';
    u /= 60n;
    if (u > 0n) {
      out = (u % 60n).toString() + 'm' + out;
      u /= 60n;
      if (u > 0n) out = u.toString() + 'h' + out;
    }
  }
  return neg ? '-' + out : out;
}

function lessThanHalf(x: bigint, y: bigint): boolean {
  return u64(u64(x) + u64(x)) < u64(y);
}

/** Duration.Round: halfway values round away from zero; saturates on overflow. */
export function roundDuration(d: bigint, m: bigint): bigint {
  if (m <= 0n) return d;
  let r = d % m;
  if (d < 0n) {
    r = -r;
    if (lessThanHalf(r, m)) return d + r;
    const d1 = i64(d - m + r);
    return d1 < d ? d1 : minInt64;
  }
  if (lessThanHalf(r, m)) return d - r;
  const d1 = i64(d + m - r);
  return d1 > d ? d1 : maxInt64;
}

export class ParseDurationError extends Error {
  constructor(message: string, value: string) {
    super(`time: ${message} ${quote(value)}`);
  }
}

const unitMap = new Map<string, bigint>([
  ['ns', nanosecond],
  ['us', microsecond],
  ['\xc2\xb5s', microsecond], // U+00B5 micro sign, as UTF-8 bytes
  ['\xce\xbcs', microsecond], // U+03BC Greek mu
  ['ms', millisecond],
  ['s', second],
  ['m', minute],
  ['h', hour],
]);

const twoTo63 = 1n << 63n;

/** Leading decimal digits as uint64; undefined past 2^63, as Go's leadingInt. */
export function leadingInt(s: string): { x: bigint; rem: string } | undefined {
  let x = 0n;
  let i = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) break;
    if (x > twoTo63 / 10n) return undefined;
    x = x * 10n + BigInt(c - 48);
    if (x > twoTo63) return undefined;
  }
  return { x, rem: s.slice(i) };
}

/** Digits after a decimal point; those past int64 precision are skipped, not an error. */
function leadingFraction(s: string): { x: bigint; scale: number; rem: string } {
  let i = 0;
  let x = 0n;
  let scale = 1;
  let overflow = false;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) break;
    if (overflow) continue;
    if (x > maxInt64 / 10n) {
      overflow = true;
      continue;
    }
    const y = x * 10n + BigInt(c - 48);
    if (y > twoTo63) {
      overflow = true;
      continue;
    }
    x = y;
    scale *= 10;
  }
  return { x, scale, rem: s.slice(i) };
}

/** time.ParseDuration on a byte string (one char per UTF-8 byte). */
export function parseDuration(orig: string): bigint {
  let s = orig;
  let d = 0n;
  let neg = false;
  if (s !== '') {
    const c = s[0];
    if (c === '-' || c === '+') {
      neg = c === '-';
      s = s.slice(1);
    }
  }
  if (s === '0') return 0n;
  if (s === '') throw new ParseDurationError('invalid duration', orig);
  while (s !== '') {
    let f = 0n;
    let scale = 1;
    const c0 = s.charCodeAt(0);
    if (!(s[0] === '.' || (c0 >= 48 && c0 <= 57)))
      throw new ParseDurationError('invalid duration', orig);
    const pl = s.length;
    const li = leadingInt(s);
    if (!li) throw new ParseDurationError('invalid duration', orig);
    let v = li.x;
    s = li.rem;
    const pre = pl !== s.length;
    let post = false;
    if (s !== '' && s[0] === '.') {
      s = s.slice(1);
      const pl2 = s.length;
      ({ x: f, scale, rem: s } = leadingFraction(s));
      post = pl2 !== s.length;
    }
    if (!pre && !post) throw new ParseDurationError('invalid duration', orig);
    let i = 0;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 46 || (c >= 48 && c <= 57)) break;
    }
    if (i === 0) throw new ParseDurationError('missing unit in duration', orig);
    const u = s.slice(0, i);
    s = s.slice(i);
    const unit = unitMap.get(u);
    if (unit === undefined)
      throw new ParseDurationError(`unknown unit ${quote(u)} in duration`, orig);
    if (v > twoTo63 / unit) throw new ParseDurationError('invalid duration', orig);
    v *= unit;
    if (f > 0n) {
      // float64 arithmetic, truncated, exactly as Go does it.
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > twoTo63) throw new ParseDurationError('invalid duration', orig);
    }
    d = u64(d + v);
    if (d > twoTo63) throw new ParseDurationError('invalid duration', orig);
  }
  if (neg) return i64(-d);
  if (d > maxInt64) throw new ParseDurationError('invalid duration', orig);
  return d;
}
