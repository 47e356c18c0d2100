// sprig's numeric functions: int64 arithmetic via cast, float ops through decimals.

import type { GoInt } from '../values.ts';
import { INTERFACE as A } from '../values.ts';
import type { FuncDef } from '../values.ts';
import { fn, goErr, i64, int, strval, toFloat64, toInt64 } from './convert.ts';
import type { V } from './convert.ts';
import { sliceOf } from './convert.ts';

const I = 'int';

function untilStep(start: number, stop: number, step: number): number[] {
  const v: number[] = [];
  if (stop < start) {
    if (step >= 0) return v;
    for (let i = start; i > stop; i += step) v.push(i);
    return v;
  }
  if (step <= 0) return v;
  for (let i = start; i < stop; i += step) v.push(i);
  return v;
}

function intList(xs: number[]): V {
  return sliceOf(
    xs.map((x) => int(x)),
    'int',
  );
}

function seq(p: number[]): string {
  let inc = 1;
  let r: number[];
  switch (p.length) {
    case 1: {
      const [start, end] = [1, p[0]!];
      if (end < start) inc = -1;
      r = untilStep(start, end + inc, inc);
      break;
    }
    case 2: {
      const [start, end] = [p[0]!, p[1]!];
      const step = end < start ? -1 : 1;
      r = untilStep(start, end + step, step);
      break;
    }
    case 3: {
      const [start, step, end] = [p[0]!, p[1]!, p[2]!];
      if (end < start) {
        inc = -1;
        if (step > 0) return '';
      }
      r = untilStep(start, end + inc, step);
      break;
    }
    default:
      return '';
  }
  return r.join(' ');
}

// shopspring/decimal arithmetic on the shortest decimal form of each float.
interface Dec {
  m: bigint;
  e: number; // value = m * 10^e
}

function toDec(f: number): Dec {
  if (f === 0 || !Number.isFinite(f)) return { m: 0n, e: 0 };
  const [mant, exp] = f.toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '').replace('-', '');
  const frac = (mant.split('.')[1] ?? '').length;
  return { m: BigInt(digits) * (f < 0 ? -1n : 1n), e: Number(exp) - frac };
}

function align(a: Dec, b: Dec): [bigint, bigint, number] {
  const e = Math.min(a.e, b.e);
  return [a.m * 10n ** BigInt(a.e - e), b.m * 10n ** BigInt(b.e - e), e];
}

function decToFloat(d: Dec): number {
  return Number(`${d.m}e${d.e}`);
}

const decOps: Record<string, (a: Dec, b: Dec) => Dec> = {
  add: (a, b) => {
    const [x, y, e] = align(a, b);
    return { m: x + y, e };
  },
  sub: (a, b) => {
    const [x, y, e] = align(a, b);
    return { m: x - y, e };
  },
  mul: (a, b) => ({ m: a.m * b.m, e: a.e + b.e }),
  div: (a, b) => {
    if (b.m === 0n) goErr('decimal division by 0');
    // DivisionPrecision = 16 fractional digits, rounded half away from zero.
    const scale = 17;
    const num = a.m * 10n ** BigInt(scale + Math.max(0, b.e - a.e + 0));
    const q = num / b.m;
    let e = a.e - b.e - scale - Math.max(0, b.e - a.e);
    let m = q;
    // round to 16 digits after the point
    const extra = -e - 16;
    if (extra > 0) {
      const p = 10n ** BigInt(extra);
      const r = m % p;
      m = m / p;
      if ((r < 0n ? -r : r) * 2n >= p) m += m < 0n || (m === 0n && r < 0n) ? -1n : 1n;
      e += extra;
    }
    return { m, e };
  },
};

function decimalOp(op: string, first: V, rest: V[]): number {
  let acc = toDec(toFloat64(first));
  for (const x of rest) acc = decOps[op]!(acc, toDec(toFloat64(x)));
  return decToFloat(acc);
}

function intDiv(a: bigint, b: bigint, mod: boolean): GoInt {
  if (b === 0n) goErr('runtime error: integer divide by zero');
  return i64(mod ? a % b : a / b);
}

function round(a: V, p: number, on: number): number {
  const val = toFloat64(a);
  const pow = Math.pow(10, p);
  const digit = pow * val;
  const div = digit - Math.trunc(digit);
  return (div >= on ? Math.ceil(digit) : Math.floor(digit)) / pow;
}

function toDecimal(v: V): GoInt {
  const s = strval(v);
  if (!/^[+-]?[0-7]+$/.test(s)) return i64(0n);
  const r = BigInt('0o' + s.replace(/^[+-]/, '')) * (s.startsWith('-') ? -1n : 1n);
  return r > (1n << 63n) - 1n || r < -(1n << 63n) ? i64(0n) : i64(r);
}

function atoi(s: string): GoInt {
  if (!/^[+-]?\d+$/.test(s)) return int(0);
  const v = BigInt(s);
  return v > (1n << 63n) - 1n || v < -(1n << 63n) ? int(0) : int(v);
}

const n = (v: GoInt): number => Number(v.v);

export const sprigMath: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  ['atoi', fn(['string'], (a) => atoi(a[0]))],
  ['int64', fn([A], (a) => i64(toInt64(a[0])))],
  ['int', fn([A], (a) => int(toInt64(a[0])))],
  ['float64', fn([A], (a) => toFloat64(a[0]))],
  ['seq', fn([], (a) => seq(a.map(n)), I)],
  ['toDecimal', fn([A], (a) => toDecimal(a[0]))],
  ['until', fn([I], (a) => intList(untilStep(0, n(a[0]), n(a[0]) < 0 ? -1 : 1)))],
  ['untilStep', fn([I, I, I], (a) => intList(untilStep(n(a[0]), n(a[1]), n(a[2]))))],
  ['add1', fn([A], (a) => i64(toInt64(a[0]) + 1n))],
  ['add', fn([], (a) => i64(a.reduce((s, x) => s + toInt64(x), 0n)), A)],
  ['sub', fn([A, A], (a) => i64(toInt64(a[0]) - toInt64(a[1])))],
  ['div', fn([A, A], (a) => intDiv(toInt64(a[0]), toInt64(a[1]), false))],
  ['mod', fn([A, A], (a) => intDiv(toInt64(a[0]), toInt64(a[1]), true))],
  [
    'mul',
    fn(
      [A],
      (a) => i64(a.slice(1).reduce((s, x) => BigInt.asIntN(64, s * toInt64(x)), toInt64(a[0]))),
      A,
    ),
  ],
  ['randInt', fn([I, I], (a) => int(n(a[0]) + Math.floor(Math.random() * (n(a[1]) - n(a[0])))))],
  ['add1f', fn([A], (a) => decimalOp('add', a[0], [1]))],
  ['addf', fn([], (a) => decimalOp('add', 0, a), A)],
  ['subf', fn([A], (a) => decimalOp('sub', a[0], a.slice(1)), A)],
  ['divf', fn([A], (a) => decimalOp('div', a[0], a.slice(1)), A)],
  ['mulf', fn([A], (a) => decimalOp('mul', a[0], a.slice(1)), A)],
  ['biggest', fn([A], (a) => i64(a.map(toInt64).reduce((m, x) => (x > m ? x : m))), A)],
  ['max', fn([A], (a) => i64(a.map(toInt64).reduce((m, x) => (x > m ? x : m))), A)],
  ['min', fn([A], (a) => i64(a.map(toInt64).reduce((m, x) => (x < m ? x : m))), A)],
  ['maxf', fn([A], (a) => a.map(toFloat64).reduce((m, x) => Math.max(m, x)), A)],
  ['minf', fn([A], (a) => a.map(toFloat64).reduce((m, x) => Math.min(m, x)), A)],
  ['ceil', fn([A], (a) => Math.ceil(toFloat64(a[0])))],
  ['floor', fn([A], (a) => Math.floor(toFloat64(a[0])))],
  ['round', fn([A, I], (a) => round(a[0], n(a[1]), a[2] ?? 0.5), 'float64')],
]);
