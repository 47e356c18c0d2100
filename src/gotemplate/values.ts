// Go values as templates observe them. Templates can tell an int from a float64 from a
// string (printing, eq/lt, function argument checks), so plain JS values are not enough:
// float64 is a JS number, every Go integer kind is a GoInt (bigint, so int64 stays exact),
// and slices/maps carry their Go element type because `%T`, typeOf and argument checks
// show it.

/** A Go type as Go spells it (`int`, `[]interface {}`, `map[string]string`, ...). */
export type GoType = string;

/** Go's empty interface, `interface {}`: the type that holds any value. */
export const INTERFACE: GoType = 'interface {}';

export type IntKind =
  'int' | 'int8' | 'int16' | 'int32' | 'int64' | 'uint' | 'uint8' | 'uint16' | 'uint32' | 'uint64';

export class GoInt {
  constructor(
    readonly kind: IntKind,
    readonly v: bigint,
  ) {}
  get unsigned(): boolean {
    return this.kind.startsWith('u');
  }
}

export class GoSlice {
  constructor(
    readonly elem: GoType,
    readonly items: GoValue[],
    /** A nil slice (no items): encoding/json writes `null`, reflect.DeepEqual tells it apart. */
    readonly nil = false,
  ) {}
  get type(): GoType {
    return `[]${this.elem}`;
  }
}

/** Maps always have string keys here: that is all JSON/YAML data and sprig produce. */
export class GoMap {
  constructor(
    readonly elem: GoType,
    readonly entries: Map<string, GoValue>,
    /** A nil map (no entries, none can be set): encoding/json writes `null`. */
    readonly nil = false,
  ) {}
  get type(): GoType {
    return `map[string]${this.elem}`;
  }
  sortedKeys(): string[] {
    return [...this.entries.keys()].sort(compareGoStrings);
  }
}

/** A Go function value (data can carry functions for `call`). */
export class GoFunc {
  constructor(
    readonly type: GoType,
    readonly def: FuncDef,
  ) {}
}

/** A Go struct or pointer value with methods (semver versions, times). */
export class GoObject {
  constructor(
    readonly type: GoType,
    readonly methods: Record<string, FuncDef>,
    /** What fmt prints: the String() method, which such types have. */
    readonly str: () => string,
    /** 'int'/'int64': a named integer type with a String method (time.Month, time.Duration),
     * native being its bigint. */
    readonly kind: 'ptr' | 'struct' | 'complex128' | 'int' | 'int64' = 'ptr',
    readonly native?: unknown,
    readonly hooks: GoObjectHooks = {},
  ) {}

  /** The integer value of a named integer type. */
  get intValue(): bigint | undefined {
    return (this.kind === 'int' || this.kind === 'int64') && typeof this.native === 'bigint'
      ? this.native
      : undefined;
  }
}

/** What some Go types do, beyond String(), where a template can see it. */
export interface GoObjectHooks {
  /** encoding/json's Marshaler: the JSON text; throws an Error whose message is Go's. */
  marshalJSON?: () => string;
  /** The plain scalar yaml.v2 emits for the value. */
  yamlScalar?: () => string;
  /** Go's == on two values of this type (the builtin eq uses it). */
  equal?: (other: GoObject) => boolean;
  /** reflect.DeepEqual with a value of the same type; without it, String() decides. */
  deepEqual?: (other: GoObject) => boolean;
}

/** `null` is a nil interface value sitting in a slot (map value, list element, result). */
export type GoValue =
  string | number | boolean | null | GoInt | GoSlice | GoMap | GoFunc | GoObject;

/** A function's signature and implementation, as the executor needs to check and call it. */
export interface FuncDef {
  /** Types of the fixed parameters. */
  params: GoType[];
  /** Element type of the variadic parameter, if any. */
  variadic?: GoType;
  /**
   * The implementation. Arguments arrive checked and converted to the parameter types;
   * `undefined` only for `reflect.Value` parameters given an invalid value. Throw a
   * FuncError for Go's returned error (or a recovered panic).
   */
  impl: (args: (GoValue | undefined)[]) => GoValue | undefined;
}

/** The error a Go function returns (or the panic it raises), as text. */
export class FuncError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FuncError';
  }
}

export function int(n: number | bigint, kind: IntKind = 'int'): GoInt {
  return new GoInt(kind, typeof n === 'bigint' ? n : BigInt(Math.trunc(n)));
}

export function typeOf(v: GoValue | undefined): GoType {
  if (v === undefined || v === null) return '<nil>';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
  }
  if (v instanceof GoInt) return v.kind;
  return v.type;
}

/** Go's reflect.Kind name. */
export function kindOf(v: GoValue | undefined): string {
  if (v === undefined || v === null) return 'invalid';
  if (v instanceof GoSlice) return 'slice';
  if (v instanceof GoMap) return 'map';
  if (v instanceof GoFunc) return 'func';
  if (v instanceof GoObject) return v.kind;
  return typeOf(v);
}

/** Byte-wise comparison, as Go compares strings (UTF-16 order differs above the BMP). */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i) ?? 0;
    const y = b.codePointAt(i) ?? 0;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Go's truthiness (text/template isTrue); undefined is the invalid value. */
export function isTrue(v: GoValue | undefined): boolean {
  if (v === undefined || v === null) return false;
  switch (typeof v) {
    case 'string':
      return v.length > 0;
    case 'number':
      return v !== 0;
    case 'boolean':
      return v;
  }
  if (v instanceof GoInt) return v.v !== 0n;
  if (v instanceof GoSlice) return v.items.length > 0;
  if (v instanceof GoMap) return v.entries.size > 0;
  if (v instanceof GoObject) {
    if (v.intValue !== undefined) return v.intValue !== 0n;
    const c = v.native as { re: number; im: number } | undefined;
    return v.kind === 'complex128' && c ? c.re !== 0 || c.im !== 0 : true;
  }
  return true;
}

export const utf8 = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

/** Length of the valid UTF-8 sequence at b[i] as Go's utf8.DecodeRune accepts it, or 0. */
function goRuneLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (j: number, lo = 0x80, hi = 0xbf): boolean =>
    i + j < b.length && b[i + j]! >= lo && b[i + j]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const lo = c === 0xe0 ? 0xa0 : 0x80;
    const hi = c === 0xed ? 0x9f : 0xbf;
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const lo = c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xf4 ? 0x8f : 0xbf;
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/**
 * Bytes to text as Go sees them when it ranges over or prints a string: every byte that does
 * not start a valid UTF-8 sequence is one U+FFFD (TextDecoder would merge a broken sequence
 * into one, so cut multi-byte text would differ from Go's output).
 */
export const utf8Decoder = {
  decode(b: Uint8Array): string {
    try {
      return strictDecoder.decode(b);
    } catch {
      let out = '';
      let start = 0;
      for (let i = 0; i < b.length;) {
        const n = goRuneLength(b, i);
        if (n > 0) {
          i += n;
          continue;
        }
        out += strictDecoder.decode(b.subarray(start, i)) + '\uFFFD';
        i++;
        start = i;
      }
      return out + strictDecoder.decode(b.subarray(start));
    }
  },
};

/** Length in bytes, as Go's len(string). */
export function byteLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Convert plain JS data (as decoded from JSON/YAML) into Go values the way encoding/json would. */
export function fromJS(x: unknown): GoValue {
  if (x === null || x === undefined) return null;
  switch (typeof x) {
    case 'string':
    case 'number':
    case 'boolean':
      return x;
    case 'bigint':
      return new GoInt('int64', x);
  }
  if (
    x instanceof GoInt ||
    x instanceof GoSlice ||
    x instanceof GoMap ||
    x instanceof GoFunc ||
    x instanceof GoObject
  ) {
    return x;
  }
  if (Array.isArray(x)) return new GoSlice(INTERFACE, x.map(fromJS));
  if (x instanceof Map) {
    const m = new Map<string, GoValue>();
    for (const [k, v] of x as Map<unknown, unknown>) m.set(String(k), fromJS(v));
    return new GoMap(INTERFACE, m);
  }
  if (typeof x === 'object') {
    const m = new Map<string, GoValue>();
    for (const [k, v] of Object.entries(x as Record<string, unknown>)) m.set(k, fromJS(v));
    return new GoMap(INTERFACE, m);
  }
  return null;
}

/** The reverse of fromJS, for JSON/YAML encoding. */
export function toJS(v: GoValue | undefined): unknown {
  if (v === undefined || v === null) return null;
  if (v instanceof GoInt) return v.v;
  if (v instanceof GoSlice) return v.items.map(toJS);
  if (v instanceof GoMap) {
    const o: Record<string, unknown> = {};
    for (const k of v.sortedKeys()) o[k] = toJS(v.entries.get(k) ?? null);
    return o;
  }
  if (v instanceof GoObject) return v.str();
  if (v instanceof GoFunc) return null;
  return v;
}
