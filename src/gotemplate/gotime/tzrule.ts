// The POSIX TZ rule string ("EST5EDT,M3.2.0,M11.1.0") that ends a TZif v2+ file, as Go's
// tzset reads it: it decides the zone for instants after the file's last transition.
// Strings are byte strings (one char per byte), as in Go, so that positions agree.

import {
  daysBefore,
  daysIn,
  i64,
  internalToAbsolute,
  isLeap,
  secondsPerDay,
  u64,
  unixToInternal,
  yearYday,
} from './civil.ts';

export const alpha = -(1n << 63n);
export const omega = (1n << 63n) - 1n;

export interface ZoneAt {
  name: string;
  offset: number;
  start: bigint;
  end: bigint;
  isDST: boolean;
}

type Parsed<T> = [T, string] | undefined;

function tzsetName(s: string): Parsed<string> {
  if (s.length === 0) return undefined;
  if (s[0] !== '<') {
    for (let i = 0; i < s.length; i++) {
      if ('0123456789,-+'.includes(s[i]!)) {
        if (i < 3) return undefined;
        return [s.slice(0, i), s.slice(i)];
      }
    }
    if (s.length < 3) return undefined;
    return [s, ''];
  }
  const close = s.indexOf('>');
  if (close < 0) return undefined;
  return [s.slice(1, close), s.slice(close + 1)];
}

function tzsetNum(s: string, min: number, max: number): Parsed<number> {
  if (s.length === 0) return undefined;
  let num = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) {
      if (i === 0 || num < min) return undefined;
      return [num, s.slice(i)];
    }
    num = num * 10 + (c - 48);
    if (num > max) return undefined;
  }
  if (num < min) return undefined;
  return [num, ''];
}

/** An offset in seconds; tzdata allows hours up to 24*7 although POSIX does not. */
function tzsetOffset(s: string): Parsed<number> {
  if (s.length === 0) return undefined;
  let neg = false;
  if (s[0] === '+') s = s.slice(1);
  else if (s[0] === '-') {
    s = s.slice(1);
    neg = true;
  }
  const h = tzsetNum(s, 0, 24 * 7);
  if (!h) return undefined;
  let off = h[0] * 3600;
  s = h[1];
  if (s[0] === ':') {
    const m = tzsetNum(s.slice(1), 0, 59);
    if (!m) return undefined;
    off += m[0] * 60;
    s = m[1];
    if (s[0] === ':') {
      const sec = tzsetNum(s.slice(1), 0, 59);
      if (!sec) return undefined;
      off += sec[0];
      s = sec[1];
    }
  }
  return [neg ? -off : off, s];
}

type Rule =
  | { kind: 'julian'; day: number; time: number }
  | { kind: 'doy'; day: number; time: number }
  | { kind: 'mwd'; mon: number; week: number; day: number; time: number };

function tzsetRule(s: string): Parsed<Rule> {
  if (s.length === 0) return undefined;
  let r: Rule;
  if (s[0] === 'J') {
    const j = tzsetNum(s.slice(1), 1, 365);
    if (!j) return undefined;
    r = { kind: 'julian', day: j[0], time: 0 };
    s = j[1];
  } else if (s[0] === 'M') {
    const mon = tzsetNum(s.slice(1), 1, 12);
    if (!mon || mon[1][0] !== '.') return undefined;
    const week = tzsetNum(mon[1].slice(1), 1, 5);
    if (!week || week[1][0] !== '.') return undefined;
    const day = tzsetNum(week[1].slice(1), 0, 6);
    if (!day) return undefined;
    r = { kind: 'mwd', mon: mon[0], week: week[0], day: day[0], time: 0 };
    s = day[1];
  } else {
    const d = tzsetNum(s, 0, 365);
    if (!d) return undefined;
    r = { kind: 'doy', day: d[0], time: 0 };
    s = d[1];
  }
  if (s[0] !== '/') {
    r.time = 2 * 3600;
    return [r, s];
  }
  const off = tzsetOffset(s.slice(1));
  if (!off) return undefined;
  r.time = off[0];
  return [r, off[1]];
}

/** Seconds from the start of `year` (UTC) at which the rule fires, for a zone at `off`. */
function tzruleTime(year: bigint, r: Rule, off: number): bigint {
  const day = 86400n;
  let s: bigint;
  switch (r.kind) {
    case 'julian':
      s = BigInt(r.day - 1) * day;
      if (isLeap(year) && r.day >= 60) s += day;
      break;
    case 'doy':
      s = BigInt(r.day) * day;
      break;
    case 'mwd': {
      // Zeller's congruence gives the weekday of the first of the month.
      const m1 = BigInt(((r.mon + 9) % 12) + 1);
      const yy0 = r.mon <= 2 ? i64(year - 1n) : year;
      const yy1 = yy0 / 100n;
      const yy2 = yy0 % 100n;
      let dow = Number(
        i64(((26n * m1 - 2n) / 10n + 1n + yy2 + yy2 / 4n + yy1 / 4n - 2n * yy1) % 7n),
      );
      if (dow < 0) dow += 7;
      let d = r.day - dow;
      if (d < 0) d += 7;
      for (let i = 1; i < r.week; i++) {
        if (d + 7 >= daysIn(r.mon, year)) break;
        d += 7;
      }
      d += daysBefore(r.mon);
      if (isLeap(year) && r.mon > 2) d++;
      s = BigInt(d) * day;
      break;
    }
  }
  return i64(s + BigInt(r.time - off));
}

/**
 * The zone in effect at `sec` (Unix seconds) by the rule string `s`, given the file's
 * last transition; undefined when the string does not parse.
 */
// eslint-disable-next-line max-lines-per-function -- a statement-for-statement port of Go's time.tzset: kept whole so a difference the differential tests find maps onto Go's source line by line
export function tzset(s: string, lastTxSec: bigint, sec: bigint): ZoneAt | undefined {
  const std = tzsetName(s);
  if (!std) return undefined;
  const stdOff = tzsetOffset(std[1]);
  if (!stdOff) return undefined;
  let stdName = std[0];
  // The rule's offsets are added to local time to get UTC; ours go the other way.
  let stdOffset = -stdOff[0];
  s = stdOff[1];
  if (s.length === 0 || s[0] === ',') {
    return { name: stdName, offset: stdOffset, start: lastTxSec, end: omega, isDST: false };
  }

  const dst = tzsetName(s);
  if (!dst) return undefined;
  let dstName = dst[0];
  s = dst[1];
  let dstOffset: number;
  if (s.length === 0 || s[0] === ',') dstOffset = stdOffset + 3600;
  else {
    const o = tzsetOffset(s);
    if (!o) return undefined;
    dstOffset = -o[0];
    s = o[1];
  }

  // tzcode's default rules.
  if (s.length === 0) s = ',M3.2.0,M11.1.0';
  // POSIX only has ',' here, but tzcode also takes ';'.
  if (s[0] !== ',' && s[0] !== ';') return undefined;
  const startRule = tzsetRule(s.slice(1));
  if (!startRule || startRule[1][0] !== ',') return undefined;
  const endRule = tzsetRule(startRule[1].slice(1));
  if (!endRule || endRule[1].length > 0) return undefined;

  const { year, yday } = yearYday(
    u64(i64(i64(sec + unixToInternal) + internalToAbsolute)) / secondsPerDay,
  );
  const ysec = i64(BigInt(yday - 1) * secondsPerDay + (sec % secondsPerDay));
  const ystart = i64(sec - ysec);

  let startSec = tzruleTime(year, startRule[0], stdOffset);
  let endSec = tzruleTime(year, endRule[0], dstOffset);
  let dstIsDST = true;
  let stdIsDST = false;
  // In the southern hemisphere "DST" ends before it starts within a calendar year: swap
  // the periods but keep which one is flagged as DST.
  if (endSec < startSec) {
    [startSec, endSec] = [endSec, startSec];
    [stdName, dstName] = [dstName, stdName];
    [stdOffset, dstOffset] = [dstOffset, stdOffset];
    [stdIsDST, dstIsDST] = [dstIsDST, stdIsDST];
  }

  // Bounds are exact near a transition and otherwise just the year's; Date only needs that.
  if (ysec < startSec) {
    return {
      name: stdName,
      offset: stdOffset,
      start: ystart,
      end: i64(startSec + ystart),
      isDST: stdIsDST,
    };
  }
  if (ysec >= endSec) {
    return {
      name: stdName,
      offset: stdOffset,
      start: i64(endSec + ystart),
      end: i64(ystart + 365n * secondsPerDay),
      isDST: stdIsDST,
    };
  }
  return {
    name: dstName,
    offset: dstOffset,
    start: i64(startSec + ystart),
    end: i64(endSec + ystart),
    isDST: dstIsDST,
  };
}
