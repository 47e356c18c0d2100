// Go's time.Time: an instant (seconds since year 1 plus nanoseconds), a location, and
// for values from Now() a monotonic clock reading. The reading is visible to templates:
// String() appends " m=+1.234" and Since/Sub prefer it, so it is kept exactly as Go
// keeps it, including when Go drops it.

import {
  absoluteToUnix,
  civilDate,
  clock,
  dateToAbsDays,
  i64,
  internalToUnix,
  maxInt64,
  maxWall,
  minInt64,
  minWall,
  norm,
  secondsPerDay,
  u64,
  unixToAbsolute,
  unixToInternal,
  wallToInternal,
  weekday,
  yearYday,
} from './civil.ts';
import type { CivilDate } from './civil.ts';
import { Local, UTC, deepEqualLocations, get, lookup } from './zoneinfo.ts';
import type { Location } from './zoneinfo.ts';

export class Time {
  constructor(
    /** Go's t.sec(): seconds since January 1, year 1 UTC (int64). */
    readonly sec: bigint,
    /** 0 to 999,999,999. */
    readonly nsec: number,
    /** undefined is Go's nil location, i.e. UTC. */
    readonly loc: Location | undefined,
    /** Nanoseconds since process start; only for instants between 1885 and 2157. */
    readonly mono?: bigint,
  ) {}
}

export const zeroTime = new Time(0n, 0, undefined);

const nsPerSec = 1_000_000_000n;

export function unixSec(t: Time): bigint {
  return i64(t.sec + internalToUnix);
}

function stripMono(t: Time): Time {
  return t.mono === undefined ? t : new Time(t.sec, t.nsec, t.loc);
}

/** Go's addSec: keeps the monotonic reading while the wall seconds fit, else saturates. */
export function addSec(t: Time, d: bigint): Time {
  if (t.mono !== undefined) {
    const dsec = t.sec - wallToInternal + d;
    if (dsec >= 0n && dsec <= (1n << 33n) - 1n)
      return new Time(wallToInternal + dsec, t.nsec, t.loc, t.mono);
    t = stripMono(t);
  }
  const sum = i64(t.sec + d);
  let sec: bigint;
  if (sum > t.sec === d > 0n) sec = sum;
  else if (d > 0n) sec = maxInt64;
  else sec = -maxInt64;
  return new Time(sec, t.nsec, t.loc);
}

export function setLoc(t: Time, loc: Location): Time {
  return new Time(t.sec, t.nsec, loc === UTC ? undefined : loc);
}

export function location(t: Time): Location {
  return t.loc ?? UTC;
}

/** Seconds since the absolute epoch in the time's own zone. */
export function absSec(t: Time): bigint {
  return locabs(t).abs;
}

export function locabs(t: Time): { name: string; offset: number; abs: bigint } {
  const l = get(t.loc);
  let sec = unixSec(t);
  let name = 'UTC';
  let offset = 0;
  if (l !== UTC) {
    ({ name, offset } = lookup(l, sec));
    sec = i64(sec + BigInt(offset));
  }
  return { name, offset, abs: u64(sec + unixToAbsolute) };
}

export function date(t: Time): CivilDate {
  return civilDate(absSec(t) / secondsPerDay);
}

export function timeClock(t: Time): { hour: number; min: number; sec: number } {
  return clock(absSec(t));
}

export function timeYearDay(t: Time): number {
  return yearYday(absSec(t) / secondsPerDay).yday;
}

export function timeWeekday(t: Time): number {
  return weekday(absSec(t) / secondsPerDay);
}

export function isZero(t: Time): boolean {
  return t.mono === undefined && t.sec === 0n && t.nsec === 0;
}

export function equal(t: Time, u: Time): boolean {
  if (t.mono !== undefined && u.mono !== undefined) return t.mono === u.mono;
  return t.sec === u.sec && t.nsec === u.nsec;
}

export function compare(t: Time, u: Time): number {
  let tc: bigint;
  let uc: bigint;
  if (t.mono !== undefined && u.mono !== undefined) [tc, uc] = [t.mono, u.mono];
  else {
    [tc, uc] = [t.sec, u.sec];
    if (tc === uc) [tc, uc] = [BigInt(t.nsec), BigInt(u.nsec)];
  }
  return tc < uc ? -1 : tc > uc ? 1 : 0;
}

/** reflect.DeepEqual / == on two time.Time values: every field, location by identity. */
export function identical(t: Time, u: Time): boolean {
  return t.sec === u.sec && t.nsec === u.nsec && t.mono === u.mono && t.loc === u.loc;
}

/** reflect.DeepEqual: the fields, locations compared by content. */
export function deepEqualTimes(t: Time, u: Time): boolean {
  return (
    t.sec === u.sec && t.nsec === u.nsec && t.mono === u.mono && deepEqualLocations(t.loc, u.loc)
  );
}

export function add(t: Time, d: bigint): Time {
  let dsec = d / nsPerSec;
  let nsec = t.nsec + Number(d % nsPerSec);
  if (nsec >= 1e9) {
    dsec++;
    nsec -= 1e9;
  } else if (nsec < 0) {
    dsec--;
    nsec += 1e9;
  }
  let r = addSec(new Time(t.sec, nsec, t.loc, t.mono), dsec);
  if (r.mono !== undefined) {
    const te = i64(r.mono + d);
    // A reading pushed out of int64 range is dropped rather than wrapped.
    if ((d < 0n && te > r.mono) || (d > 0n && te < r.mono)) r = stripMono(r);
    else r = new Time(r.sec, r.nsec, r.loc, te);
  }
  return r;
}

function subMono(t: bigint, u: bigint): bigint {
  const d = i64(t - u);
  if (d < 0n && t > u) return maxInt64;
  if (d > 0n && t < u) return minInt64;
  return d;
}

export function sub(t: Time, u: Time): bigint {
  if (t.mono !== undefined && u.mono !== undefined) return subMono(t.mono, u.mono);
  const d = i64(i64(i64(t.sec - u.sec) * nsPerSec) + BigInt(t.nsec - u.nsec));
  if (equal(add(u, d), t)) return d;
  return compare(t, u) < 0 ? minInt64 : maxInt64;
}

// Go counts the monotonic clock from just before the package initialises, so readings
// are at least 1ns.
const startNano = process.hrtime.bigint() - 1n;

function monoNow(): bigint {
  return process.hrtime.bigint() - startNano;
}

/**
 * The wall clock in nanoseconds. Date.now() follows clock adjustments but has only
 * milliseconds; the performance clock has microseconds but drifts from the wall clock
 * in a long-running process, so it only refines Date.now() while they agree.
 */
function wallNanos(): bigint {
  const ms = Date.now();
  const precise = performance.timeOrigin + performance.now();
  const best = Math.abs(precise - ms) < 1 ? precise : ms;
  return BigInt(Math.round(best * 1e6));
}

export function now(): Time {
  const ns = wallNanos();
  const sec = ns / nsPerSec;
  const nsec = Number(ns % nsPerSec);
  const wall = sec + unixToInternal;
  if (wall < minWall || wall > maxWall) return new Time(wall, nsec, Local);
  return new Time(wall, nsec, Local, monoNow());
}

export function since(t: Time): bigint {
  if (t.mono !== undefined) return subMono(monoNow(), t.mono);
  return sub(now(), t);
}

export function unix(sec: bigint, nsec: bigint): Time {
  if (nsec < 0n || nsec >= nsPerSec) {
    const n = nsec / nsPerSec;
    sec = i64(sec + n);
    nsec -= n * nsPerSec;
    if (nsec < 0n) {
      nsec += nsPerSec;
      sec = i64(sec - 1n);
    }
  }
  return new Time(i64(sec + unixToInternal), Number(nsec), Local);
}

export function dateOf(
  year: bigint,
  month: bigint,
  day: bigint,
  hour: bigint,
  min: bigint,
  sec: bigint,
  nsec: bigint,
  loc: Location,
): Time {
  let m = i64(month - 1n);
  [year, m] = norm(year, m, 12n);
  [sec, nsec] = norm(sec, nsec, nsPerSec);
  [min, sec] = norm(min, sec, 60n);
  [hour, min] = norm(hour, min, 60n);
  [day, hour] = norm(day, hour, 24n);

  let u = i64(
    i64(
      i64(dateToAbsDays(year, Number(m) + 1, day) * secondsPerDay) +
        i64(hour * 3600n + min * 60n + sec),
    ) + absoluteToUnix,
  );
  // Look the offset up at the local wall time taken as UTC, then once more at the
  // corrected instant if that falls in a different zone period.
  const z = lookup(loc, u);
  let offset = z.offset;
  if (offset !== 0) {
    const utc = i64(u - BigInt(offset));
    if (utc < z.start || utc >= z.end) offset = lookup(loc, utc).offset;
    u = i64(u - BigInt(offset));
  }
  return setLoc(new Time(i64(u + unixToInternal), Number(nsec), Local), loc);
}

export function addDate(t: Time, years: bigint, months: bigint, days: bigint): Time {
  const d = date(t);
  const c = timeClock(t);
  return dateOf(
    i64(d.year + years),
    i64(BigInt(d.month) + months),
    i64(BigInt(d.day) + days),
    BigInt(c.hour),
    BigInt(c.min),
    BigInt(c.sec),
    BigInt(t.nsec),
    location(t),
  );
}

export function unixNano(t: Time): bigint {
  return i64(unixSec(t) * nsPerSec + BigInt(t.nsec));
}

export function unixMilli(t: Time): bigint {
  return i64(unixSec(t) * 1000n + BigInt(Math.trunc(t.nsec / 1e6)));
}

export function unixMicro(t: Time): bigint {
  return i64(unixSec(t) * 1_000_000n + BigInt(Math.trunc(t.nsec / 1e3)));
}

export function isDST(t: Time): boolean {
  return lookup(t.loc, unixSec(t)).isDST;
}

/** The time modulo d since year 1, as Go's div computes it (always non-negative). */
function remainder(t: Time, d: bigint): bigint {
  const r = (t.sec * nsPerSec + BigInt(t.nsec)) % d;
  return r < 0n ? r + d : r;
}

function lessThanHalf(x: bigint, y: bigint): boolean {
  return u64(u64(x) + u64(x)) < u64(y);
}

/** Time.Truncate: rounds down to a multiple of d since year 1, dropping the monotonic reading. */
export function truncate(t: Time, d: bigint): Time {
  t = stripMono(t);
  if (d <= 0n) return t;
  return add(t, -remainder(t, d));
}

/** Time.Round: halfway rounds up. */
export function round(t: Time, d: bigint): Time {
  t = stripMono(t);
  if (d <= 0n) return t;
  const r = remainder(t, d);
  return lessThanHalf(r, d) ? add(t, -r) : add(t, d - r);
}
