// time.ParseInLocation. Layout and value are handled as byte strings (one char per UTF-8
// byte) because Go slices them by byte and its error messages escape bytes.

import {
  daysBefore,
  daysIn,
  isLeap,
  longDayNames,
  longMonthNames,
  shortDayNames,
  shortMonthNames,
} from './civil.ts';
import { leadingInt } from './duration.ts';
import { RFC3339, RFC3339Nano, Std, digitsLen, isDigit, nextStdChunk, stdMask } from './format.ts';
import { quote, toBytes } from './quote.ts';
import { addSec, dateOf, setLoc, unixSec } from './time.ts';
import type { Time } from './time.ts';
import { FixedZone, UTC, lookup, lookupName } from './zoneinfo.ts';
import type { Location } from './zoneinfo.ts';

export class ParseError extends Error {
  constructor(layout: string, value: string, layoutElem: string, valueElem: string, msg: string) {
    super(
      msg === ''
        ? `parsing time ${quote(value)} as ${quote(layout)}: cannot parse ${quote(valueElem)} as ${quote(layoutElem)}`
        : `parsing time ${quote(value)}${msg}`,
    );
  }
}

/** Internal "bad value for field"; reported as a ParseError naming the element. */
class Bad {}
const bad = new Bad();

/** Case-insensitive match of ASCII letters, exact otherwise. */
function match(s1: string, s2: string): boolean {
  for (let i = 0; i < s1.length; i++) {
    let c1 = s1.charCodeAt(i);
    let c2 = s2.charCodeAt(i);
    if (c1 !== c2) {
      c1 |= 0x20;
      c2 |= 0x20;
      if (c1 !== c2 || c1 < 97 || c1 > 122) return false;
    }
  }
  return true;
}

function lookupTab(tab: readonly string[], val: string): [number, string] | Bad {
  for (let i = 0; i < tab.length; i++) {
    const v = tab[i]!;
    if (val.length >= v.length && match(val.slice(0, v.length), v)) return [i, val.slice(v.length)];
  }
  return bad;
}

/** Where a numeric zone offset's fields sit, by layout element: Go reads them by position. */
interface OffsetShape {
  readonly length: number;
  readonly colons: readonly number[];
  /** Start of the minutes and seconds; absent fields read as "00". */
  readonly mm?: number;
  readonly ss?: number;
}

const OFFSET_SHAPES = new Map<number, OffsetShape>([
  [Std.NumTZ, { length: 5, colons: [], mm: 3 }],
  [Std.ISO8601TZ, { length: 5, colons: [], mm: 3 }],
  [Std.NumShortTZ, { length: 3, colons: [] }],
  [Std.ISO8601ShortTZ, { length: 3, colons: [] }],
  [Std.NumColonTZ, { length: 6, colons: [3], mm: 4 }],
  [Std.ISO8601ColonTZ, { length: 6, colons: [3], mm: 4 }],
  [Std.NumSecondsTz, { length: 7, colons: [], mm: 3, ss: 5 }],
  [Std.ISO8601SecondsTZ, { length: 7, colons: [], mm: 3, ss: 5 }],
  [Std.NumColonSecondsTZ, { length: 9, colons: [3, 6], mm: 4, ss: 7 }],
  [Std.ISO8601ColonSecondsTZ, { length: 9, colons: [3, 6], mm: 4, ss: 7 }],
]);

/** The ISO 8601 forms, which also accept "Z" for UTC. */
const ISO_OFFSETS: ReadonlySet<number> = new Set([
  Std.ISO8601TZ,
  Std.ISO8601ShortTZ,
  Std.ISO8601ColonTZ,
  Std.ISO8601SecondsTZ,
  Std.ISO8601ColonSecondsTZ,
]);

function getnum(s: string, fixed: boolean): [number, string] | Bad {
  if (!isDigit(s, 0)) return bad;
  if (!isDigit(s, 1)) {
    if (fixed) return bad;
    return [s.charCodeAt(0) - 48, s.slice(1)];
  }
  return [(s.charCodeAt(0) - 48) * 10 + (s.charCodeAt(1) - 48), s.slice(2)];
}

function getnum3(s: string, fixed: boolean): [number, string] | Bad {
  let n = 0;
  let i = 0;
  for (; i < 3 && isDigit(s, i); i++) n = n * 10 + (s.charCodeAt(i) - 48);
  if (i === 0 || (fixed && i !== 3)) return bad;
  return [n, s.slice(i)];
}

function cutspace(s: string): string {
  let i = 0;
  while (i < s.length && s[i] === ' ') i++;
  return s.slice(i);
}

/**
 * Consume the layout's literal text; a space in it matches any run of spaces. On a
 * mismatch the value is returned as consumed so far, which is what Go's error quotes.
 */
function skip(value: string, prefix: string): { value: string; ok: boolean } {
  while (prefix.length > 0) {
    if (prefix[0] === ' ') {
      if (value.length > 0 && value[0] !== ' ') return { value, ok: false };
      prefix = cutspace(prefix);
      value = cutspace(value);
      continue;
    }
    if (value.length === 0 || value[0] !== prefix[0]) return { value, ok: false };
    prefix = prefix.slice(1);
    value = value.slice(1);
  }
  return { value, ok: true };
}

/** Go's atoi for the time package: optional sign, then digits only. */
function atoi(s: string): number | Bad {
  let neg = false;
  if (s.length > 0 && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  const r = leadingInt(s);
  if (!r || r.rem.length > 0) return bad;
  const x = Number(BigInt.asIntN(64, r.x));
  return neg ? -x : x;
}

function commaOrPeriod(c: string | undefined): boolean {
  return c === '.' || c === ',';
}

/** Digits after the separator in value[0:nbytes], scaled to nanoseconds. */
function parseNanoseconds(value: string, nbytes: number): [number, string] | Bad {
  if (!commaOrPeriod(value[0])) return bad;
  if (nbytes > 10) nbytes = 10;
  const ns = atoi(value.slice(1, nbytes));
  if (ns instanceof Bad) return ns;
  if (ns < 0) return [0, 'fractional second'];
  return [ns * 10 ** (10 - nbytes), ''];
}

function parseSignedOffset(value: string): number {
  const sign = value[0];
  if (sign !== '-' && sign !== '+') return 0;
  const r = leadingInt(value.slice(1));
  if (!r || r.rem === value.slice(1)) return 0;
  if (r.x > 23n) return 0;
  return value.length - r.rem.length;
}

function parseGMT(value: string): number {
  value = value.slice(3);
  if (value.length === 0) return 3;
  return 3 + parseSignedOffset(value);
}

/** Length of a zone abbreviation at the start of value: 3-5 capitals, GMT±h, ±hh... */
function parseTimeZone(value: string): number | undefined {
  if (value.length < 3) return undefined;
  if (value.startsWith('ChST') || value.startsWith('MeST')) return 4;
  if (value.startsWith('GMT')) return parseGMT(value);
  if (value[0] === '+' || value[0] === '-') {
    const n = parseSignedOffset(value);
    return n > 0 ? n : undefined;
  }
  let nUpper = 0;
  for (; nUpper < 6 && nUpper < value.length; nUpper++) {
    const c = value.charCodeAt(nUpper);
    if (c < 65 || c > 90) break;
  }
  switch (nUpper) {
    case 0:
    case 1:
    case 2:
    case 6:
      return undefined;
    case 5:
      return value[4] === 'T' ? 5 : undefined;
    case 4:
      return value[3] === 'T' || value.startsWith('WITA') ? 4 : undefined;
    case 3:
      return 3;
  }
  return undefined;
}

function parseRFC3339(s: string, local: Location): Time | undefined {
  let ok = true;
  const parseUint = (p: string, min: number, max: number): number => {
    let x = 0;
    for (let i = 0; i < p.length; i++) {
      const c = p.charCodeAt(i);
      if (c < 48 || c > 57) {
        ok = false;
        return min;
      }
      x = x * 10 + (c - 48);
    }
    if (x < min || max < x) {
      ok = false;
      return min;
    }
    return x;
  };
  if (s.length < 19) return undefined;
  const year = parseUint(s.slice(0, 4), 0, 9999);
  const month = parseUint(s.slice(5, 7), 1, 12);
  const day = parseUint(s.slice(8, 10), 1, daysIn(month, BigInt(year)));
  const hour = parseUint(s.slice(11, 13), 0, 23);
  const min = parseUint(s.slice(14, 16), 0, 59);
  const sec = parseUint(s.slice(17, 19), 0, 59);
  if (!ok || !(s[4] === '-' && s[7] === '-' && s[10] === 'T' && s[13] === ':' && s[16] === ':'))
    return undefined;
  s = s.slice(19);
  let nsec = 0;
  if (s.length >= 2 && s[0] === '.' && isDigit(s, 1)) {
    let n = 2;
    while (n < s.length && isDigit(s, n)) n++;
    const r = parseNanoseconds(s, n);
    if (!(r instanceof Bad)) nsec = r[0];
    s = s.slice(n);
  }
  let t = dateOf(
    BigInt(year),
    BigInt(month),
    BigInt(day),
    BigInt(hour),
    BigInt(min),
    BigInt(sec),
    BigInt(nsec),
    UTC,
  );
  if (s.length !== 1 || s[0] !== 'Z') {
    if (s.length !== 6) return undefined;
    const hr = parseUint(s.slice(1, 3), 0, 23);
    const mm = parseUint(s.slice(4, 6), 0, 59);
    if (!ok || !((s[0] === '-' || s[0] === '+') && s[3] === ':')) return undefined;
    let zoneOffset = (hr * 60 + mm) * 60;
    if (s[0] === '-') zoneOffset *= -1;
    t = addSec(t, BigInt(-zoneOffset));
    if (lookup(local, unixSec(t)).offset === zoneOffset) t = setLoc(t, local);
    else t = setLoc(t, FixedZone('', zoneOffset));
  }
  return t;
}

/** time.ParseInLocation; throws ParseError. */
export function parseInLocation(layoutText: string, valueText: string, loc: Location): Time {
  const layout = toBytes(layoutText);
  const value = toBytes(valueText);
  if (layout === RFC3339 || layout === RFC3339Nano) {
    const t = parseRFC3339(value, loc);
    if (t) return t;
  }
  return parse(layout, value, loc, loc);
}

// eslint-disable-next-line max-lines-per-function -- a statement-for-statement port of Go's time.parse: kept whole so a difference the differential tests find maps onto Go's source line by line
function parse(layout: string, value: string, defaultLocation: Location, local: Location): Time {
  const alayout = layout;
  const avalue = value;
  let rangeErrString = '';
  let amSet = false;
  let pmSet = false;
  let year = 0;
  let month = -1;
  let day = -1;
  let yday = -1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nsec = 0;
  let z: Location | undefined;
  let zoneOffset = -1;
  let zoneName = '';

  for (;;) {
    const { prefix, std, suffix } = nextStdChunk(layout);
    const stdstr = layout.slice(prefix.length, layout.length - suffix.length);
    const skipped = skip(value, prefix);
    value = skipped.value;
    if (!skipped.ok) throw new ParseError(alayout, avalue, prefix, value, '');
    if (std === 0) {
      if (value.length !== 0)
        throw new ParseError(alayout, avalue, '', value, ': extra text: ' + quote(value));
      break;
    }
    layout = suffix;
    const hold = value;
    let err = false;
    // Each case consumes from value and sets err for a malformed element.
    const take = <T>(r: [T, string] | Bad): T | undefined => {
      if (r instanceof Bad) {
        err = true;
        return undefined;
      }
      value = r[1];
      return r[0];
    };
    switch (std & stdMask) {
      case Std.year: {
        if (value.length < 2) {
          err = true;
          break;
        }
        const p = value.slice(0, 2);
        value = value.slice(2);
        const y = atoi(p);
        if (y instanceof Bad) {
          err = true;
          break;
        }
        // Two-digit years from 69 are 1969-1999: Unix time starts Dec 31 1969 in some zones.
        year = y >= 69 ? y + 1900 : y + 2000;
        break;
      }
      case Std.longYear: {
        if (value.length < 4 || !isDigit(value, 0)) {
          err = true;
          break;
        }
        const p = value.slice(0, 4);
        value = value.slice(4);
        const y = atoi(p);
        if (y instanceof Bad) err = true;
        else year = y;
        break;
      }
      case Std.month:
        month = (take(lookupTab(shortMonthNames, value)) ?? -1) + 1;
        break;
      case Std.longMonth:
        month = (take(lookupTab(longMonthNames, value)) ?? -1) + 1;
        break;
      case Std.numMonth:
      case Std.zeroMonth: {
        const m = take(getnum(value, std === Std.zeroMonth));
        month = m ?? 0;
        if (m !== undefined && (m <= 0 || 12 < m)) rangeErrString = 'month';
        break;
      }
      case Std.weekDay:
        take(lookupTab(shortDayNames, value));
        break;
      case Std.longWeekDay:
        take(lookupTab(longDayNames, value));
        break;
      case Std.day:
      case Std.underDay:
      case Std.zeroDay:
        if (std === Std.underDay && value[0] === ' ') value = value.slice(1);
        day = take(getnum(value, std === Std.zeroDay)) ?? 0;
        break;
      case Std.underYearDay:
      case Std.zeroYearDay:
        for (let i = 0; i < 2; i++)
          if (std === Std.underYearDay && value[0] === ' ') value = value.slice(1);
        yday = take(getnum3(value, std === Std.zeroYearDay)) ?? 0;
        break;
      case Std.hour:
        hour = take(getnum(value, false)) ?? 0;
        if (hour < 0 || 24 <= hour) rangeErrString = 'hour';
        break;
      case Std.hour12:
      case Std.zeroHour12:
        hour = take(getnum(value, std === Std.zeroHour12)) ?? 0;
        if (hour < 0 || 12 < hour) rangeErrString = 'hour';
        break;
      case Std.minute:
      case Std.zeroMinute:
        min = take(getnum(value, std === Std.zeroMinute)) ?? 0;
        if (min < 0 || 60 <= min) rangeErrString = 'minute';
        break;
      case Std.second:
      case Std.zeroSecond: {
        const s = take(getnum(value, std === Std.zeroSecond));
        if (s === undefined) break;
        sec = s;
        if (sec < 0 || 60 <= sec) {
          rangeErrString = 'second';
          break;
        }
        // A fractional second right after the seconds is accepted even when the layout
        // has none, unless the layout's next element is the fraction itself.
        if (value.length >= 2 && commaOrPeriod(value[0]) && isDigit(value, 1)) {
          const next = nextStdChunk(layout).std & stdMask;
          if (next === Std.fracSecond0 || next === Std.fracSecond9) break;
          let n = 2;
          while (n < value.length && isDigit(value, n)) n++;
          const r = parseNanoseconds(value, n);
          if (r instanceof Bad) err = true;
          else [nsec, rangeErrString] = r;
          value = value.slice(n);
        }
        break;
      }
      case Std.PM:
      case Std.pm: {
        if (value.length < 2) {
          err = true;
          break;
        }
        const p = value.slice(0, 2);
        value = value.slice(2);
        const [pmText, amText] = std === Std.PM ? ['PM', 'AM'] : ['pm', 'am'];
        if (p === pmText) pmSet = true;
        else if (p === amText) amSet = true;
        else err = true;
        break;
      }
      case Std.ISO8601TZ:
      case Std.ISO8601ShortTZ:
      case Std.ISO8601ColonTZ:
      case Std.ISO8601SecondsTZ:
      case Std.ISO8601ColonSecondsTZ:
      case Std.NumTZ:
      case Std.NumShortTZ:
      case Std.NumColonTZ:
      case Std.NumSecondsTz:
      case Std.NumColonSecondsTZ: {
        if (ISO_OFFSETS.has(std) && value[0] === 'Z') {
          value = value.slice(1);
          z = UTC;
          break;
        }
        const shape = OFFSET_SHAPES.get(std) as OffsetShape;
        if (value.length < shape.length || shape.colons.some((i) => value[i] !== ':')) {
          err = true;
          break;
        }
        const sign = value[0];
        const field = (at: number | undefined): string =>
          at === undefined ? '00' : value.slice(at, at + 2);
        const fields = [value.slice(1, 3), field(shape.mm), field(shape.ss)];
        value = value.slice(shape.length);
        // Go stops at the first bad field and leaves it and the rest at 0.
        const nums: number[] = [];
        for (const f of fields) {
          const n = getnum(f, true);
          if (n instanceof Bad) {
            err = true;
            break;
          }
          nums.push(n[0]);
        }
        const [hr = 0, mi = 0, se = 0] = nums;
        if (hr > 24) rangeErrString = 'time zone offset hour';
        if (mi > 60) rangeErrString = 'time zone offset minute';
        if (se > 60) rangeErrString = 'time zone offset second';
        zoneOffset = (hr * 60 + mi) * 60 + se;
        if (sign === '-') zoneOffset = -zoneOffset;
        else if (sign !== '+') err = true;
        break;
      }
      case Std.TZ: {
        if (value.startsWith('UTC')) {
          z = UTC;
          value = value.slice(3);
          break;
        }
        const n = parseTimeZone(value);
        if (n === undefined) {
          err = true;
          break;
        }
        zoneName = value.slice(0, n);
        value = value.slice(n);
        break;
      }
      case Std.fracSecond0: {
        const ndigit = 1 + digitsLen(std);
        if (value.length < ndigit) {
          err = true;
          break;
        }
        const r = parseNanoseconds(value, ndigit);
        if (r instanceof Bad) err = true;
        else [nsec, rangeErrString] = r;
        value = value.slice(ndigit);
        break;
      }
      case Std.fracSecond9: {
        if (value.length < 2 || !commaOrPeriod(value[0]) || !isDigit(value, 1)) break;
        let i = 0;
        while (i + 1 < value.length && isDigit(value, i + 1)) i++;
        const r = parseNanoseconds(value, 1 + i);
        if (r instanceof Bad) err = true;
        else [nsec, rangeErrString] = r;
        value = value.slice(1 + i);
        break;
      }
    }
    if (rangeErrString !== '')
      throw new ParseError(alayout, avalue, stdstr, value, ': ' + rangeErrString + ' out of range');
    if (err) throw new ParseError(alayout, avalue, stdstr, hold, '');
  }
  if (pmSet && hour < 12) hour += 12;
  else if (amSet && hour === 12) hour = 0;

  if (yday >= 0) {
    let d = 0;
    let m = 0;
    if (isLeap(BigInt(year))) {
      if (yday === 31 + 29) {
        m = 2;
        d = 29;
      } else if (yday > 31 + 29) yday--;
    }
    if (yday < 1 || yday > 365)
      throw new ParseError(alayout, avalue, '', value, ': day-of-year out of range');
    if (m === 0) {
      m = Math.trunc((yday - 1) / 31) + 1;
      if (daysBefore(m + 1) < yday) m++;
      d = yday - daysBefore(m);
    }
    if (month >= 0 && month !== m)
      throw new ParseError(alayout, avalue, '', value, ': day-of-year does not match month');
    month = m;
    if (day >= 0 && day !== d)
      throw new ParseError(alayout, avalue, '', value, ': day-of-year does not match day');
    day = d;
  } else {
    if (month < 0) month = 1;
    if (day < 0) day = 1;
  }

  if (day < 1 || day > daysIn(month, BigInt(year)))
    throw new ParseError(alayout, avalue, '', value, ': day out of range');

  const at = (l: Location): Time =>
    dateOf(
      BigInt(year),
      BigInt(month),
      BigInt(day),
      BigInt(hour),
      BigInt(min),
      BigInt(sec),
      BigInt(nsec),
      l,
    );
  if (z !== undefined) return at(z);

  if (zoneOffset !== -1) {
    const t = addSec(at(UTC), BigInt(-zoneOffset));
    // The local zone wins when it has this offset (and name, if one was given).
    const { name, offset } = lookup(local, unixSec(t));
    if (offset === zoneOffset && (zoneName === '' || name === zoneName)) return setLoc(t, local);
    return setLoc(t, FixedZone(zoneName, zoneOffset));
  }

  if (zoneName !== '') {
    const t = at(UTC);
    const offset = lookupName(local, zoneName, unixSec(t));
    if (offset !== undefined) return setLoc(addSec(t, BigInt(-offset)), local);
    // An unknown abbreviation gets offset 0, except GMT+h which says its offset.
    let off = 0;
    if (zoneName.length > 3 && zoneName.startsWith('GMT')) {
      const h = atoi(zoneName.slice(3));
      off = (h instanceof Bad ? 0 : h) * 3600;
    }
    return setLoc(t, FixedZone(zoneName, off));
  }

  return at(defaultLocation);
}
