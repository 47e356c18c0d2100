// KUDO's toYaml: gopkg.in/yaml.v2 Marshal of the value, returned as is (with its trailing
// newline). The emitter rules reproduced: keys sorted the yaml.v2 way, strings quoted
// when a plain scalar would read back as something else, literal blocks for multi-line.

import { formatFloat } from '../fmt.ts';
import { GoFunc, GoInt, GoMap, GoObject, GoSlice } from '../values.ts';
import type { FuncDef, GoValue } from '../values.ts';
import { fn, goErr } from './convert.ts';

function isLetter(c: string): boolean {
  return /\p{L}/u.test(c);
}
function isDigit(c: string): boolean {
  return /\p{Nd}/u.test(c);
}

/** yaml.v2 keyList.Less for string keys. */
function keyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]!);
    const bl = isLetter(br[i]!);
    if (al && bl) return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0;
    let bn = 0;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]!); j--) {
        if (ar[j] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]!); ai++) an = an * 10 + Number(ar[ai]);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]!); bi++) bn = bn * 10 + Number(br[bi]);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
  }
  return ar.length < br.length;
}

/** Characters the emitter cannot write unescaped (tab optionally included). */
function hasControl(s: string, tab: boolean): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 9 ? tab : c === 10 ? false : c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0xfeff)
      return true;
  }
  return false;
}
const CONTROL = { test: (s: string): boolean => hasControl(s, false) };
const CONTROL_OR_TAB = { test: (s: string): boolean => hasControl(s, true) };

const boolWords = new Set([
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'true',
  'True',
  'TRUE',
  'false',
  'False',
  'FALSE',
  'on',
  'On',
  'ON',
  'off',
  'Off',
  'OFF',
]);
const nullWords = new Set(['', '~', 'null', 'Null', 'NULL']);

/** Would yaml.v2 resolve this plain scalar to a non-string? */
function resolvesNonString(s: string): boolean {
  if (boolWords.has(s) || nullWords.has(s)) return true;
  if (/^[-+]?\.(inf|Inf|INF)$/.test(s) || /^\.(nan|NaN|NAN)$/.test(s) || s === '<<') return true;
  // yaml.v2 only tries numbers on scalars starting with a sign, a dot or a digit ("_0" is text).
  if (!/^[-+.0-9]/.test(s)) return false;
  const plain = s.replaceAll('_', '');
  if (/^[-+]?(0b[01]+|0x[0-9a-fA-F]+|0o?[0-7]+|\d+)$/.test(plain)) return true;
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(plain)) return true;
  if (/^\d{4}-\d{1,2}-\d{1,2}([Tt ].*)?$/.test(s)) return true; // timestamps
  if (/^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$/.test(s)) return true; // base 60
  return false;
}

/** Can the emitter write s as a plain scalar (libyaml's analyze_scalar, simplified)? */
function plainAllowed(s: string, inFlowOrKey: boolean): boolean {
  if (s.length === 0) return false;
  if (/^\s|\s$/.test(s)) return false;
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(s)) {
    if (!(/^[-?:]/.test(s) && s.length > 1 && !/^[-?:]\s/.test(s))) return false;
  }
  if (s.startsWith('---') || s.startsWith('...')) return false;
  if (/: |:$| #/.test(s)) return false;
  if (inFlowOrKey && /[,[\]{}]/.test(s)) return false;
  // Non-printable characters force double quotes.
  if (CONTROL.test(s)) return false;
  if (s.includes('\t')) return false;
  return true;
}

function doubleQuoted(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).toUpperCase().padStart(2, '0');
    else if (c === 0xfeff) out += '\\uFEFF';
    else out += ch;
  }
  return out + '"';
}

function scalarString(s: string, indent: string, isKey: boolean): string {
  if (s.includes('\n') && !isKey) {
    const chomp = s.endsWith('\n') ? (s.endsWith('\n\n') ? '+' : '') : '-';
    const body = s.endsWith('\n') ? s.slice(0, chomp === '+' ? -1 : -1) : s;
    const lead = /^[ \t]/.test(s) ? '2' : '';
    const lines = body.split('\n').map((l) => (l === '' ? '' : indent + '  ' + l));
    return `|${lead}${chomp}\n${lines.join('\n')}`;
  }
  if (resolvesNonString(s)) return doubleQuoted(s);
  if (plainAllowed(s, isKey)) return s;
  if (CONTROL_OR_TAB.test(s) || (/^\s|\s$/.test(s) && /\n/.test(s))) return doubleQuoted(s);
  return `'${s.replaceAll("'", "''")}'`;
}

function scalar(v: GoValue, indent: string): string | undefined {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return scalarString(v, indent, false);
    case 'boolean':
      return String(v);
    case 'number': {
      const s = formatFloat(v, 'g', -1);
      return s === '+Inf' ? '.inf' : s === '-Inf' ? '-.inf' : s === 'NaN' ? '.nan' : s;
    }
  }
  if (v instanceof GoInt) return v.v.toString();
  if (v instanceof GoObject) return v.hooks.yamlScalar?.() ?? scalarString(v.str(), indent, false);
  if (v instanceof GoFunc) goErr(`cannot marshal type: ${v.type}`);
  if (v instanceof GoSlice && v.items.length === 0) return '[]';
  if (v instanceof GoMap && v.entries.size === 0) return '{}';
  return undefined;
}

function emit(v: GoValue, indent: string): string {
  if (v instanceof GoMap && v.entries.size > 0) {
    const keys = [...v.entries.keys()].sort((a, b) => (keyLess(a, b) ? -1 : keyLess(b, a) ? 1 : 0));
    return keys
      .map((k) => {
        const val = v.entries.get(k) ?? null;
        const key = scalarString(k, indent, true);
        const sc = scalar(val, indent);
        if (sc !== undefined) return `${indent}${key}: ${sc}\n`;
        if (val instanceof GoSlice) return `${indent}${key}:\n${emit(val, indent)}`;
        return `${indent}${key}:\n${emit(val, indent + '  ')}`;
      })
      .join('');
  }
  if (v instanceof GoSlice && v.items.length > 0) {
    return v.items
      .map((item) => {
        const sc = scalar(item, indent);
        if (sc !== undefined) return `${indent}- ${sc}\n`;
        const inner = emit(item, indent + '  ');
        return `${indent}- ${inner.slice(indent.length + 2)}`;
      })
      .join('');
  }
  return `${indent}${scalar(v, indent) ?? ''}\n`;
}

export function toYaml(v: GoValue): string {
  return emit(v, '');
}

export const yamlFuncs: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  ['toYaml', fn(['interface {}'], (a) => toYaml(a[0] ?? null))],
]);
