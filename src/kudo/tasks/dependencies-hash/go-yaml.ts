/**
 * The YAML text gopkg.in/yaml.v2 v2.3.0 (KUDO 0.19's version) writes for JSON-shaped data —
 * maps with string keys, lists, strings, numbers, booleans and null — byte for byte, because
 * KUDO's `kudo.dev/dependencies-hash` is an MD5 over exactly that text. No library writes
 * go-yaml's output: its key order (letters after non-letters, digit runs compared as
 * numbers), its choice of plain / single-quoted / double-quoted / literal scalars (YAML 1.1
 * resolution: `yes`, `0x1F`, `1:20`, `2001-12-14` are quoted) and its indentation (sequences
 * not indented under keys, `? ` for keys over 128 bytes) are reproduced here from the
 * behaviour of its emitter; v2.3.0 never folds long lines. test/gotemplate/yaml-oracle runs
 * go-yaml itself, and a unit test compares both over a table of objects.
 */

import { underscoreOK } from '../../../gotemplate/index.ts';

export type GoYamlValue =
  | null
  | boolean
  | number
  | string
  | readonly GoYamlValue[]
  | { readonly [key: string]: GoYamlValue };

type Style = 'plain' | 'single' | 'double' | 'literal';

const BEST_INDENT = 2;

/** What go-yaml's scalar analysis allows for one value. */
interface Analysis {
  readonly multiline: boolean;
  readonly blockPlainAllowed: boolean;
  readonly singleQuotedAllowed: boolean;
  readonly blockAllowed: boolean;
  /** UTF-8 length (simple keys are limited to 128 bytes). */
  readonly bytes: number;
}

function isBreak(cp: number): boolean {
  return cp === 0x0d || cp === 0x0a || cp === 0x85 || cp === 0x2028 || cp === 0x2029;
}

function isBlank(cp: number | undefined): boolean {
  return cp === 0x20 || cp === 0x09;
}

/** libyaml's printable set: LF, ASCII graphic + space, and the BMP minus surrogates/BOM/FFFE-F. */
function isPrintable(cp: number): boolean {
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}

function utf8Length(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0) ?? 0);
  return out;
}

const FLOW_AND_BLOCK_FIRST = new Set([...'#,[]{}&*!|>\'"%@`'].map((c) => c.charCodeAt(0)));

function analyze(value: CodePoints): Analysis {
  let bytes = 0;
  for (let i = 0; i < value.length; i++) bytes += utf8Length(at(value, i));
  if (value.length === 0) {
    return {
      multiline: false,
      blockPlainAllowed: true,
      singleQuotedAllowed: true,
      blockAllowed: false,
      bytes,
    };
  }
  let blockIndicators = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  let precededByWhitespace = true;
  const a = at(value, 0);
  const b = at(value, 1);
  const c = at(value, 2);
  if (
    value.length >= 3 &&
    ((a === 0x2d && b === 0x2d && c === 0x2d) || (a === 0x2e && b === 0x2e && c === 0x2e))
  ) {
    blockIndicators = true;
  }
  for (let i = 0; i < value.length; i++) {
    const cp = at(value, i);
    const followedByWhitespace = i + 1 >= value.length || isBlank(at(value, i + 1));
    if (i === 0) {
      if (FLOW_AND_BLOCK_FIRST.has(cp)) blockIndicators = true;
      else if ((cp === 0x3f || cp === 0x3a) && followedByWhitespace) blockIndicators = true;
      else if (cp === 0x2d && followedByWhitespace) blockIndicators = true;
    } else if (cp === 0x3a && followedByWhitespace) {
      blockIndicators = true;
    } else if (cp === 0x23 && precededByWhitespace) {
      blockIndicators = true;
    }
    if (!isPrintable(cp)) special = true;
    if (cp === 0x20) {
      if (i === 0) leadingSpace = true;
      if (i === value.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(cp)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === value.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlank(cp) || isBreak(cp) || cp === 0;
  }
  let blockPlainAllowed = true;
  let singleQuotedAllowed = true;
  let blockAllowed = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlainAllowed = false;
  if (trailingSpace) blockAllowed = false;
  if (breakSpace) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
  }
  if (spaceBreak || special) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
    blockAllowed = false;
  }
  if (lineBreaks || blockIndicators) blockPlainAllowed = false;
  return { multiline: lineBreaks, blockPlainAllowed, singleQuotedAllowed, blockAllowed, bytes };
}

// ------------------------------------------------------------------ YAML 1.1 resolution

const RESOLVED_WORDS = new Set([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'],
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'],
  ...['', '~', 'null', 'Null', 'NULL'],
  ...['.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'],
  ...['-.inf', '-.Inf', '-.INF'],
]);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * Go's strconv.ParseInt / ParseUint(s, 0, 64) succeeding for text without underscores (go-yaml
 * removes them first): optional sign (signed only), base prefix 0x/0o/0b or a leading 0
 * (octal), digits of the base, within range.
 */
function parsesAsGoInteger(s: string, unsigned: boolean): boolean {
  let rest = s;
  let negative = false;
  if (rest.startsWith('+') || rest.startsWith('-')) {
    if (unsigned) return false;
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  let base = 10;
  let digits = rest;
  if (/^0[xX]/.test(rest)) [base, digits] = [16, rest.slice(2)];
  else if (/^0[bB]/.test(rest)) [base, digits] = [2, rest.slice(2)];
  else if (/^0[oO]/.test(rest)) [base, digits] = [8, rest.slice(2)];
  else if (rest.length > 1 && rest.startsWith('0')) [base, digits] = [8, rest.slice(1)];
  const valid = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ }[base];
  if (!valid?.test(digits)) return false;
  const prefix = { 2: '0b', 8: '0o', 10: '', 16: '0x' }[base] ?? '';
  const value = BigInt(`${prefix}${digits}`) * (negative ? -1n : 1n);
  return unsigned ? value <= UINT64_MAX : value >= INT64_MIN && value <= INT64_MAX;
}

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/**
 * Go's strconv.ParseFloat(s, 64) succeeding for a decimal text (go-yaml only ever asks about
 * texts that cannot be hexadecimal): `inf`/`infinity` with an optional sign, `nan`, or digits
 * with at most one point, an optional exponent, Go's underscore rule, and a finite value.
 */
function parsesAsGoFloat(s: string): boolean {
  if (/^[+-]?(inf|infinity)$/i.test(s) || /^nan$/i.test(s)) return true;
  const m = /^[+-]?([0-9_]*)(?:\.([0-9_]*))?(?:[eE][+-]?([0-9][0-9_]*))?$/.exec(s);
  if (!m) return false;
  if (!/[0-9]/.test(`${m[1] ?? ''}${m[2] ?? ''}`)) return false;
  if (s.includes('_') && !underscoreOK(s)) return false;
  return Number.isFinite(Number(s.replaceAll('_', '')));
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** go-yaml's parseTimestamp: 4 digits, `-`, then one of four time.Parse layouts. */
function isTimestamp(s: string): boolean {
  if (!/^[0-9]{4}-/.test(s)) return false;
  // 2006-1-2, optionally [Tt ]15:4:5[.frac], and with [Tt] a zone (Z or ±hh:mm).
  const m =
    /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:([Tt ])([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$/.exec(
      s,
    );
  if (!m) return false;
  const [, year, month, day, sep, hour, minute, second, zone] = m;
  const mo = Number(month);
  const d = Number(day);
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, Number(year))) return false;
  if (sep === undefined) return true;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return false;
  // The layouts with T/t require a zone; the space-separated one has none.
  if (sep === ' ') return zone === undefined;
  if (zone === undefined) return false;
  if (zone !== 'Z' && (Number(zone.slice(1, 3)) > 24 || Number(zone.slice(4, 6)) > 60)) {
    return false;
  }
  return true;
}

/** Whether go-yaml would read `s`, written plain, as something other than a string. */
function resolvesToNonString(s: string): boolean {
  if (RESOLVED_WORDS.has(s)) return true;
  const first = s[0] ?? '';
  if (first === '.') return parsesAsGoFloat(s);
  if (!/[-+0-9]/.test(first)) return false;
  if (isTimestamp(s)) return true;
  const plain = s.replaceAll('_', '');
  if (parsesAsGoInteger(plain, false) || parsesAsGoInteger(plain, true)) return true;
  return YAML_STYLE_FLOAT.test(plain) && parsesAsGoFloat(plain);
}

function requestedStyle(s: string): Style {
  if (s.includes('\n')) return 'literal';
  const plainOk = !resolvesToNonString(s) && !BASE60_FLOAT.test(s);
  return plainOk ? 'plain' : 'double';
}

// ------------------------------------------------------------------ numbers

/** Go's strconv.FormatFloat(f, 'g', -1, 64) for a finite, non-integral float. */
function formatGoFloat(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  if (f === Infinity) return '.inf';
  if (f === -Infinity) return '-.inf';
  const [mantissa = '0', expText = '0'] = f.toExponential().split('e');
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace(/^-/, '').replace('.', '');
  const exp = Number(expText);
  const sign = negative ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp).toString().padStart(2, '0');
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${e}`;
  }
  const point = exp + 1;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * A number as go-yaml prints what Go's JSON decoding made of it: JSON writes integral values
 * below 1e21 as digits, which Go reads as int64 when they fit and as float64 otherwise.
 * (JavaScript cannot tell `1.0` from `1`: integral values count as integers.)
 */
function formatNumber(n: number): string {
  if (Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 63) return BigInt(n).toString();
  return formatGoFloat(n);
}

// ------------------------------------------------------------------ key order

const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;

// ASCII answered without a string and a regular expression per character: keys are sorted
// for every object hashed, and nearly all of their characters are ASCII (where \p{L} is
// exactly A-Z a-z and \p{Nd} exactly 0-9).
function isLetter(cp: number): boolean {
  if (cp < 0x80) return (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a);
  return LETTER.test(String.fromCodePoint(cp));
}

function isDigit(cp: number): boolean {
  if (cp < 0x80) return cp >= 0x30 && cp <= 0x39;
  return DIGIT.test(String.fromCodePoint(cp));
}

/**
 * A key's code points: the string itself when none of its characters is a surrogate pair
 * (each code unit is then a code point), else an array. Sorting the keys of every object
 * hashed then allocates nothing for the usual keys.
 */
type CodePoints = string | readonly number[];

const SURROGATE = /[\uD800-\uDFFF]/;

function codePointsOf(key: string): CodePoints {
  return SURROGATE.test(key) ? codePoints(key) : key;
}

function codePointArray(s: CodePoints): readonly number[] {
  return typeof s === 'string' ? codePoints(s) : s;
}

function at(s: CodePoints, i: number): number {
  return typeof s === 'string' ? s.charCodeAt(i) : (s[i] ?? 0);
}

/** go-yaml's keyList.Less for two string keys. */
export function goYamlKeyLess(a: string, b: string): boolean {
  return codePointsLess(codePointsOf(a), codePointsOf(b));
}

function codePointsLess(ar: CodePoints, br: CodePoints): boolean {
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const x = at(ar, i);
    const y = at(br, i);
    if (x === y) continue;
    const xl = isLetter(x);
    const yl = isLetter(y);
    if (xl && yl) return x < y;
    if (xl || yl) return yl;
    let an = 0n;
    let bn = 0n;
    if (x === 0x30 || y === 0x30) {
      for (let j = i - 1; j >= 0 && isDigit(at(ar, j)); j--) {
        if (at(ar, j) !== 0x30) {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(at(ar, ai)); ai++) {
      an = BigInt.asIntN(64, an * 10n + BigInt(at(ar, ai) - 0x30));
    }
    let bi = i;
    for (; bi < br.length && isDigit(at(br, bi)); bi++) {
      bn = BigInt.asIntN(64, bn * 10n + BigInt(at(br, bi) - 0x30));
    }
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return x < y;
  }
  return ar.length < br.length;
}

/**
 * Keys in go-yaml's order. For a few key sets that mix digit runs and letters (`a10`, `a1b`,
 * `a9`) go-yaml's comparison is not transitive; Go then sorts keys taken in random map order,
 * so go-yaml's own output (and KUDO's hash) varies from run to run, and any order is as good.
 */
function sortedKeys(map: { readonly [key: string]: GoYamlValue }): string[] {
  const keys = Object.keys(map);
  if (keys.length < 2) return keys;
  if (!keys.some((key) => SURROGATE.test(key))) {
    return keys.sort((a, b) => (codePointsLess(a, b) ? -1 : codePointsLess(b, a) ? 1 : 0));
  }
  // Each key taken apart into code points once, not twice per comparison.
  const decorated = keys.map((key) => ({ key, cps: codePointsOf(key) }));
  decorated.sort((a, b) =>
    codePointsLess(a.cps, b.cps) ? -1 : codePointsLess(b.cps, a.cps) ? 1 : 0,
  );
  return decorated.map((d) => d.key);
}

// ------------------------------------------------------------------ the emitter

interface NodeContext {
  readonly mapping: boolean;
  readonly simpleKey: boolean;
}

// The contexts, made once: the emitter runs for every ConfigMap and Secret applied.
const TOP_OR_ITEM: NodeContext = { mapping: false, simpleKey: false };
const MAPPING_VALUE: NodeContext = { mapping: true, simpleKey: false };
const SIMPLE_KEY: NodeContext = { mapping: true, simpleKey: true };

class Emitter {
  private readonly out: string[] = [];
  private column = 0;
  private whitespace = true;
  private indention = true;
  private indent = -1;
  private readonly indents: number[] = [];

  text(): string {
    return this.out.join('');
  }

  private put(s: string): void {
    this.out.push(s);
    this.column++;
  }

  private putBreak(): void {
    this.out.push('\n');
    this.column = 0;
  }

  private increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  private popIndent(): void {
    this.indent = this.indents.pop() ?? -1;
  }

  writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) {
      this.putBreak();
    }
    if (this.column < indent) {
      // One string for the run of spaces (the same text as one put per space).
      this.out.push(' '.repeat(indent - this.column));
      this.column = indent;
    }
    this.whitespace = true;
    this.indention = true;
  }

  private writeIndicator(
    indicator: string,
    needWhitespace: boolean,
    isWhitespace: boolean,
    isIndention: boolean,
  ): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    for (const ch of indicator) this.put(ch);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  node(value: GoYamlValue, ctx: NodeContext): void {
    if (value === null) return this.scalar('null', 'plain', ctx);
    if (typeof value === 'boolean') return this.scalar(value ? 'true' : 'false', 'plain', ctx);
    if (typeof value === 'number') return this.scalar(formatNumber(value), 'plain', ctx);
    if (typeof value === 'string') return this.scalar(value, requestedStyle(value), ctx);
    if (Array.isArray(value)) return this.sequence(value as readonly GoYamlValue[], ctx);
    return this.mapping(value as { readonly [key: string]: GoYamlValue });
  }

  private emptyFlow(open: string, close: string): void {
    this.writeIndicator(open, true, true, false);
    this.writeIndicator(close, false, false, false);
  }

  private sequence(items: readonly GoYamlValue[], ctx: NodeContext): void {
    if (items.length === 0) return this.emptyFlow('[', ']');
    this.increaseIndent(false, ctx.mapping && !this.indention);
    for (const item of items) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      this.node(item, TOP_OR_ITEM);
    }
    this.popIndent();
  }

  private mapping(map: { readonly [key: string]: GoYamlValue }): void {
    const keys = sortedKeys(map);
    if (keys.length === 0) return this.emptyFlow('{', '}');
    this.increaseIndent(false, false);
    for (const key of keys) {
      this.writeIndent();
      // The key's analysis serves both the choice of key form and the scalar.
      const cps = codePointsOf(key);
      const a = analyze(cps);
      if (!a.multiline && a.bytes <= 128) {
        this.scalar(key, requestedStyle(key), SIMPLE_KEY, { value: cps, a });
        this.writeIndicator(':', false, false, false);
      } else {
        this.writeIndicator('?', true, false, true);
        this.scalar(key, requestedStyle(key), MAPPING_VALUE, { value: cps, a });
        this.writeIndent();
        this.writeIndicator(':', true, false, true);
      }
      this.node(map[key] ?? null, MAPPING_VALUE);
    }
    this.popIndent();
  }

  private scalar(
    text: string,
    requested: Style,
    ctx: NodeContext,
    // The string itself stands for its code points when it has no surrogate pairs: no array
    // per scalar for the usual values, which are written plain.
    analyzed?: { readonly value: CodePoints; readonly a: Analysis },
  ): void {
    const value = analyzed?.value ?? codePointsOf(text);
    const a = analyzed?.a ?? analyze(value);
    let style = requested;
    if (ctx.simpleKey && a.multiline) style = 'double';
    if (style === 'plain') {
      if (!a.blockPlainAllowed) style = 'single';
      if (value.length === 0 && ctx.simpleKey) style = 'single';
    }
    if (style === 'single' && !a.singleQuotedAllowed) style = 'double';
    if (style === 'literal' && (!a.blockAllowed || ctx.simpleKey)) style = 'double';
    this.increaseIndent(true, false);
    switch (style) {
      case 'plain':
        this.plain(text, value.length);
        break;
      case 'single':
        this.singleQuoted(codePointArray(value));
        break;
      case 'double':
        this.doubleQuoted(codePointArray(value));
        break;
      case 'literal':
        this.literal(codePointArray(value));
        break;
    }
    this.popIndent();
  }

  private writeChar(cp: number): void {
    this.put(String.fromCodePoint(cp));
  }

  /** A line break of the value: LF as the output's line break, others verbatim. */
  private writeBreak(cp: number): void {
    if (cp === 0x0a) this.putBreak();
    else {
      this.out.push(String.fromCodePoint(cp));
      this.column = 0;
    }
  }

  /** `text` written as it is: the same as one put per code point, without a string each. */
  private plain(text: string, codePointCount: number): void {
    if (!this.whitespace) this.put(' ');
    this.out.push(text);
    this.column += codePointCount;
    this.whitespace = false;
    this.indention = false;
  }

  private singleQuoted(value: readonly number[]): void {
    this.writeIndicator("'", true, false, false);
    let breaks = false;
    for (const cp of value) {
      if (cp === 0x20) {
        this.writeChar(cp);
      } else if (isBreak(cp)) {
        if (!breaks && cp === 0x0a) this.putBreak();
        this.writeBreak(cp);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (cp === 0x27) this.put("'");
        this.writeChar(cp);
        this.indention = false;
        breaks = false;
      }
    }
    this.writeIndicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private doubleQuoted(value: readonly number[]): void {
    this.writeIndicator('"', true, false, false);
    // go-yaml checks for a byte-order mark at the start of the value for every character.
    const bom = value[0] === 0xfeff;
    for (const cp of value) {
      if (!isPrintable(cp) || bom || isBreak(cp) || cp === 0x22 || cp === 0x5c) {
        this.put('\\');
        const short = ESCAPES.get(cp);
        if (short !== undefined) this.put(short);
        else {
          const [letter, width] = cp <= 0xff ? ['x', 2] : cp <= 0xffff ? ['u', 4] : ['U', 8];
          this.put(letter);
          for (const digit of cp.toString(16).toUpperCase().padStart(width, '0')) this.put(digit);
        }
      } else {
        this.writeChar(cp);
      }
    }
    this.writeIndicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private literal(value: readonly number[]): void {
    this.writeIndicator('|', true, false, false);
    const first = value[0];
    if (first !== undefined && (first === 0x20 || isBreak(first))) {
      this.writeIndicator(String(BEST_INDENT), false, false, false);
    }
    const last = value[value.length - 1];
    let chomp = '';
    if (last === undefined || !isBreak(last)) chomp = '-';
    else if (value.length === 1 || isBreak(value[value.length - 2] ?? 0)) chomp = '+';
    if (chomp) this.writeIndicator(chomp, false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const cp of value) {
      if (isBreak(cp)) {
        this.writeBreak(cp);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.writeChar(cp);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

const ESCAPES: ReadonlyMap<number, string> = new Map([
  [0x00, '0'],
  [0x07, 'a'],
  [0x08, 'b'],
  [0x09, 't'],
  [0x0a, 'n'],
  [0x0b, 'v'],
  [0x0c, 'f'],
  [0x0d, 'r'],
  [0x1b, 'e'],
  [0x22, '"'],
  [0x5c, '\\'],
  [0x85, 'N'],
  [0xa0, '_'],
  [0x2028, 'L'],
  [0x2029, 'P'],
]);

/** `yaml.Marshal(value)` of go-yaml v2.3.0 for JSON-shaped data; ends with a line break. */
export function goYamlMarshal(value: GoYamlValue): string {
  const emitter = new Emitter();
  emitter.node(value, TOP_OR_ITEM);
  emitter.writeIndent();
  return emitter.text();
}
