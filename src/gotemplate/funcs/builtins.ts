// text/template's builtin functions (funcs.go). and/or are short-circuited by the
// executor; their entries here give the signature it checks argument counts against.

import { quoteGo, sprint, sprintf, sprintln } from '../fmt.ts';
import { INTERFACE } from '../values.ts';
import {
  FuncError,
  GoFunc,
  GoInt,
  GoMap,
  GoObject,
  GoSlice,
  byteLength,
  isTrue,
  typeOf,
  utf8,
} from '../values.ts';
import type { FuncDef, GoValue } from '../values.ts';

type V = GoValue | undefined;
const RV = 'reflect.Value';

function indexArg(index: V, cap: number): number {
  if (index instanceof GoInt) {
    const x = index.v;
    if (x < 0n || x > BigInt(cap)) throw new FuncError(`index out of range: ${x}`);
    return Number(x);
  }
  if (index === undefined || index === null)
    throw new FuncError('cannot index slice/array with nil');
  throw new FuncError(`cannot index slice/array with type ${typeOf(index)}`);
}

function index(args: V[]): V {
  let item: V = args[0] ?? undefined;
  if (item === null || item === undefined) throw new FuncError('index of untyped nil');
  for (const idx of args.slice(1)) {
    if (item === null || item === undefined) throw new FuncError('index of nil pointer');
    if (typeof item === 'string' || item instanceof GoSlice) {
      const len: number = typeof item === 'string' ? byteLength(item) : item.items.length;
      const x = indexArg(idx, len);
      if (x === len)
        throw new FuncError(
          `reflect: ${typeof item === 'string' ? 'string' : 'slice'} index out of range`,
        );
      item =
        typeof item === 'string'
          ? new GoInt('uint8', BigInt(utf8.encode(item)[x]!))
          : item.items[x]!;
    } else if (item instanceof GoMap) {
      if (idx === undefined || idx === null)
        throw new FuncError('value is nil; should be of type string');
      if (typeof idx !== 'string')
        throw new FuncError(`value has type ${typeOf(idx)}; should be string`);
      const x = item.entries.get(idx);
      item = x !== undefined ? x : zeroOf(item.elem);
    } else {
      throw new FuncError(`can't index item of type ${typeOf(item)}`);
    }
  }
  return item;
}

function zeroOf(t: string): GoValue {
  if (t === 'string') return '';
  if (t === 'int') return new GoInt('int', 0n);
  return null;
}

function length(args: V[]): V {
  const item = args[0];
  if (item === null || item === undefined) throw new FuncError('len of nil pointer');
  if (typeof item === 'string') return new GoInt('int', BigInt(byteLength(item)));
  if (item instanceof GoSlice) return new GoInt('int', BigInt(item.items.length));
  if (item instanceof GoMap) return new GoInt('int', BigInt(item.entries.size));
  throw new FuncError(`len of type ${typeOf(item)}`);
}

type Kind = 'bool' | 'int' | 'uint' | 'float' | 'string' | 'invalid';

function basicKind(v: V): Kind {
  if (v === undefined || v === null) return 'invalid';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'number':
      return 'float';
    case 'string':
      return 'string';
  }
  if (v instanceof GoInt) return v.unsigned ? 'uint' : 'int';
  if (v instanceof GoObject && v.intValue !== undefined) return 'int';
  return 'invalid';
}

/** The integer of an int-kinded value, named integer types (time.Month) included. */
function intOf(v: V): bigint {
  return v instanceof GoObject ? v.intValue! : (v as GoInt).v;
}

const badComparisonType = 'invalid type for comparison';

function eqOne(a: V, k1: Kind, b: V): boolean {
  const k2 = basicKind(b);
  if (k1 !== k2) {
    if ((k1 === 'int' && k2 === 'uint') || (k1 === 'uint' && k2 === 'int')) {
      return intOf(a) === intOf(b);
    }
    if (a !== undefined && a !== null && b !== undefined && b !== null) {
      throw new FuncError(`incompatible types for comparison: ${typeOf(a)} and ${typeOf(b)}`);
    }
    return false;
  }
  switch (k1) {
    case 'int':
    case 'uint':
      return intOf(a) === intOf(b);
    case 'bool':
    case 'float':
    case 'string':
      return a === b;
  }
  // Neither is a basic kind.
  const aNil = a === undefined || a === null;
  const bNil = b === undefined || b === null;
  if (aNil || bNil) return aNil === bNil;
  if (typeOf(a) !== typeOf(b)) {
    throw new FuncError(
      `non-comparable types ${sprintf('%s', [a])}: ${typeOf(a)}, ${typeOf(b)}: ${sprint([b])}`,
    );
  }
  if (a instanceof GoSlice || a instanceof GoMap || a instanceof GoFunc) {
    throw new FuncError(`non-comparable type ${sprintf('%s', [b])}: ${typeOf(b)}`);
  }
  if (a instanceof GoObject && b instanceof GoObject && a.hooks.equal) return a.hooks.equal(b);
  return a === b;
}

function eq(args: V[]): V {
  const a = args[0];
  const rest = args.slice(1);
  if (rest.length === 0) throw new FuncError('missing argument for comparison');
  const k1 = basicKind(a);
  for (const b of rest) if (eqOne(a, k1, b)) return true;
  return false;
}

function lt(a: V, b: V): boolean {
  const k1 = basicKind(a);
  if (k1 === 'invalid') throw new FuncError(badComparisonType);
  const k2 = basicKind(b);
  if (k2 === 'invalid') throw new FuncError(badComparisonType);
  if (k1 !== k2) {
    if ((k1 === 'int' && k2 === 'uint') || (k1 === 'uint' && k2 === 'int')) {
      return intOf(a) < intOf(b);
    }
    throw new FuncError(`incompatible types for comparison: ${typeOf(a)} and ${typeOf(b)}`);
  }
  switch (k1) {
    case 'bool':
      throw new FuncError(badComparisonType);
    case 'int':
    case 'uint':
      return intOf(a) < intOf(b);
    default:
      return (a as number | string) < (b as number | string) && compareOK(a, b);
  }
}

function compareOK(a: V, b: V): boolean {
  // Go compares strings bytewise; JS < compares UTF-16 units. Only differs above the BMP.
  if (typeof a === 'string' && typeof b === 'string')
    return Buffer.compare(utf8.encode(a), utf8.encode(b)) < 0;
  return true;
}

function le(a: V, b: V): boolean {
  return lt(a, b) || eq([a, b]) === true;
}

/** text/template's evalArgs: what html/js/urlquery format. */
function evalArgs(args: V[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0];
  return sprint(args.map((a) => (a === undefined || a === null ? '<no value>' : a)));
}

export function htmlEscape(s: string): string {
  return s.replace(/[<>&'"\0]/g, (c) => {
    switch (c) {
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      case '&':
        return '&amp;';
      case "'":
        return '&#39;';
      case '"':
        return '&#34;';
      default:
        return '\uFFFD';
    }
  });
}

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

export function jsEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '\\':
        out += '\\\\';
        continue;
      case "'":
        out += "\\'";
        continue;
      case '"':
        out += '\\"';
        continue;
      case '<':
        out += '\\u003C';
        continue;
      case '>':
        out += '\\u003E';
        continue;
      case '&':
        out += '\\u0026';
        continue;
      case '=':
        out += '\\u003D';
        continue;
    }
    if (c < 0x20) out += '\\u00' + c.toString(16).toUpperCase().padStart(2, '0');
    else if (c < 0x80 || printable.test(ch)) out += ch;
    else out += '\\u' + c.toString(16).toUpperCase().padStart(4, '0');
  }
  return out;
}

/** url.QueryEscape. */
export function queryEscape(s: string): string {
  let out = '';
  for (const b of utf8.encode(s)) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function call(args: V[]): V {
  const name = args[0] as string;
  const fn = args[1];
  const rest = args.slice(2);
  if (fn === undefined || fn === null) throw new FuncError('call of nil');
  if (!(fn instanceof GoFunc)) throw new FuncError(`non-function ${name} of type ${typeOf(fn)}`);
  const def = fn.def;
  const numIn = def.params.length + (def.variadic !== undefined ? 1 : 0);
  if (def.variadic !== undefined) {
    if (rest.length < numIn - 1) {
      throw new FuncError(
        `wrong number of args for ${name}: got ${rest.length} want at least ${numIn - 1}`,
      );
    }
  } else if (rest.length !== numIn) {
    throw new FuncError(`wrong number of args for ${name}: got ${rest.length} want ${numIn}`);
  }
  const argv = rest.map((a, i) => {
    const t = i < def.params.length ? def.params[i]! : def.variadic!;
    if (t === INTERFACE) return a ?? null;
    if (a === undefined || a === null)
      throw new FuncError(`arg ${i}: value is nil; should be of type ${t}`);
    const at = typeOf(a);
    if (at === t) return a;
    if (a instanceof GoInt && /^u?int\d*$/.test(t)) return new GoInt(t as GoInt['kind'], a.v);
    throw new FuncError(`arg ${i}: value has type ${at}; should be ${t}`);
  });
  return def.impl(argv);
}

export const builtins: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  ['and', { params: [RV], variadic: RV, impl: () => undefined }],
  ['or', { params: [RV], variadic: RV, impl: () => undefined }],
  ['not', { params: [RV], impl: (a) => !isTrue(a[0]) }],
  ['call', { params: [RV], variadic: RV, impl: call }],
  ['html', { params: [], variadic: INTERFACE, impl: (a) => htmlEscape(evalArgs(a)) }],
  ['js', { params: [], variadic: INTERFACE, impl: (a) => jsEscape(evalArgs(a)) }],
  ['urlquery', { params: [], variadic: INTERFACE, impl: (a) => queryEscape(evalArgs(a)) }],
  ['index', { params: [RV], variadic: RV, impl: index }],
  ['len', { params: [RV], impl: length }],
  ['print', { params: [], variadic: INTERFACE, impl: (a) => sprint(a) }],
  [
    'printf',
    {
      params: ['string'],
      variadic: INTERFACE,
      impl: (a) => sprintf(a[0] as string, a.slice(1)),
    },
  ],
  ['println', { params: [], variadic: INTERFACE, impl: (a) => sprintln(a) }],
  ['eq', { params: [RV], variadic: RV, impl: eq }],
  ['ne', { params: [RV, RV], impl: (a) => !eq(a) }],
  ['lt', { params: [RV, RV], impl: (a) => lt(a[0], a[1]) }],
  ['le', { params: [RV, RV], impl: (a) => le(a[0], a[1]) }],
  ['gt', { params: [RV, RV], impl: (a) => !le(a[0], a[1]) }],
  ['ge', { params: [RV, RV], impl: (a) => !lt(a[0], a[1]) }],
]);

export { quoteGo };
