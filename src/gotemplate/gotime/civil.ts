// Go's calendar arithmetic (time.go): seconds and days counted from an "absolute" epoch
// far before year 1, so that every date is a non-negative uint64 and the March-based
// year makes February's leap day the last day of the year. Values are bigints because Go
// does this in int64/uint64 and wraps on overflow; a template can hand in any int64
// (`date "2006" $huge`), and the wrapped result is what Go prints.

export const secondsPerDay = 86400n;

const absoluteYears = 292277022400n;
const marchThruDecember = 306n;
/** absoluteYears is a multiple of 400, so its day count is exact. */
const absoluteToInternal = -((absoluteYears / 400n) * 146097n + marchThruDecember) * secondsPerDay;
export const internalToAbsolute = -absoluteToInternal;
export const unixToInternal = (1969n * 365n + 1969n / 4n - 1969n / 100n + 1969n / 400n) * 86400n;
export const internalToUnix = -unixToInternal;
export const absoluteToUnix = absoluteToInternal + internalToUnix;
export const unixToAbsolute = unixToInternal + internalToAbsolute;
/** Times carrying a monotonic reading keep 33 bits of seconds counted from 1885. */
export const wallToInternal = (1884n * 365n + 1884n / 4n - 1884n / 100n + 1884n / 400n) * 86400n;
export const minWall = wallToInternal;
export const maxWall = wallToInternal + (1n << 33n) - 1n;

export const maxInt64 = (1n << 63n) - 1n;
export const minInt64 = -(1n << 63n);

/** Go int64 (and int) arithmetic wraps. */
export function i64(x: bigint): bigint {
  return BigInt.asIntN(64, x);
}

export function u64(x: bigint): bigint {
  return BigInt.asUintN(64, x);
}

export const longDayNames = [
  'Sunday',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
] as const;
export const shortDayNames = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
export const longMonthNames = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;
export const shortMonthNames = [
  'Jan',
  'Feb',
  'Mar',
  'Apr',
  'May',
  'Jun',
  'Jul',
  'Aug',
  'Sep',
  'Oct',
  'Nov',
  'Dec',
] as const;

/** Month.String(): out-of-range values print as Go's `%!Month(n)`. */
export function monthString(m: bigint): string {
  if (m >= 1n && m <= 12n) return longMonthNames[Number(m) - 1]!;
  return `%!Month(${u64(m)})`;
}

export function weekdayString(d: bigint): string {
  if (d >= 0n && d <= 6n) return longDayNames[Number(d)]!;
  return `%!Weekday(${u64(d)})`;
}

export function isLeap(year: bigint): boolean {
  // Divisible by 4, and by 16 when divisible by 25 (that is, by 400 when by 100).
  const mask = year % 25n !== 0n ? 3n : 15n;
  return (year & mask) === 0n;
}

/** Days before the first of month m (1-12) in a non-leap year. */
export function daysBefore(m: number): number {
  const adj = m >= 3 ? -2 : 0;
  return Math.trunc((214 * m - 211) / 7) + adj;
}

export function daysIn(m: number, year: bigint): number {
  if (m === 2) return isLeap(year) ? 29 : 28;
  return 30 + ((m + (m >> 3)) & 1);
}

/** Absolute day number of a civil date; month must already be normalised to 1-12. */
export function dateToAbsDays(year: bigint, month: number, day: bigint): bigint {
  const janFeb = month < 3 ? 1 : 0;
  const amonth = month + 12 * janFeb;
  const y = u64(year - BigInt(janFeb) + absoluteYears);
  const ayday = (979 * amonth - 2919) >>> 5;
  const century = y / 100n;
  const cyear = Number(y % 100n);
  const cday = Math.trunc((1461 * cyear) / 4);
  const centurydays = u64(146097n * century) / 4n;
  return u64(centurydays + i64(BigInt(cday + ayday) + day - 1n));
}

interface Split {
  century: bigint;
  cyear: number;
  ayday: number;
}

/** Century, year within it and day within the March-based year. */
function split(days: bigint): Split {
  const d = u64(4n * days + 3n);
  const century = d / 146097n;
  const cd = Number(d % 146097n) | 3;
  // A 32x32→64-bit multiply: the high word is the year in the century, the low word
  // scaled back gives the day in the year.
  const p = 2939745 * cd;
  const hi = Math.floor(p / 2 ** 32);
  const lo = p - hi * 2 ** 32;
  return { century, cyear: hi, ayday: Math.floor(Math.floor(lo / 2939745) / 4) };
}

function janFebOf(ayday: number): number {
  return ayday >= 306 ? 1 : 0;
}

function yearOf(s: Split, janFeb: number): bigint {
  return i64(i64(s.century * 100n - absoluteYears) + BigInt(s.cyear + janFeb));
}

export interface CivilDate {
  year: bigint;
  month: number;
  day: number;
}

export function civilDate(days: bigint): CivilDate {
  const s = split(days);
  const d = 2141 * s.ayday + 197913;
  const janFeb = janFebOf(s.ayday);
  return {
    year: yearOf(s, janFeb),
    month: (d >>> 16) - 12 * janFeb,
    day: 1 + Math.trunc((d & 0xffff) / 2141),
  };
}

export function yearYday(days: bigint): { year: bigint; yday: number } {
  const s = split(days);
  const janFeb = janFebOf(s.ayday);
  const leap = s.cyear % 4 === 0 && (s.cyear !== 0 || s.century % 4n === 0n) ? 1 : 0;
  return {
    year: yearOf(s, janFeb),
    yday: s.ayday + (1 + 31 + 28) + (leap & ~janFeb) - 365 * janFeb,
  };
}

export function weekday(days: bigint): number {
  // The absolute epoch is a Wednesday.
  return Number(u64(days + 3n) % 7n);
}

export function clock(abs: bigint): { hour: number; min: number; sec: number } {
  let sec = Number(abs % secondsPerDay);
  const hour = Math.trunc(sec / 3600);
  sec -= hour * 3600;
  const min = Math.trunc(sec / 60);
  sec -= min * 60;
  return { hour, min, sec };
}

/** Go's norm: carry lo's excess into hi so that 0 <= lo < base (int64 arithmetic). */
export function norm(hi: bigint, lo: bigint, base: bigint): [bigint, bigint] {
  if (lo < 0n) {
    const n = i64(i64(i64(-lo) - 1n) / base + 1n);
    hi = i64(hi - n);
    lo = i64(lo + i64(n * base));
  }
  if (lo >= base) {
    const n = lo / base;
    hi = i64(hi + n);
    lo = i64(lo - i64(n * base));
  }
  return [hi, lo];
}
