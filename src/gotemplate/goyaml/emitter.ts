/**
 * go-yaml v2's emitter (gopkg.in/yaml.v2 v2.3.0, KUDO 0.19's version; libyaml's emitter in
 * Go), reproduced from its behaviour for the events its encoder produces: block mappings and
 * sequences, flow `{}` / `[]` for empty ones, and scalars in the style the encoder requests,
 * which the emitter's analysis of the text may overrule (plain → single → double quoted,
 * literal → double quoted). Its indentation (sequences not indented under keys, `? ` for keys
 * over 128 bytes or with line breaks) and literal-block headers (`|2-` for text starting with
 * a space or a line break) are byte for byte go-yaml's; v2.3.0 never folds long lines.
 *
 * Two writers drive it: toYaml (funcs/yaml.ts, Go values of templates) and goYamlMarshal
 * (marshal.ts, JSON-shaped data for KUDO's dependencies hash and the CLI's YAML output). No
 * library writes go-yaml's text, hence this code; test/gotemplate's oracles run go-yaml itself.
 */

import { at, codePointArray, codePointsOf, type CodePoints } from './keys.ts';
import { stringStyle, type ScalarStyle } from './resolve.ts';

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

const FLOW_AND_BLOCK_FIRST = new Set([...'#,[]{}&*!|>\'"%@`'].map((c) => c.charCodeAt(0)));

// eslint-disable-next-line max-lines-per-function -- a statement-for-statement port of yaml.v2's yaml_emitter_analyze_scalar: kept whole so a difference the differential tests find maps onto Go's source line by line
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

/** Where a node sits, which decides its indentation and whether a scalar is a simple key. */
export interface NodeContext {
  readonly mapping: boolean;
  readonly simpleKey: boolean;
}

// The contexts, made once: the emitter runs for every ConfigMap and Secret applied.
const TOP_OR_ITEM: NodeContext = { mapping: false, simpleKey: false };
const MAPPING_VALUE: NodeContext = { mapping: true, simpleKey: false };
const SIMPLE_KEY: NodeContext = { mapping: true, simpleKey: true };

/**
 * One document's text. A writer walks its data and calls scalar / sequence / mapping for each
 * node with the context it was handed (TOP for the document's root).
 */
export class GoYamlEmitter {
  static readonly TOP: NodeContext = TOP_OR_ITEM;

  private readonly out: string[] = [];
  private column = 0;
  private whitespace = true;
  private indention = true;
  private indent = -1;
  private readonly indents: number[] = [];

  /** The document's text, ending with a line break as yaml.Marshal's does. */
  finish(): string {
    this.writeIndent();
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

  private writeIndent(): void {
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

  private emptyFlow(open: string, close: string): void {
    this.writeIndicator(open, true, true, false);
    this.writeIndicator(close, false, false, false);
  }

  /** A sequence of `count` items (`[]` when empty); `item` writes the i-th in `ctx`. */
  sequence(count: number, ctx: NodeContext, item: (index: number, ctx: NodeContext) => void): void {
    if (count === 0) return this.emptyFlow('[', ']');
    this.increaseIndent(false, ctx.mapping && !this.indention);
    for (let i = 0; i < count; i++) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      item(i, TOP_OR_ITEM);
    }
    this.popIndent();
  }

  /**
   * A mapping with string keys in the order given (`{}` when empty; sortYamlKeys is go-yaml's
   * order); `value` writes a key's value in `ctx`.
   */
  mapping(keys: readonly string[], value: (key: string, ctx: NodeContext) => void): void {
    if (keys.length === 0) return this.emptyFlow('{', '}');
    this.increaseIndent(false, false);
    for (const key of keys) {
      this.writeIndent();
      // The key's analysis serves both the choice of key form and the scalar.
      const cps = codePointsOf(key);
      const a = analyze(cps);
      if (!a.multiline && a.bytes <= 128) {
        this.scalar(key, stringStyle(key), SIMPLE_KEY, { value: cps, a });
        this.writeIndicator(':', false, false, false);
      } else {
        this.writeIndicator('?', true, false, true);
        this.scalar(key, stringStyle(key), MAPPING_VALUE, { value: cps, a });
        this.writeIndent();
        this.writeIndicator(':', true, false, true);
      }
      value(key, MAPPING_VALUE);
    }
    this.popIndent();
  }

  /** A scalar in the style go-yaml's encoder requested, unless the analysis overrules it. */
  scalar(
    text: string,
    requested: ScalarStyle,
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
