// The parse tree as JS RegExp source (for the 'u' flag, no 'i', 'm' or 's'): every class
// is spelled out as code point ranges and case folding as explicit alternatives, so the
// JS engine's own notions of \s, \w, \b, case and line ends never come into play.

import type { Node } from './ast.ts';
import { foldOrbit } from './unicode.ts';

function esc(c: number): string {
  const ch = String.fromCodePoint(c);
  return /^[A-Za-z0-9_]$/.test(ch) ? ch : `\\u{${c.toString(16)}}`;
}

function classSource(r: readonly number[]): string {
  let out = '[';
  for (let i = 0; i + 1 < r.length; i += 2) {
    const lo = r[i]!;
    const hi = r[i + 1]!;
    out += lo === hi ? esc(lo) : `${esc(lo)}-${esc(hi)}`;
  }
  return out + ']';
}

function litSource(c: number, fold: boolean): string {
  const orbit = fold ? foldOrbit(c) : [c];
  return orbit.length === 1 ? esc(c) : `[${orbit.map(esc).join('')}]`;
}

function quantifier(min: number, max: number): string {
  if (max === -1) return min === 0 ? '*' : min === 1 ? '+' : `{${min},}`;
  if (min === 0 && max === 1) return '?';
  return min === max ? `{${min}}` : `{${min},${max}}`;
}

export function toSource(n: Node): string {
  switch (n.op) {
    case 'lit':
      return n.runes.map((c) => litSource(c, n.fold)).join('');
    case 'class':
      return classSource(n.ranges);
    case 'any':
      return '[\\s\\S]';
    case 'anyNotNL':
      return '[^\\n]';
    // Go's line anchors know only \n (JS's m flag also stops at \r, U+2028 and U+2029).
    case 'bol':
      return '(?<![^\\n])';
    case 'eol':
      return '(?![^\\n])';
    case 'bot':
      return '^';
    case 'eot':
      return '$';
    case 'wb':
      return '\\b';
    case 'nwb':
      return '\\B';
    case 'empty':
      return '(?:)';
    case 'cap':
      return `(${toSource(n.sub)})`;
    case 'repeat':
      return `(?:${toSource(n.sub)})${quantifier(n.min, n.max)}${n.greedy ? '' : '?'}`;
    case 'concat':
      return n.subs.map(toSource).join('');
    case 'alt':
      return `(?:${n.subs.map(toSource).join('|')})`;
  }
}
