// sprig's conversions (spf13/cast and sprig's strval/strslice), shared by the sprig modules.

import { formatValue, noFlags, sprintf } from '../fmt.ts';
import { INTERFACE } from '../values.ts';
import { FuncError, GoInt, GoMap, GoObject, GoSlice, typeOf } from '../values.ts';
import type { FuncDef, GoType, GoValue, IntKind } from '../values.ts';

export type V = GoValue | undefined;

/**
 * The value a parameter of Go type `T` receives: the executor converts every argument to the
 * parameter's type before the call (exec.ts, validateType), so a `string` parameter holds a
 * string, an integer kind a GoInt, a slice a GoSlice, and so on. Types it cannot tell apart
 * (other named types) stay GoValue; `reflect.Value` may be undefined.
 */
export type GoArg<T extends GoType | undefined> = T extends 'string'
  ? string
  : T extends 'bool'
    ? boolean
    : T extends 'float64' | 'float32'
      ? number
      : T extends IntKind
        ? GoInt
        : T extends `[]${string}`
          ? GoSlice
          : T extends `map[${string}`
            ? GoMap
            : T extends 'reflect.Value'
              ? V
              : T extends 'time.Time'
                ? GoObject
                : GoValue;

/** The arguments of a function with parameters `P` (and variadic element `R`, if any). */
export type GoArgs<P extends readonly GoType[], R extends GoType | undefined> = R extends GoType
  ? [...{ -readonly [K in keyof P]: GoArg<P[K]> }, ...Array<GoArg<R>>]
  : { -readonly [K in keyof P]: GoArg<P[K]> };

/**
 * A function definition whose implementation sees its arguments typed by the declared
 * parameter types (`fn(['int', 'string'], ([n, s]) => …)` gets a GoInt and a string).
 */
export function fn<
  const P extends readonly GoType[],
  const R extends GoType | undefined = undefined,
>(params: P, impl: (a: GoArgs<P, R>) => V, variadic?: R): FuncDef {
  // The one place the typing is asserted: the executor converts each argument to its
  // parameter's type before calling (exec.ts), which the type system cannot see.
  const call = impl as unknown as (a: V[]) => V;
  return variadic === undefined
    ? { params: [...params], impl: call }
    : { params: [...params], variadic, impl: call };
}

export function i64(n: bigint): GoInt {
  return new GoInt('int64', BigInt.asIntN(64, n));
}

export function int(n: number | bigint): GoInt {
  return new GoInt('int', BigInt.asIntN(64, typeof n === 'bigint' ? n : BigInt(Math.trunc(n))));
}

/** sprig strval: fmt %v, with strings and Stringers as themselves. */
export function strval(v: V): string {
  if (typeof v === 'string') return v;
  if (v instanceof GoObject) return v.str();
  if (v === undefined || v === null) return '<nil>';
  return formatValue(v, 'v', noFlags, 0);
}

const MIN_INT64 = -(1n << 63n);
const MAX_INT64 = (1n << 63n) - 1n;

/**
 * sprig v2's toInt64: a string is strconv.ParseInt(s, 10, 64) (anything else, "08" aside,
 * gives 0: no decimals, no base prefixes), a float truncates (out of range: Go's amd64
 * conversion gives the minimum), any integer kind (named ones too) is its value, with
 * uint64 above the maximum clamped.
 */
export function toInt64(v: V): bigint {
  if (v instanceof GoInt) return v.v > MAX_INT64 ? MAX_INT64 : v.v;
  if (v instanceof GoObject && v.intValue !== undefined) return v.intValue;
  switch (typeof v) {
    case 'number':
      if (!Number.isFinite(v) || Math.abs(v) >= 2 ** 63) return MIN_INT64;
      return BigInt(Math.trunc(v));
    case 'boolean':
      return v ? 1n : 0n;
    case 'string': {
      if (!/^[+-]?\d+$/.test(v)) return 0n;
      const n = BigInt(v);
      return n < MIN_INT64 || n > MAX_INT64 ? 0n : n;
    }
  }
  return 0n;
}

/** sprig v2's toFloat64: strconv.ParseFloat for strings (errors give 0). */
export function toFloat64(v: V): number {
  if (v instanceof GoInt) return Number(v.v);
  if (v instanceof GoObject && v.intValue !== undefined) return Number(v.intValue);
  switch (typeof v) {
    case 'number':
      return v;
    case 'boolean':
      return v ? 1 : 0;
    case 'string': {
      const t = v.trim() === v ? v : '';
      if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
      if (/^nan$/i.test(t)) return NaN;
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return 0;
      return Number(t);
    }
  }
  return 0;
}

/** reflect Kind name used in sprig's "Cannot ... on type %s" messages. */
export function kindName(v: V): string {
  if (v === undefined || v === null) return 'invalid';
  if (v instanceof GoSlice) return 'slice';
  if (v instanceof GoMap) return 'map';
  if (v instanceof GoObject) return v.kind;
  return typeOf(v);
}

/** Go's panic for reflect.TypeOf(nil).Kind(). */
export const nilDeref = 'runtime error: invalid memory address or nil pointer dereference';

/** sprig strslice. */
export function strslice(v: V): string[] {
  if (v instanceof GoSlice) return v.items.filter((x) => x !== null).map(strval);
  if (v === undefined || v === null) return [];
  return [strval(v)];
}

export function sliceOf(items: GoValue[], elem: GoType = INTERFACE): GoSlice {
  return new GoSlice(elem, items);
}

export function strList(items: string[]): GoSlice {
  return new GoSlice('string', items);
}

export function goErr(msg: string): never {
  throw new FuncError(msg);
}

/** sprig empty(). */
export function empty(v: V): boolean {
  if (v === undefined || v === null) return true;
  switch (typeof v) {
    case 'string':
      return v.length === 0;
    case 'number':
      return v === 0;
    case 'boolean':
      return !v;
  }
  if (v instanceof GoInt) return v.v === 0n;
  if (v instanceof GoSlice) return v.items.length === 0;
  if (v instanceof GoMap) return v.entries.size === 0;
  if (v instanceof GoObject && v.intValue !== undefined) return v.intValue === 0n;
  return false;
}

/** reflect.DeepEqual for GoValues. */
export function deepEqual(a: V, b: V): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a === null || b === null) return a === b;
  if (typeOf(a) !== typeOf(b)) return false;
  if (a instanceof GoInt) return a.v === (b as GoInt).v;
  if (a instanceof GoSlice) {
    if (a.nil !== (b as GoSlice).nil) return false;
    const bi = (b as GoSlice).items;
    return a.items.length === bi.length && a.items.every((x, i) => deepEqual(x, bi[i]));
  }
  if (a instanceof GoMap) {
    if (a.nil !== (b as GoMap).nil) return false;
    const bm = (b as GoMap).entries;
    if (a.entries.size !== bm.size) return false;
    for (const [k, x] of a.entries) if (!bm.has(k) || !deepEqual(x, bm.get(k))) return false;
    return true;
  }
  if (a instanceof GoObject)
    return a.hooks.deepEqual?.(b as GoObject) ?? a.str() === (b as GoObject).str();
  return a === b;
}

export { sprintf };
