// sprig's date functions, on the port of Go's time package in ../gotime. The argument type
// switches are sprig's own and differ per function: dateInZone takes int32 but ago does
// not, duration takes int64 and string only, and anything unexpected (a JSON number is a
// float64) silently means "now" or zero.

import { maxInt64, minInt64, monthString, weekdayString } from '../gotime/civil.ts';
import { INTERFACE } from '../values.ts';
import {
  durationString,
  parseDuration,
  ParseDurationError,
  roundDuration,
  second,
} from '../gotime/duration.ts';
import { format, goString, RFC3339Nano, strictRFC3339, timeString } from '../gotime/format.ts';
import { ParseError, parseInLocation } from '../gotime/parse.ts';
import { toBytes } from '../gotime/quote.ts';
import {
  add,
  addDate,
  compare,
  date,
  deepEqualTimes,
  equal,
  identical,
  isDST,
  isZero,
  location,
  now,
  round,
  setLoc,
  since,
  sub,
  Time,
  timeClock,
  timeWeekday,
  timeYearDay,
  truncate,
  unix,
  unixMicro,
  unixMilli,
  unixNano,
  unixSec,
  zeroTime,
} from '../gotime/time.ts';
import { Local, LoadLocation, UTC, locationName } from '../gotime/zoneinfo.ts';
import type { Location } from '../gotime/zoneinfo.ts';
import { CallError } from '../exec.ts';
import { GoInt, GoObject } from '../values.ts';
import type { FuncDef, GoValue } from '../values.ts';
import { fn, goErr } from './convert.ts';
import type { V } from './convert.ts';

const int = (n: number | bigint): GoInt => new GoInt('int', BigInt(n));
const int64 = (n: bigint): GoInt => new GoInt('int64', n);

/** A Go named integer type whose String() names the value (time.Month, time.Weekday). */
function namedInt(type: string, v: bigint, name: string): GoObject {
  return new GoObject(type, { String: { params: [], impl: () => name } }, () => name, 'int', v, {
    marshalJSON: () => v.toString(),
    yamlScalar: () => v.toString(),
  });
}

/** A time.Duration argument: a Duration value, or a constant the executor converted. */
function durationArg(v: V): bigint {
  return v instanceof GoObject ? v.intValue! : (v as GoInt).v;
}

/** Duration's float methods split whole units from the rest, as Go does, to keep precision. */
function inUnits(d: bigint, unit: bigint): number {
  return Number(d / unit) + Number(d % unit) / Number(unit);
}

export function durationValue(d: bigint): GoObject {
  const m = (impl: () => GoValue): FuncDef => ({ params: [], impl });
  const withDuration = (impl: (x: bigint) => bigint): FuncDef => ({
    params: ['time.Duration'],
    impl: (a) => durationValue(impl(durationArg(a[0]))),
  });
  return new GoObject(
    'time.Duration',
    {
      String: m(() => durationString(d)),
      Hours: m(() => inUnits(d, 3600n * second)),
      Minutes: m(() => inUnits(d, 60n * second)),
      Seconds: m(() => inUnits(d, second)),
      Milliseconds: m(() => int64(d / 1_000_000n)),
      Microseconds: m(() => int64(d / 1000n)),
      Nanoseconds: m(() => int64(d)),
      Abs: m(() => durationValue(d >= 0n ? d : d === minInt64 ? maxInt64 : -d)),
      Round: withDuration((x) => roundDuration(d, x)),
      Truncate: withDuration((x) => (x <= 0n ? d : d - (d % x))),
    },
    () => durationString(d),
    'int64',
    d,
    // yaml.v2 writes a Duration as its String(), json as the integer.
    { marshalJSON: () => d.toString() },
  );
}

/** A method Go has but a template cannot call; Go's executor says why. */
function uncallable(message: string): FuncDef {
  return {
    params: [],
    impl: () => {
      throw new CallError(message);
    },
  };
}

function locationValue(l: Location): GoObject {
  return new GoObject(
    '*time.Location',
    { String: { params: [], impl: () => locationName(l) } },
    () => locationName(l),
    'ptr',
    l,
    { equal: (o) => o.native === l },
  );
}

function timeArg(v: GoObject): Time {
  return v.native as Time;
}

/** A time.Time as templates see it: printable, comparable, with Go's methods. */
export function timeValue(t: Time): GoObject {
  const m = (impl: () => GoValue): FuncDef => ({ params: [], impl });
  const withTime = (impl: (u: Time) => GoValue): FuncDef =>
    fn(['time.Time'], (a) => impl(timeArg(a[0])));
  const methods: Record<string, FuncDef> = {
    Year: m(() => int(date(t).year)),
    Month: m(() => {
      const mo = BigInt(date(t).month);
      return namedInt('time.Month', mo, monthString(mo));
    }),
    Day: m(() => int(date(t).day)),
    Hour: m(() => int(timeClock(t).hour)),
    Minute: m(() => int(timeClock(t).min)),
    Second: m(() => int(timeClock(t).sec)),
    Nanosecond: m(() => int(t.nsec)),
    YearDay: m(() => int(timeYearDay(t))),
    Weekday: m(() => {
      const d = BigInt(timeWeekday(t));
      return namedInt('time.Weekday', d, weekdayString(d));
    }),
    Unix: m(() => int64(unixSec(t))),
    UnixMilli: m(() => int64(unixMilli(t))),
    UnixMicro: m(() => int64(unixMicro(t))),
    UnixNano: m(() => int64(unixNano(t))),
    Format: fn(['string'], (a) => format(t, a[0])),
    UTC: m(() => timeValue(setLoc(t, UTC))),
    Local: m(() => timeValue(setLoc(t, Local))),
    In: {
      params: ['*time.Location'],
      impl: (a) => {
        const l = a[0];
        if (!(l instanceof GoObject)) goErr('time: missing Location in call to Time.In');
        return timeValue(setLoc(t, l.native as Location));
      },
    },
    Location: m(() => locationValue(location(t))),
    IsZero: m(() => isZero(t)),
    IsDST: m(() => isDST(t)),
    String: m(() => timeString(t)),
    GoString: m(() => goString(t)),
    AddDate: fn(['int', 'int', 'int'], ([y, m, d]) => timeValue(addDate(t, y.v, m.v, d.v))),
    Add: { params: ['time.Duration'], impl: (a) => timeValue(add(t, durationArg(a[0]))) },
    Sub: withTime((u) => durationValue(sub(t, u))),
    Round: { params: ['time.Duration'], impl: (a) => timeValue(round(t, durationArg(a[0]))) },
    Truncate: {
      params: ['time.Duration'],
      impl: (a) => timeValue(truncate(t, durationArg(a[0]))),
    },
    Date: uncallable('function Date has 3 return values; should be 1 or 2'),
    Clock: uncallable('function Clock has 3 return values; should be 1 or 2'),
    ISOWeek: uncallable(
      'invalid function signature for ISOWeek: second return value should be error; is int',
    ),
    Zone: uncallable(
      'invalid function signature for Zone: second return value should be error; is int',
    ),
    ZoneBounds: uncallable(
      'invalid function signature for ZoneBounds: second return value should be error; is time.Time',
    ),
    Before: withTime((u) => compare(t, u) < 0),
    After: withTime((u) => compare(t, u) > 0),
    Equal: withTime((u) => equal(t, u)),
    Compare: withTime((u) => int(compare(t, u))),
  };
  return new GoObject('time.Time', methods, () => timeString(t), 'struct', t, {
    marshalJSON: () => {
      try {
        return `"${strictRFC3339(t)}"`;
      } catch (e) {
        throw new Error(
          `json: error calling MarshalJSON for type time.Time: Time.MarshalJSON: ${(e as Error).message}`,
        );
      }
    },
    yamlScalar: () => format(t, RFC3339Nano),
    equal: (o) => o.native instanceof Time && identical(t, o.native),
    deepEqual: (o) => o.native instanceof Time && deepEqualTimes(t, o.native),
  });
}

function isTime(v: V): v is GoObject {
  return v instanceof GoObject && v.native instanceof Time;
}

function dateInZone(layout: string, d: V, zone: string): string {
  let t: Time;
  if (isTime(d)) t = timeArg(d);
  else if (d instanceof GoInt && (d.kind === 'int64' || d.kind === 'int' || d.kind === 'int32'))
    t = unix(d.v, 0n);
  else t = now();
  // An unknown zone is UTC, not an error.
  const loc = LoadLocation(zone) ?? UTC;
  return format(setLoc(t, loc), layout);
}

function ago(d: V): string {
  let t: Time;
  if (isTime(d)) t = timeArg(d);
  else if (d instanceof GoInt && (d.kind === 'int64' || d.kind === 'int')) t = unix(d.v, 0n);
  else t = now();
  return durationString(roundDuration(since(t), second));
}

/** strconv.ParseInt(s, 10, 64), keeping the clamped value of an out-of-range number. */
function parseInt64Clamped(s: string): bigint {
  let neg = false;
  let body = s;
  if (s[0] === '+' || s[0] === '-') {
    neg = s[0] === '-';
    body = s.slice(1);
  }
  if (body === '') return 0n;
  const maxU = (1n << 64n) - 1n;
  let n = 0n;
  let overflow = false;
  for (const c of body) {
    if (c < '0' || c > '9') return 0n;
    // Go stops at the first overflowing digit, before looking at the rest.
    n = n * 10n + BigInt(c.charCodeAt(0) - 48);
    if (n > maxU) {
      overflow = true;
      break;
    }
  }
  const un = overflow ? maxU : n;
  const cutoff = 1n << 63n;
  if (!neg && un >= cutoff) return cutoff - 1n;
  if (neg && un > cutoff) return -cutoff;
  return neg ? -un : un;
}

function duration(v: V): string {
  let n = 0n;
  if (typeof v === 'string') n = parseInt64Clamped(v);
  else if (v instanceof GoInt && v.kind === 'int64') n = v.v;
  return durationString(BigInt.asIntN(64, n * second));
}

const year = 365n * 24n * 3600n * second;
const month = 30n * 24n * 3600n * second;
const day = 24n * 3600n * second;
const roundUnits: [bigint, string][] = [
  [year, 'y'],
  [month, 'mo'],
  [day, 'd'],
  [3600n * second, 'h'],
  [60n * second, 'm'],
  [second, 's'],
];

function durationRound(v: V): string {
  let d = 0n;
  if (typeof v === 'string') {
    try {
      d = parseDuration(toBytes(v));
    } catch (e) {
      if (!(e instanceof ParseDurationError)) throw e;
    }
  } else if (v instanceof GoInt && v.kind === 'int64') d = v.v;
  else if (isTime(v)) d = since(timeArg(v));
  // sprig drops the sign.
  const u = d < 0n ? -d : d;
  for (const [unit, suffix] of roundUnits) if (u > unit) return `${u / unit}${suffix}`;
  return '0s';
}

function toDate(layout: string, value: string, must: boolean): GoObject {
  try {
    return timeValue(parseInLocation(layout, value, Local));
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    if (must) goErr(e.message);
    return timeValue(zeroTime);
  }
}

function dateModify(spec: string, d: GoObject, must: boolean): GoObject {
  try {
    return timeValue(add(timeArg(d), parseDuration(toBytes(spec))));
  } catch (e) {
    if (!(e instanceof ParseDurationError)) throw e;
    if (must) goErr(e.message);
    return d;
  }
}

const dateModifyDef = fn(['string', 'time.Time'], (a) => dateModify(a[0], a[1], false));
const mustDateModifyDef = fn(['string', 'time.Time'], (a) => dateModify(a[0], a[1], true));
const dateInZoneDef = fn(['string', INTERFACE, 'string'], (a) => dateInZone(a[0], a[1], a[2]));

export const sprigDates: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  ['ago', fn([INTERFACE], (a) => ago(a[0]))],
  ['date', fn(['string', INTERFACE], (a) => dateInZone(a[0], a[1], 'Local'))],
  ['date_in_zone', dateInZoneDef],
  ['date_modify', dateModifyDef],
  ['dateInZone', dateInZoneDef],
  ['dateModify', dateModifyDef],
  ['duration', fn([INTERFACE], (a) => duration(a[0]))],
  ['durationRound', fn([INTERFACE], (a) => durationRound(a[0]))],
  ['htmlDate', fn([INTERFACE], (a) => dateInZone('2006-01-02', a[0], 'Local'))],
  ['htmlDateInZone', fn([INTERFACE, 'string'], (a) => dateInZone('2006-01-02', a[0], a[1]))],
  ['must_date_modify', mustDateModifyDef],
  ['mustDateModify', mustDateModifyDef],
  ['mustToDate', fn(['string', 'string'], (a) => toDate(a[0], a[1], true))],
  ['now', fn([], () => timeValue(now()))],
  ['toDate', fn(['string', 'string'], (a) => toDate(a[0], a[1], false))],
  ['unixEpoch', fn(['time.Time'], (a) => unixSec(timeArg(a[0])).toString())],
]);
