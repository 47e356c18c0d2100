// Go's reference-time layouts ("2006-01-02 15:04:05"): the chunker shared with parsing,
// Time.Format, Time.String and the RFC 3339 forms used by JSON and YAML.

import {
  civilDate,
  clock,
  i64,
  longMonthNames,
  secondsPerDay,
  u64,
  weekday,
  weekdayString,
  yearYday,
} from './civil.ts';
import { locabs } from './time.ts';
import type { Time } from './time.ts';
import { Local, UTC } from './zoneinfo.ts';
import { quote, toBytes } from './quote.ts';

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339Nano = '2006-01-02T15:04:05.999999999Z07:00';

// Chunk codes; the flag bits say which calendar fields a chunk needs.
const needDate = 1 << 8;
const needYday = 1 << 9;
const needClock = 1 << 10;
export const argShift = 16;
const separatorShift = 28;
export const stdMask = (1 << argShift) - 1;

export const Std = {
  longMonth: 1 + needDate,
  month: 2 + needDate,
  numMonth: 3 + needDate,
  zeroMonth: 4 + needDate,
  longWeekDay: 5 + needDate,
  weekDay: 6 + needDate,
  day: 7 + needDate,
  underDay: 8 + needDate,
  zeroDay: 9 + needDate,
  underYearDay: 10 + needYday,
  zeroYearDay: 11 + needYday,
  hour: 12 + needClock,
  hour12: 13 + needClock,
  zeroHour12: 14 + needClock,
  minute: 15 + needClock,
  zeroMinute: 16 + needClock,
  second: 17 + needClock,
  zeroSecond: 18 + needClock,
  longYear: 19 + needDate,
  year: 20 + needDate,
  PM: 21 + needClock,
  pm: 22 + needClock,
  TZ: 23,
  ISO8601TZ: 24,
  ISO8601SecondsTZ: 25,
  ISO8601ShortTZ: 26,
  ISO8601ColonTZ: 27,
  ISO8601ColonSecondsTZ: 28,
  NumTZ: 29,
  NumSecondsTz: 30,
  NumShortTZ: 31,
  NumColonTZ: 32,
  NumColonSecondsTZ: 33,
  fracSecond0: 34,
  fracSecond9: 35,
} as const;

const std0x = [
  Std.zeroMonth,
  Std.zeroDay,
  Std.zeroHour12,
  Std.zeroMinute,
  Std.zeroSecond,
  Std.year,
];

function startsWithLowerCase(s: string): boolean {
  const c = s.charCodeAt(0);
  return c >= 97 && c <= 122;
}

export function isDigit(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
}

function fracSecond(code: number, n: number, c: string): number {
  const v = code | ((n & 0xfff) << argShift);
  return c === '.' ? v : v | (1 << separatorShift);
}

export function digitsLen(std: number): number {
  return (std >> argShift) & 0xfff;
}

function separator(std: number): string {
  return std >> separatorShift === 0 ? '.' : ',';
}

export interface Chunk {
  prefix: string;
  std: number;
  suffix: string;
}

/** The text before the first layout element, the element, and the rest. */
// eslint-disable-next-line max-lines-per-function -- a statement-for-statement port of Go's time.nextStdChunk: kept whole so a difference the differential tests find maps onto Go's source line by line
export function nextStdChunk(layout: string): Chunk {
  const at = (i: number, std: number, len: number): Chunk => ({
    prefix: layout.slice(0, i),
    std,
    suffix: layout.slice(i + len),
  });
  const has = (i: number, s: string): boolean => layout.startsWith(s, i);
  for (let i = 0; i < layout.length; i++) {
    switch (layout[i]) {
      case 'J':
        if (has(i, 'Jan')) {
          if (has(i, 'January')) return at(i, Std.longMonth, 7);
          if (!startsWithLowerCase(layout.slice(i + 3))) return at(i, Std.month, 3);
        }
        break;
      case 'M':
        if (has(i, 'Mon')) {
          if (has(i, 'Monday')) return at(i, Std.longWeekDay, 6);
          if (!startsWithLowerCase(layout.slice(i + 3))) return at(i, Std.weekDay, 3);
        }
        if (has(i, 'MST')) return at(i, Std.TZ, 3);
        break;
      case '0': {
        const c = layout.charCodeAt(i + 1);
        if (c >= 49 && c <= 54) return at(i, std0x[c - 49]!, 2);
        if (has(i, '002')) return at(i, Std.zeroYearDay, 3);
        break;
      }
      case '1':
        if (layout[i + 1] === '5') return at(i, Std.hour, 2);
        return at(i, Std.numMonth, 1);
      case '2':
        if (has(i, '2006')) return at(i, Std.longYear, 4);
        return at(i, Std.day, 1);
      case '_':
        if (layout[i + 1] === '2') {
          // "_2006" is a literal underscore followed by the year.
          if (has(i + 1, '2006')) return at(i + 1, Std.longYear, 4);
          return at(i, Std.underDay, 2);
        }
        if (has(i, '__2')) return at(i, Std.underYearDay, 3);
        break;
      case '3':
        return at(i, Std.hour12, 1);
      case '4':
        return at(i, Std.minute, 1);
      case '5':
        return at(i, Std.second, 1);
      case 'P':
        if (layout[i + 1] === 'M') return at(i, Std.PM, 2);
        break;
      case 'p':
        if (layout[i + 1] === 'm') return at(i, Std.pm, 2);
        break;
      case '-':
        if (has(i, '-070000')) return at(i, Std.NumSecondsTz, 7);
        if (has(i, '-07:00:00')) return at(i, Std.NumColonSecondsTZ, 9);
        if (has(i, '-0700')) return at(i, Std.NumTZ, 5);
        if (has(i, '-07:00')) return at(i, Std.NumColonTZ, 6);
        if (has(i, '-07')) return at(i, Std.NumShortTZ, 3);
        break;
      case 'Z':
        if (has(i, 'Z070000')) return at(i, Std.ISO8601SecondsTZ, 7);
        if (has(i, 'Z07:00:00')) return at(i, Std.ISO8601ColonSecondsTZ, 9);
        if (has(i, 'Z0700')) return at(i, Std.ISO8601TZ, 5);
        if (has(i, 'Z07:00')) return at(i, Std.ISO8601ColonTZ, 6);
        if (has(i, 'Z07')) return at(i, Std.ISO8601ShortTZ, 3);
        break;
      case '.':
      case ',': {
        // A run of 0s or 9s after the separator is a fractional second, unless more
        // digits follow.
        const ch = layout[i + 1];
        if (ch === '0' || ch === '9') {
          let j = i + 1;
          while (j < layout.length && layout[j] === ch) j++;
          if (!isDigit(layout, j)) {
            const code = ch === '9' ? Std.fracSecond9 : Std.fracSecond0;
            return {
              prefix: layout.slice(0, i),
              std: fracSecond(code, j - (i + 1), layout[i]!),
              suffix: layout.slice(j),
            };
          }
        }
        break;
      }
    }
  }
  return { prefix: layout, std: 0, suffix: '' };
}

/** Go's appendInt: decimal, zero-padded to width, with a leading '-' outside the padding. */
export function appendInt(x: bigint | number, width: number): string {
  const v = BigInt(x);
  const digits = (v < 0n ? -v : v).toString().padStart(width, '0');
  return v < 0n ? '-' + digits : digits;
}

function appendNano(nanosec: number, std: number): string {
  const trim = (std & stdMask) === Std.fracSecond9;
  const n = digitsLen(std);
  if (trim && (n === 0 || nanosec === 0)) return '';
  const dot = separator(std);
  let digits = appendInt(nanosec, 9);
  if (n < 9) digits = digits.slice(0, n);
  if (trim) {
    digits = digits.replace(/0+$/, '');
    if (digits === '') return '';
  }
  return dot + digits;
}

function isISO(std: number): boolean {
  return (
    std === Std.ISO8601TZ ||
    std === Std.ISO8601ColonTZ ||
    std === Std.ISO8601SecondsTZ ||
    std === Std.ISO8601ShortTZ ||
    std === Std.ISO8601ColonSecondsTZ
  );
}

function formatOffset(std: number, offset: number): string {
  if (offset === 0 && isISO(std)) return 'Z';
  let zone = Math.trunc(offset / 60);
  let absoffset = offset;
  let b: string;
  if (zone < 0) {
    b = '-';
    zone = -zone;
    absoffset = -absoffset;
  } else b = '+';
  b += appendInt(Math.trunc(zone / 60), 2);
  const colon =
    std === Std.ISO8601ColonTZ ||
    std === Std.NumColonTZ ||
    std === Std.ISO8601ColonSecondsTZ ||
    std === Std.NumColonSecondsTZ;
  if (colon) b += ':';
  if (std !== Std.NumShortTZ && std !== Std.ISO8601ShortTZ) b += appendInt(zone % 60, 2);
  if (
    std === Std.ISO8601SecondsTZ ||
    std === Std.NumSecondsTz ||
    std === Std.NumColonSecondsTZ ||
    std === Std.ISO8601ColonSecondsTZ
  ) {
    if (std === Std.NumColonSecondsTZ || std === Std.ISO8601ColonSecondsTZ) b += ':';
    b += appendInt(absoffset % 60, 2);
  }
  return b;
}

// eslint-disable-next-line max-lines-per-function -- a statement-for-statement port of Go's time.Time.appendFormat: kept whole so a difference the differential tests find maps onto Go's source line by line
function appendFormat(t: Time, layout: string): string {
  const { name, offset, abs } = locabs(t);
  const days = abs / secondsPerDay;
  let year = -1n;
  let month = 0;
  let day = 0;
  let yday = -1;
  let hour = -1;
  let min = 0;
  let sec = 0;
  let b = '';
  while (layout !== '') {
    const { prefix, std, suffix } = nextStdChunk(layout);
    b += prefix;
    if (std === 0) break;
    layout = suffix;
    if (year < 0n && (std & needDate) !== 0) ({ year, month, day } = civilDate(days));
    if (yday < 0 && (std & needYday) !== 0) ({ yday } = yearYday(days));
    if (hour < 0 && (std & needClock) !== 0) ({ hour, min, sec } = clock(abs));
    switch (std & stdMask) {
      case Std.year: {
        const y = year < 0n ? i64(-year) : year;
        b += appendInt(y % 100n, 2);
        break;
      }
      case Std.longYear:
        b += appendInt(year, 4);
        break;
      case Std.month:
        b += longMonthNames[month - 1]!.slice(0, 3);
        break;
      case Std.longMonth:
        b += longMonthNames[month - 1]!;
        break;
      case Std.numMonth:
        b += appendInt(month, 0);
        break;
      case Std.zeroMonth:
        b += appendInt(month, 2);
        break;
      case Std.weekDay:
        b += weekdayString(BigInt(weekday(days))).slice(0, 3);
        break;
      case Std.longWeekDay:
        b += weekdayString(BigInt(weekday(days)));
        break;
      case Std.day:
        b += appendInt(day, 0);
        break;
      case Std.underDay:
        b += (day < 10 ? ' ' : '') + appendInt(day, 0);
        break;
      case Std.zeroDay:
        b += appendInt(day, 2);
        break;
      case Std.underYearDay:
        b += (yday < 10 ? '  ' : yday < 100 ? ' ' : '') + appendInt(yday, 0);
        break;
      case Std.zeroYearDay:
        b += appendInt(yday, 3);
        break;
      case Std.hour:
        b += appendInt(hour, 2);
        break;
      case Std.hour12:
        b += appendInt(hour % 12 === 0 ? 12 : hour % 12, 0);
        break;
      case Std.zeroHour12:
        b += appendInt(hour % 12 === 0 ? 12 : hour % 12, 2);
        break;
      case Std.minute:
        b += appendInt(min, 0);
        break;
      case Std.zeroMinute:
        b += appendInt(min, 2);
        break;
      case Std.second:
        b += appendInt(sec, 0);
        break;
      case Std.zeroSecond:
        b += appendInt(sec, 2);
        break;
      case Std.PM:
        b += hour >= 12 ? 'PM' : 'AM';
        break;
      case Std.pm:
        b += hour >= 12 ? 'pm' : 'am';
        break;
      case Std.ISO8601TZ:
      case Std.ISO8601ColonTZ:
      case Std.ISO8601SecondsTZ:
      case Std.ISO8601ShortTZ:
      case Std.ISO8601ColonSecondsTZ:
      case Std.NumTZ:
      case Std.NumColonTZ:
      case Std.NumSecondsTz:
      case Std.NumShortTZ:
      case Std.NumColonSecondsTZ:
        b += formatOffset(std, offset);
        break;
      case Std.TZ:
        if (name !== '') b += name;
        else {
          // Unnamed zones print their offset.
          let zone = Math.trunc(offset / 60);
          if (zone < 0) {
            b += '-';
            zone = -zone;
          } else b += '+';
          b += appendInt(Math.trunc(zone / 60), 2) + appendInt(zone % 60, 2);
        }
        break;
      case Std.fracSecond0:
      case Std.fracSecond9:
        b += appendNano(t.nsec, std);
        break;
    }
  }
  return b;
}

function formatRFC3339(t: Time, nanos: boolean): string {
  const { offset, abs } = locabs(t);
  const { year, month, day } = civilDate(abs / secondsPerDay);
  const { hour, min, sec } = clock(abs);
  let b = `${appendInt(year, 4)}-${appendInt(month, 2)}-${appendInt(day, 2)}T`;
  b += `${appendInt(hour, 2)}:${appendInt(min, 2)}:${appendInt(sec, 2)}`;
  if (nanos) b += appendNano(t.nsec, fracSecond(Std.fracSecond9, 9, '.'));
  if (offset === 0) return b + 'Z';
  let zone = Math.trunc(offset / 60);
  if (zone < 0) {
    b += '-';
    zone = -zone;
  } else b += '+';
  return b + appendInt(Math.trunc(zone / 60), 2) + ':' + appendInt(zone % 60, 2);
}

/** Time.Format. */
export function format(t: Time, layout: string): string {
  if (layout === RFC3339) return formatRFC3339(t, false);
  if (layout === RFC3339Nano) return formatRFC3339(t, true);
  return appendFormat(t, layout);
}

/** Time.String, with the monotonic reading when the value has one. */
export function timeString(t: Time): string {
  let s = format(t, '2006-01-02 15:04:05.999999999 -0700 MST');
  if (t.mono !== undefined) {
    let m2 = u64(t.mono);
    let sign = '+';
    if (t.mono < 0n) {
      sign = '-';
      m2 = u64(-m2);
    }
    let m1 = m2 / 1_000_000_000n;
    m2 %= 1_000_000_000n;
    const m0 = m1 / 1_000_000_000n;
    m1 %= 1_000_000_000n;
    s += ' m=' + sign;
    let wid = 0;
    if (m0 !== 0n) {
      s += appendInt(m0, 0);
      wid = 9;
    }
    s += appendInt(m1, wid) + '.' + appendInt(m2, 9);
  }
  return s;
}

/** MarshalJSON/MarshalText's strict RFC 3339: throws the reason Go reports. */
export function strictRFC3339(t: Time): string {
  const b = formatRFC3339(t, true);
  if (b[4] !== '-') throw new Error('year outside of range [0,9999]');
  if (!b.endsWith('Z')) {
    const c = b.charCodeAt(b.length - 6);
    const hh = Number(b.slice(b.length - 5, b.length - 3));
    if ((c >= 48 && c <= 57) || hh >= 24) throw new Error('timezone hour outside of range [0,23]');
  }
  return b;
}

/** Time.GoString (%#v). */
export function goString(t: Time): string {
  const { abs } = locabs(t);
  const { year, month, day } = civilDate(abs / secondsPerDay);
  const { hour, min, sec } = clock(abs);
  const loc =
    t.loc === undefined || t.loc === UTC
      ? 'time.UTC'
      : t.loc === Local
        ? 'time.Local'
        : `time.Location(${quote(toBytes(t.loc.name))})`;
  return `time.Date(${year}, time.${longMonthNames[month - 1]!}, ${day}, ${hour}, ${min}, ${sec}, ${t.nsec}, ${loc})`;
}
