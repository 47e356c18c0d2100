// regexp/syntax's parser with Perl flags, ported: a stack of finished nodes and open
// '(' / '|' markers, reduced at ')' and at the end. It reports Go's errors with Go's
// excerpts and applies Go's limits on repetition, size and nesting.

import { cap, cls, lit, multi, repeat, simple } from './ast.ts';
import type { Node, Simple } from './ast.ts';
import { Re2Error } from './errors.ts';
import { parseClass, parseEscape, parsePerlClassEscape, parseUnicodeClass } from './escapes.ts';
import { MAX_RUNE, contains, union } from './ranges.ts';
import { nextRune } from './text.ts';
import { foldOrbit } from './unicode.ts';

const FOLD = 1;
const DOT_NL = 2;
const ONE_LINE = 4;
const NON_GREEDY = 8;
const ALL_FLAGS = 15;

/** Go's limits: compiled program size (128 MiB of 40-byte instructions), tree height, runes. */
const MAX_SIZE = Math.floor((128 << 20) / 40);
const MAX_HEIGHT = 1000;
const MAX_RUNES = (128 << 20) / 4;
const MAX_REPEAT = 1000;

type Marker = { op: 'lparen'; cap: number; name: string; flags: number } | { op: 'vbar' };
type Item = Node | Marker;

const isMarker = (x: Item): x is Marker => x.op === 'lparen' || x.op === 'vbar';

export interface Parsed {
  tree: Node;
  /** Capture group names by index; index 0 (the whole match) is ''. */
  names: string[];
}

export function parse(expr: string): Parsed {
  return new Parser(expr).run();
}

class Parser {
  private stack: Item[] = [];
  private flags = ONE_LINE;
  private names: string[] = [''];
  private numRunes = 0;

  constructor(private readonly s: string) {}

  // eslint-disable-next-line max-lines-per-function -- a statement-for-statement port of Go's regexp/syntax.parse: kept whole so a difference the differential tests find maps onto Go's source line by line
  run(): Parsed {
    const s = this.s;
    let t = 0;
    // Start of the previous token if it was a repetition operator (a** is an error).
    let lastRepeat = -1;
    while (t < s.length) {
      let repeatAt = -1;
      const c = s[t]!;
      switch (c) {
        case '(':
          if (s[t + 1] === '?') t = this.parsePerlFlags(t);
          else {
            this.openParen(this.names.length, '');
            this.names.push('');
            t++;
          }
          break;
        case '|':
          this.parseVerticalBar();
          t++;
          break;
        case ')':
          this.parseRightParen();
          t++;
          break;
        case '^':
          this.op(this.flags & ONE_LINE ? 'bot' : 'bol');
          t++;
          break;
        case '$':
          this.op(this.flags & ONE_LINE ? 'eot' : 'eol');
          t++;
          break;
        case '.':
          this.op(this.flags & DOT_NL ? 'any' : 'anyNotNL');
          t++;
          break;
        case '[': {
          const [ranges, next] = parseClass(s, t, (this.flags & FOLD) !== 0);
          this.push(cls(ranges));
          t = next;
          break;
        }
        case '*':
        case '+':
        case '?': {
          const [min, max] = c === '*' ? [0, -1] : c === '+' ? [1, -1] : [0, 1];
          repeatAt = t;
          t = this.repeat(min, max, t, t + 1, lastRepeat, false);
          break;
        }
        case '{': {
          const r = parseRepeat(s, t);
          if (!r) {
            // Not a well-formed {n,m}: the brace is a literal.
            this.literal(0x7b);
            t++;
            break;
          }
          const [min, max, after] = r;
          if (min < 0 || min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max))
            throw new Re2Error('invalid repeat count', s.slice(t, after));
          repeatAt = t;
          t = this.repeat(min, max, t, after, lastRepeat, true);
          break;
        }
        case '\\':
          t = this.parseBackslash(t);
          break;
        default: {
          const [r, next] = nextRune(s, t);
          this.literal(r);
          t = next;
        }
      }
      lastRepeat = repeatAt;
    }
    this.concat();
    if (this.swapVerticalBar()) this.stack.pop();
    this.alternate();
    const top = this.stack[0];
    if (this.stack.length !== 1 || !top || isMarker(top))
      throw new Re2Error('missing closing )', s);
    return { tree: top, names: this.names };
  }

  private parseBackslash(t: number): number {
    const s = this.s;
    const simpleOps: Readonly<Record<string, Simple>> = { A: 'bot', b: 'wb', B: 'nwb', z: 'eot' };
    const next = s[t + 1];
    if (next !== undefined) {
      const op = simpleOps[next];
      if (op) {
        this.op(op);
        return t + 2;
      }
      // \C (any byte) cannot work on text.
      if (next === 'C') throw new Re2Error('invalid escape sequence', s.slice(t, t + 2));
      if (next === 'Q') {
        // \Q...\E: everything up to \E (or the end) is literal.
        const end = s.indexOf('\\E', t + 2);
        const stop = end < 0 ? s.length : end;
        for (let i = t + 2; i < stop;) {
          const [r, after] = nextRune(s, i);
          this.literal(r);
          i = after;
        }
        return end < 0 ? s.length : end + 2;
      }
    }
    const fold = (this.flags & FOLD) !== 0;
    const cl = parseUnicodeClass(s, t, fold) ?? parsePerlClassEscape(s, t, fold);
    if (cl) {
      this.push(cls(cl[0]));
      return cl[1];
    }
    const [r, after] = parseEscape(s, t);
    this.literal(r);
    return after;
  }

  /** (?flags), (?flags:, (?P<name> and (?<name> at s[t]. */
  private parsePerlFlags(start: number): number {
    const s = this.s;
    const startsWithP = s.length - start > 4 && s[start + 2] === 'P' && s[start + 3] === '<';
    const startsWithName = s.length - start > 3 && s[start + 2] === '<';
    if (startsWithP || startsWithName) {
      const end = s.indexOf('>', start);
      if (end < 0) {
        nextRuneCheck(s.slice(start));
        throw new Re2Error('invalid named capture', s.slice(start));
      }
      const name = s.slice(start + (startsWithP ? 4 : 3), end);
      nextRuneCheck(name);
      if (!/^[A-Za-z0-9_]+$/.test(name))
        throw new Re2Error('invalid named capture', s.slice(start, end + 1));
      this.openParen(this.names.length, name);
      this.names.push(name);
      return end + 1;
    }
    let t = start + 2;
    // Negation works by inverting the flags, setting bits, and inverting back.
    let flags = this.flags;
    let sign = 1;
    let sawFlag = false;
    while (t < s.length) {
      const [c, next] = nextRune(s, t);
      t = next;
      const ch = String.fromCodePoint(c);
      if (ch === 'i') flags |= FOLD;
      else if (ch === 'm') flags &= ~ONE_LINE;
      else if (ch === 's') flags |= DOT_NL;
      else if (ch === 'U') flags |= NON_GREEDY;
      else if (ch === '-') {
        if (sign < 0) break;
        sign = -1;
        flags = ~flags & ALL_FLAGS;
        sawFlag = false;
        continue;
      } else if (ch === ':' || ch === ')') {
        if (sign < 0) {
          if (!sawFlag) break;
          flags = ~flags & ALL_FLAGS;
        }
        // The group's marker keeps the flags from before it, restored at its ')'.
        if (ch === ':') this.openParen(0, '');
        this.flags = flags;
        return t;
      } else break;
      sawFlag = true;
    }
    throw new Re2Error('invalid or unsupported Perl syntax', s.slice(start, t));
  }

  private openParen(capIndex: number, name: string): void {
    this.stack.push({ op: 'lparen', cap: capIndex, name, flags: this.flags });
  }

  private literal(r: number): void {
    const fold = (this.flags & FOLD) !== 0;
    this.push(lit([fold ? foldOrbit(r)[0]! : r], fold));
  }

  private op(op: Simple): void {
    this.push(simple(op));
  }

  private push(re: Node): void {
    if (re.op === 'class') {
      this.numRunes += re.ranges.length;
      const r = re.ranges;
      // Go turns [a] into a literal and [Aa] into a case-folded one.
      if (r.length === 2 && r[0] === r[1]) re = lit([r[0]!], false);
      else if (isFoldPair(r)) re = lit([r[0]!], true);
    } else if (re.op === 'lit') this.numRunes += re.runes.length;
    this.stack.push(re);
    this.checkLimits(re);
  }

  private checkLimits(re: Node): void {
    if (this.numRunes > MAX_RUNES || re.size > MAX_SIZE)
      throw new Re2Error('expression too large', this.s);
    if (re.height > MAX_HEIGHT) throw new Re2Error('expression nests too deeply', this.s);
  }

  /** Apply a repetition operator at s[before..after) to the top of the stack. */
  private repeat(
    min: number,
    max: number,
    before: number,
    after: number,
    lastRepeat: number,
    counted: boolean,
  ): number {
    let flags = this.flags;
    if (this.s[after] === '?') {
      after++;
      flags ^= NON_GREEDY;
    }
    if (lastRepeat >= 0)
      throw new Re2Error('invalid nested repetition operator', this.s.slice(lastRepeat, after));
    const sub = this.stack[this.stack.length - 1];
    if (!sub || isMarker(sub))
      throw new Re2Error('missing argument to repetition operator', this.s.slice(before, after));
    const re = repeat(sub, min, max, (flags & NON_GREEDY) === 0, counted);
    this.stack[this.stack.length - 1] = re;
    this.checkLimits(re);
    if (counted && (min >= 2 || max >= 2) && !repeatIsValid(re, MAX_REPEAT))
      throw new Re2Error('invalid repeat count', this.s.slice(before, after));
    return after;
  }

  /** Items above the topmost marker, removed from the stack. */
  private popToMarker(): Node[] {
    let i = this.stack.length;
    while (i > 0 && !isMarker(this.stack[i - 1]!)) i--;
    return this.stack.splice(i) as Node[];
  }

  private concat(): void {
    const subs = mergeLiterals(this.popToMarker());
    this.push(subs.length === 0 ? simple('empty') : collapse(subs, 'concat'));
  }

  private alternate(): void {
    const subs = this.popToMarker();
    this.push(subs.length === 0 ? cls([]) : collapse(subs, 'alt'));
  }

  private parseVerticalBar(): void {
    this.concat();
    if (!this.swapVerticalBar()) this.stack.push({ op: 'vbar' });
  }

  /**
   * With an alternative on top of a '|', move it below the marker (merging it into the
   * alternative already there when both are single characters or classes).
   */
  private swapVerticalBar(): boolean {
    const st = this.stack;
    const n = st.length;
    const re1 = st[n - 1];
    const bar = st[n - 2];
    const re3 = st[n - 3];
    if (bar?.op === 'vbar' && isCharClass(re1) && isCharClass(re3)) {
      st[n - 3] = mergeCharClass(re3, re1);
      st.pop();
      return true;
    }
    if (n >= 2 && bar?.op === 'vbar' && re1) {
      st[n - 2] = re1;
      st[n - 1] = bar;
      return true;
    }
    return false;
  }

  private parseRightParen(): void {
    this.concat();
    if (this.swapVerticalBar()) this.stack.pop();
    this.alternate();
    const re1 = this.stack.pop();
    const re2 = this.stack.pop();
    if (!re1 || !re2 || re2.op !== 'lparen' || isMarker(re1))
      throw new Re2Error('unexpected )', this.s);
    this.flags = re2.flags;
    this.push(re2.cap === 0 ? re1 : cap(re2.cap, re2.name, re1));
  }
}

function nextRuneCheck(s: string): void {
  for (let i = 0; i < s.length;) i = nextRune(s, i)[1];
}

/** {n}, {n,} or {n,m} at s[t]: [min, max (-1: none), index after], or undefined if not one. */
function parseRepeat(s: string, t: number): [number, number, number] | undefined {
  const a = parseInt(s, t + 1);
  if (!a) return undefined;
  let [min, i] = a;
  let max = min;
  if (i >= s.length) return undefined;
  if (s[i] === ',') {
    i++;
    if (i >= s.length) return undefined;
    if (s[i] === '}') max = -1;
    else {
      const b = parseInt(s, i);
      if (!b) return undefined;
      [max, i] = b;
      // A number too big makes the whole repeat invalid.
      if (max < 0) min = -1;
    }
  }
  if (s[i] !== '}') return undefined;
  return [min, max, i + 1];
}

/** A decimal without leading zeros; -1 when it reaches 10^8 (too big for any limit). */
function parseInt(s: string, t: number): [number, number] | undefined {
  const digit = (i: number): boolean => i < s.length && s[i]! >= '0' && s[i]! <= '9';
  if (!digit(t)) return undefined;
  if (s[t] === '0' && digit(t + 1)) return undefined;
  let end = t;
  while (digit(end)) end++;
  let n = 0;
  for (let i = t; i < end; i++) {
    if (n >= 1e8) {
      n = -1;
      break;
    }
    n = n * 10 + s.charCodeAt(i) - 0x30;
  }
  return [n, end];
}

/** Go's repeatIsValid: nested counted repetitions may not multiply past n copies. */
function repeatIsValid(re: Node, n: number): boolean {
  if (re.op === 'repeat' && re.counted) {
    let m = re.max;
    if (m === 0) return true;
    if (m < 0) m = re.min;
    if (m > n) return false;
    if (m > 0) n = Math.trunc(n / m);
  }
  return subsOf(re).every((sub) => repeatIsValid(sub, n));
}

function subsOf(re: Node): readonly Node[] {
  switch (re.op) {
    case 'cap':
    case 'repeat':
      return [re.sub];
    case 'concat':
    case 'alt':
      return re.subs;
    default:
      return [];
  }
}

/** Adjacent literals with the same case folding become one string, as Go builds them. */
function mergeLiterals(subs: Node[]): Node[] {
  const out: Node[] = [];
  for (const re of subs) {
    const prev = out[out.length - 1];
    if (re.op === 'lit' && prev?.op === 'lit' && prev.fold === re.fold)
      out[out.length - 1] = lit([...prev.runes, ...re.runes], re.fold);
    else out.push(re);
  }
  return out;
}

/** One node for a sequence or an alternation, splicing in nested ones of the same kind. */
function collapse(subs: Node[], op: 'concat' | 'alt'): Node {
  if (subs.length === 1) return subs[0]!;
  const flat: Node[] = [];
  for (const re of subs)
    if (re.op === op) flat.push(...re.subs);
    else flat.push(re);
  return multi(op, flat);
}

function isFoldPair(r: readonly number[]): boolean {
  const pair = (a: number, b: number): boolean => {
    const o = foldOrbit(a);
    return o.length === 2 && o.includes(b) && a !== b;
  };
  if (r.length === 4) return r[0] === r[1] && r[2] === r[3] && pair(r[0]!, r[2]!);
  return r.length === 2 && r[0]! + 1 === r[1] && pair(r[0]!, r[1]);
}

function isCharClass(re: Item | undefined): re is Node {
  return (
    (re?.op === 'lit' && re.runes.length === 1) ||
    re?.op === 'class' ||
    re?.op === 'any' ||
    re?.op === 'anyNotNL'
  );
}

function charRanges(re: Node): number[] {
  switch (re.op) {
    case 'lit': {
      const r = re.runes[0]!;
      return re.fold
        ? union(
            [],
            foldOrbit(r).flatMap((c) => [c, c]),
          )
        : [r, r];
    }
    case 'class':
      return re.ranges;
    case 'anyNotNL':
      return [0, 9, 11, MAX_RUNE];
    default:
      return [0, MAX_RUNE];
  }
}

/** x|y for two single characters or classes: one class. */
function mergeCharClass(a: Node, b: Node): Node {
  if (a.op === 'lit' && b.op === 'lit' && a.runes[0] === b.runes[0] && a.fold === b.fold) return a;
  const r = union(charRanges(a), charRanges(b));
  if (r.length === 2 && r[0] === 0 && r[1] === MAX_RUNE) return simple('any');
  if (
    r.length === 4 &&
    r[0] === 0 &&
    r[1] === 9 &&
    r[2] === 11 &&
    r[3] === MAX_RUNE &&
    !contains(r, 10)
  )
    return simple('anyNotNL');
  return cls(r);
}
