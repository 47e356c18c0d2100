// sprig's string functions (strings.go and the string entries of functions.go).

import { quoteGo } from '../fmt.ts';
import { INTERFACE as A } from '../values.ts';
import { GoMap, GoSlice, utf8, utf8Decoder } from '../values.ts';
import type { FuncDef, GoValue } from '../values.ts';
import { fn, goErr, strList, strslice, strval } from './convert.ts';
import {
  goLower,
  goUpper,
  lowerRune,
  titleRune,
  toCamelCase,
  toLowerCaseWords,
  upperRune,
} from './go-case.ts';
import type { V } from './convert.ts';
import { GoInt } from '../values.ts';

const S = 'string';
const I = 'int';

const bytes = (s: string): Uint8Array => utf8.encode(s);
const str = (b: Uint8Array): string => utf8Decoder.decode(b);
const n = (v: GoInt): number => Number(v.v);

function isSeparator(c: string): boolean {
  const cp = c.codePointAt(0)!;
  if (cp <= 0x7f) return !/[0-9a-zA-Z_]/.test(c);
  if (/[\p{L}\p{Nd}]/u.test(c)) return false;
  return /\s/u.test(c);
}

/** strings.Title. */
export function title(s: string): string {
  let prev = ' ';
  let out = '';
  for (const c of s) {
    out += isSeparator(prev) ? titleRune(c) : c;
    prev = c;
  }
  return out;
}

function sliceBounds(lo: number, hi: number, len: number): void {
  if (hi > len) goErr(`runtime error: slice bounds out of range [:${hi}] with length ${len}`);
  if (lo > hi) goErr(`runtime error: slice bounds out of range [${lo}:${hi}]`);
  if (lo < 0) goErr(`runtime error: slice bounds out of range [${lo}:]`);
}

function substr(start: number, end: number, s: string): string {
  const b = bytes(s);
  if (start < 0) {
    sliceBounds(0, end, b.length);
    return str(b.slice(0, end));
  }
  if (end < 0 || end > b.length) {
    sliceBounds(start, b.length, b.length);
    return str(b.slice(start));
  }
  sliceBounds(start, end, b.length);
  return str(b.slice(start, end));
}

/** sprig v2's trunc: bytes; a negative length is the slice expression's panic. */
function trunc(c: number, s: string): string {
  const b = bytes(s);
  if (b.length <= c) return s;
  if (c < 0) goErr(`runtime error: slice bounds out of range [:${c}]`);
  return str(b.slice(0, c));
}

/** goutils AbbreviateFull, on bytes as Go slices strings (it can cut a character). */
function abbreviateBytes(s: Uint8Array, offset: number, maxWidth: number): Uint8Array | undefined {
  const dots = bytes('...');
  const join = (x: Uint8Array): Uint8Array => {
    const out = new Uint8Array(dots.length + x.length);
    out.set(dots);
    out.set(x, dots.length);
    return out;
  };
  if (s.length === 0) return s;
  // The errors goutils returns (sprig's callers never reach them with these widths).
  if (maxWidth < 4) return undefined;
  const len = s.length;
  if (len <= maxWidth) return s;
  if (offset > len) offset = len;
  if (len - offset < maxWidth - 3) offset = len - (maxWidth - 3);
  if (offset <= 4) {
    const out = new Uint8Array(maxWidth);
    out.set(s.subarray(0, maxWidth - 3));
    out.set(dots, maxWidth - 3);
    return out;
  }
  if (maxWidth < 7) return undefined;
  if (offset + maxWidth - 3 < len)
    return join(abbreviateBytes(s.subarray(offset), 0, maxWidth - 3) ?? new Uint8Array());
  return join(s.subarray(len - (maxWidth - 3)));
}

function abbreviateFull(s: string, offset: number, maxWidth: number): string {
  const out = abbreviateBytes(bytes(s), offset, maxWidth);
  return out === undefined ? '' : str(out);
}

/** goutils Initials: the first byte of each word, taken as the rune of that value. */
function initials(s: string): string {
  let out = '';
  let gap = true;
  for (const x of bytes(s)) {
    if (x === 0x20 || (x >= 0x09 && x <= 0x0d) || x === 0x85 || x === 0xa0) gap = true;
    else if (gap) {
      out += String.fromCharCode(x);
      gap = false;
    }
  }
  return out;
}

function uncapitalizeWords(s: string): string {
  let prevSpace = true;
  let out = '';
  for (const c of s) {
    out += prevSpace ? lowerRune(c) : c;
    prevSpace = /\s/u.test(c);
  }
  return out;
}

/**
 * goutils DeleteWhiteSpace: it walks bytes, each taken as the rune of that value, so text
 * beyond ASCII comes out as Latin-1 mojibake (and its 0x85 and 0xA0 bytes count as spaces).
 */
function deleteWhiteSpace(s: string): string {
  const b = bytes(s);
  let out = '';
  let kept = 0;
  for (const x of b) {
    if (x === 0x20 || (x >= 0x09 && x <= 0x0d) || x === 0x85 || x === 0xa0) continue;
    out += String.fromCharCode(x);
    kept++;
  }
  return kept === b.length ? s : out;
}

/** goutils SwapCase: a lower-case letter after whitespace becomes title case. */
function swapcase(s: string): string {
  let out = '';
  let whitespace = true;
  for (const c of s) {
    if (/[\p{Lu}\p{Lt}]/u.test(c)) {
      out += lowerRune(c);
      whitespace = false;
    } else if (/\p{Ll}/u.test(c)) {
      out += whitespace ? titleRune(c) : upperRune(c);
      whitespace = false;
    } else {
      out += c;
      whitespace = /\p{White_Space}/u.test(c);
    }
  }
  return out;
}

/** goutils WrapCustom, on bytes: only spaces are break points (newlines are text). */
function wrapCustom(s: string, width: number, nl: string, wrapLong: boolean): string {
  if (s === '') return '';
  if (nl === '') nl = '\n';
  if (width < 1) width = 1;
  const b = bytes(s);
  const sep = bytes(nl);
  const out: number[] = [];
  const write = (from: number, to: number): void => {
    for (let i = from; i < to; i++) out.push(b[i]!);
  };
  const lastSpace = (from: number, to: number): number => {
    for (let i = to - 1; i >= from; i--) if (b[i] === 0x20) return i;
    return -1;
  };
  let offset = 0;
  while (b.length - offset > width) {
    if (b[offset] === 0x20) {
      offset++;
      continue;
    }
    const at = lastSpace(offset, Math.min(width + offset + 1, b.length));
    if (at >= offset) {
      write(offset, at);
      out.push(...sep);
      offset = at + 1;
    } else if (wrapLong) {
      write(offset, offset + width);
      out.push(...sep);
      offset += width;
    } else {
      const end = width + offset;
      const next = b.indexOf(0x20, end);
      if (next === -1) {
        write(offset, b.length);
        offset = b.length;
      } else {
        write(offset, next);
        out.push(...sep);
        offset = next + 1;
      }
    }
  }
  write(offset, b.length);
  return str(Uint8Array.from(out));
}

function indent(spaces: number, v: string): string {
  const pad = ' '.repeat(Math.max(spaces, 0));
  return pad + v.replaceAll('\n', '\n' + pad);
}

function repeat(count: number, s: string): string {
  if (count < 0) goErr('strings: negative Repeat count');
  return s.repeat(count);
}

function splitMap(parts: string[]): GoMap {
  return new GoMap('string', new Map(parts.map((p, i) => [`_${i}`, p])));
}

/** strings.SplitN. */
export function splitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (sep === '') {
    const chars = [...s];
    if (n < 0 || n >= chars.length) return chars;
    return [...chars.slice(0, n - 1), chars.slice(n - 1).join('')];
  }
  const parts = s.split(sep);
  if (n < 0 || parts.length <= n) return parts;
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

function trimCutset(s: string, cutset: string): string {
  const set = new Set(cutset);
  const chars = [...s];
  let a = 0;
  let b = chars.length;
  while (a < b && set.has(chars[a]!)) a++;
  while (b > a && set.has(chars[b - 1]!)) b--;
  return chars.slice(a, b).join('');
}

function removeNil(v: V[]): GoValue[] {
  return v.filter((x): x is GoValue => x !== null && x !== undefined);
}

function catArgs(v: V[]): string {
  return removeNil(v).map(strval).join(' ');
}

function sortAlpha(v: V): GoSlice {
  if (v instanceof GoSlice) {
    const a = strslice(v);
    a.sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    return strList(a);
  }
  return strList([strval(v)]);
}

function random(count: number, alphabet: string): string {
  let out = '';
  for (let i = 0; i < count; i++) out += alphabet[Math.floor(Math.random() * alphabet.length)];
  return out;
}

const ALPHA = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
let ASCII = '';
for (let c = 32; c < 127; c++) ASCII += String.fromCharCode(c);

export const sprigStrings: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  ['hello', fn([], () => 'Hello!')],
  ['abbrev', fn([I, S], (a) => (n(a[0]) < 4 ? a[1] : abbreviateFull(a[1], 0, n(a[0]))))],
  [
    'abbrevboth',
    fn([I, I, S], (a) => {
      const [l, r, s] = [n(a[0]), n(a[1]), a[2]];
      if (r < 4 || (l > 0 && r < 7)) return s;
      return abbreviateFull(s, l, r);
    }),
  ],
  ['trunc', fn([I, S], (a) => trunc(n(a[0]), a[1]))],
  ['trim', fn([S], (a) => a[0].trim())],
  ['upper', fn([S], (a) => goUpper(a[0]))],
  ['lower', fn([S], (a) => goLower(a[0]))],
  ['title', fn([S], (a) => title(a[0]))],
  ['untitle', fn([S], (a) => uncapitalizeWords(a[0]))],
  ['substr', fn([I, I, S], (a) => substr(n(a[0]), n(a[1]), a[2]))],
  ['repeat', fn([I, S], (a) => repeat(n(a[0]), a[1]))],
  ['trimall', fn([S, S], (a) => trimCutset(a[1], a[0]))],
  ['trimAll', fn([S, S], (a) => trimCutset(a[1], a[0]))],
  [
    'trimSuffix',
    fn([S, S], (a) => {
      const [suf, s] = [a[0], a[1]];
      return suf && s.endsWith(suf) ? s.slice(0, s.length - suf.length) : s;
    }),
  ],
  [
    'trimPrefix',
    fn([S, S], (a) => {
      const [pre, s] = [a[0], a[1]];
      return s.startsWith(pre) ? s.slice(pre.length) : s;
    }),
  ],
  ['nospace', fn([S], (a) => deleteWhiteSpace(a[0]))],
  ['initials', fn([S], (a) => initials(a[0]))],
  ['randAlphaNum', fn([I], (a) => random(n(a[0]), ALPHA + DIGITS))],
  ['randAlpha', fn([I], (a) => random(n(a[0]), ALPHA))],
  ['randAscii', fn([I], (a) => random(n(a[0]), ASCII))],
  ['randNumeric', fn([I], (a) => random(n(a[0]), DIGITS))],
  ['swapcase', fn([S], (a) => swapcase(a[0]))],
  [
    'shuffle',
    fn([S], (a) => {
      const c = [...a[0]];
      for (let i = c.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [c[i], c[j]] = [c[j]!, c[i]!];
      }
      return c.join('');
    }),
  ],
  ['snakecase', fn([S], (a) => toLowerCaseWords(a[0], '_'))],
  ['kebabcase', fn([S], (a) => toLowerCaseWords(a[0], '-'))],
  ['camelcase', fn([S], (a) => toCamelCase(a[0]))],
  ['wrap', fn([I, S], (a) => wrapCustom(a[1], n(a[0]), '\n', false))],
  ['wrapWith', fn([I, S, S], (a) => wrapCustom(a[2], n(a[0]), a[1], true))],
  ['contains', fn([S, S], (a) => a[1].includes(a[0]))],
  ['hasPrefix', fn([S, S], (a) => a[1].startsWith(a[0]))],
  ['hasSuffix', fn([S, S], (a) => a[1].endsWith(a[0]))],
  [
    'quote',
    fn(
      [],
      (a) =>
        removeNil(a)
          .map((x) => quoteGo(strval(x)))
          .join(' '),
      A,
    ),
  ],
  [
    'squote',
    fn(
      [],
      (a) =>
        removeNil(a)
          .map((x) => `'${strval(x)}'`)
          .join(' '),
      A,
    ),
  ],
  ['cat', fn([], (a) => catArgs(a), A)],
  ['indent', fn([I, S], (a) => indent(n(a[0]), a[1]))],
  ['nindent', fn([I, S], (a) => '\n' + indent(n(a[0]), a[1]))],
  ['replace', fn([S, S, S], (a) => a[2].replaceAll(a[0], a[1]))],
  ['plural', fn([S, S, I], (a) => (n(a[2]) === 1 ? a[0] : a[1]))],
  ['toString', fn([A], (a) => strval(a[0]))],
  ['split', fn([S, S], (a) => splitMap(splitN(a[1], a[0], -1)))],
  ['splitList', fn([S, S], (a) => strList(splitN(a[1], a[0], -1)))],
  ['splitn', fn([S, I, S], (a) => splitMap(splitN(a[2], a[0], n(a[1]))))],
  ['toStrings', fn([A], (a) => strList(strslice(a[0])))],
  ['join', fn([S, A], (a) => strslice(a[1]).join(a[0]))],
  ['sortAlpha', fn([A], (a) => sortAlpha(a[0]))],
]);

export { GoInt };
