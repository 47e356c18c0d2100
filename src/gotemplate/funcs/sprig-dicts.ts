// sprig's dict functions (dict.go).

import { GoMap, GoSlice, kindOf, typeOf } from '../values.ts';
import { INTERFACE as A } from '../values.ts';
import type { FuncDef, GoValue } from '../values.ts';
import { empty, fn, goErr, sliceOf, strList, strval } from './convert.ts';
import type { V } from './convert.ts';

const M = 'map[string]interface {}';
const S = 'string';

function dict(a: V[]): GoMap {
  const m = new Map<string, GoValue>();
  for (let i = 0; i < a.length; i += 2) {
    const k = strval(a[i]);
    m.set(k, i + 1 >= a.length ? '' : (a[i + 1] ?? null));
  }
  return new GoMap(A, m);
}

function copyValue(v: GoValue): GoValue {
  if (v instanceof GoMap)
    return new GoMap(v.elem, new Map([...v.entries].map(([k, x]) => [k, copyValue(x)])), v.nil);
  if (v instanceof GoSlice) return new GoSlice(v.elem, v.items.map(copyValue), v.nil);
  return v;
}

/** mergo's error for values of two types under one key (the kinds, source first). */
class MergeMismatch extends Error {}

/** mergo's isReflectNil on an element: a nil map or slice (a nil interface is no value). */
function reflectNil(v: GoValue | undefined): boolean {
  return (v instanceof GoMap || v instanceof GoSlice) && v.nil;
}

/**
 * imdario/mergo v0.3.9's deepMerge of map[string]interface{} values, which KUDO's sprig
 * uses: an empty source value never replaces anything (nor adds its key); a source value
 * fills an empty destination, or, with `override`, replaces a set one; nested maps merge in
 * place; values of different Go types under one key are an error. `top` is the map the
 * caller holds (a nil one is replaced by a new map; a nested nil map by the source's).
 */
function mergeMaps(dst: GoMap, src: GoMap, override: boolean, top: boolean): GoMap {
  if (dst.nil && !src.nil) {
    if (!top) return src;
    dst = new GoMap(dst.elem, new Map());
  }
  for (const [k, sv] of src.entries) {
    const dv = dst.entries.get(k);
    if (sv === null) {
      if (override || reflectNil(dv)) dst.entries.set(k, null);
      continue;
    }
    const merged = mergeValue(dv ?? undefined, sv, override);
    // A destination left without a value (nil, and an empty source) loses its key.
    if (merged === undefined) dst.entries.delete(k);
    else dst.entries.set(k, merged);
  }
  return dst;
}

function mergeValue(dv: GoValue | undefined, sv: GoValue, override: boolean): GoValue | undefined {
  if (dv !== undefined && dv !== null && typeOf(dv) !== typeOf(sv)) {
    throw new MergeMismatch(`cannot append two different types (${kindOf(sv)}, ${kindOf(dv)})`);
  }
  if (dv instanceof GoMap) return mergeMaps(dv, sv as GoMap, override, false);
  const replace = !empty(sv) && (override || empty(dv));
  return replace ? sv : (dv ?? undefined);
}

/** sprig v2's merge: mergo's errors are swallowed and the result is then an empty string. */
function merge([first, ...rest]: [GoMap, ...GoMap[]], override: boolean): V {
  let dst = first;
  try {
    for (const src of rest) dst = mergeMaps(dst, src, override, true);
  } catch (e) {
    if (e instanceof MergeMismatch) return '';
    throw e;
  }
  return dst;
}

/** dario.cat/mergo's Merge as sprig v3's must variants (an extension) call it. */
function mergeV3(dst: GoMap, src: GoMap, override: boolean): void {
  for (const [k, sv] of src.entries) {
    const dv = dst.entries.get(k);
    if (dv instanceof GoMap && sv instanceof GoMap) {
      mergeV3(dv, sv, override);
      continue;
    }
    if (!dst.entries.has(k) || empty(dv)) dst.entries.set(k, sv);
    else if (override && !empty(sv)) dst.entries.set(k, sv);
  }
}

function mustMerge([dst, ...rest]: [GoMap, ...GoMap[]], override: boolean): V {
  for (const src of rest) mergeV3(dst, src, override);
  return dst;
}

function dig(a: V[]): V {
  if (a.length < 3) goErr('dig needs at least three arguments');
  let d = a[a.length - 1];
  const def = a[a.length - 2] ?? null;
  const keys = a.slice(0, a.length - 2);
  for (let i = 0; i < keys.length; i++) {
    if (!(d instanceof GoMap))
      goErr('interface conversion: interface {} is not map[string]interface {}');
    const k = keys[i];
    if (typeof k !== 'string') goErr('interface conversion: interface {} is not string');
    if (!d.entries.has(k)) return def;
    d = d.entries.get(k) ?? null;
  }
  return d ?? null;
}

export const sprigDicts: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  ['dict', fn([], dict, A)],
  [
    'get',
    fn([M, S], (a) => {
      const m = a[0];
      return m.entries.has(a[1]) ? (m.entries.get(a[1]) ?? null) : '';
    }),
  ],
  [
    'set',
    fn([M, S, A], (a) => {
      if (a[0].nil) goErr('assignment to entry in nil map');
      a[0].entries.set(a[1], a[2] ?? null);
      return a[0];
    }),
  ],
  [
    'unset',
    fn([M, S], (a) => {
      a[0].entries.delete(a[1]);
      return a[0];
    }),
  ],
  ['hasKey', fn([M, S], (a) => a[0].entries.has(a[1]))],
  [
    'pluck',
    fn(
      [S],
      ([key, ...maps]) =>
        sliceOf(maps.filter((m) => m.entries.has(key)).map((m) => m.entries.get(key) ?? null)),
      M,
    ),
  ],
  ['keys', fn([], (a) => strList(a.flatMap((m) => [...m.entries.keys()])), M)],
  [
    'pick',
    fn(
      [M],
      ([m, ...keys]) => {
        const out = new Map<string, GoValue>();
        for (const k of keys) if (m.entries.has(k)) out.set(k, m.entries.get(k) ?? null);
        return new GoMap(A, out);
      },
      S,
    ),
  ],
  [
    'omit',
    fn(
      [M],
      ([m, ...keys]) => {
        const drop = new Set(keys);
        return new GoMap(A, new Map([...m.entries].filter(([k]) => !drop.has(k))));
      },
      S,
    ),
  ],
  ['values', fn([M], (a) => sliceOf([...a[0].entries.values()]))],
  ['merge', fn([M], (a) => merge(a, false), M)],
  ['mergeOverwrite', fn([M], (a) => merge(a, true), M)],
  ['mustMerge', fn([M], (a) => mustMerge(a, false), M)],
  ['mustMergeOverwrite', fn([M], (a) => mustMerge(a, true), M)],
  ['dig', fn([], dig, A)],
  [
    'deepCopy',
    fn([A], (a) => {
      if (a[0] === undefined || a[0] === null)
        goErr('reflect: call of reflect.Value.Type on zero Value');
      return copyValue(a[0]);
    }),
  ],
  [
    'mustDeepCopy',
    fn([A], (a) => {
      if (a[0] === undefined || a[0] === null)
        goErr('reflect: call of reflect.Value.Type on zero Value');
      return copyValue(a[0]);
    }),
  ],
]);
