// sprig's regex functions. Go's RE2 syntax is translated to JS RegExp for the common
// subset (named groups, leading flag groups); replacement templates follow Go's
// Regexp.Expand ($name takes the longest run of word characters).

import type { FuncDef } from '../values.ts';
import { fn, goErr, int, strList } from './convert.ts';
import type { V } from './convert.ts';

const S = 'string';
const I = 'int';

class RegexError extends Error {}

const cache = new Map<string, RegExp>();

function compile(expr: string): RegExp {
  const hit = cache.get(expr);
  if (hit) return hit;
  let src = expr;
  let flags = 'g';
  const lead = /^\(\?([imsU]+)\)/.exec(src);
  if (lead) {
    for (const f of lead[1]!) if (f !== 'U') flags += f;
    src = src.slice(lead[0].length);
  }
  src = src
    .replace(/\(\?P</g, '(?<')
    .replace(/\\z/g, '$')
    .replace(/\\A/g, '^');
  let re: RegExp;
  try {
    re = new RegExp(src, flags + 'u');
  } catch {
    try {
      re = new RegExp(src, flags);
    } catch (e) {
      throw new RegexError(`error parsing regexp: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  cache.set(expr, re);
  return re;
}

function expand(tmpl: string, m: RegExpExecArray): string {
  let out = '';
  for (let i = 0; i < tmpl.length; i++) {
    const c = tmpl[i]!;
    if (c !== '$' || i + 1 >= tmpl.length) {
      out += c;
      continue;
    }
    if (tmpl[i + 1] === '$') {
      out += '$';
      i++;
      continue;
    }
    let name: string;
    let end: number;
    if (tmpl[i + 1] === '{') {
      const close = tmpl.indexOf('}', i + 2);
      if (close < 0) {
        out += c;
        continue;
      }
      name = tmpl.slice(i + 2, close);
      end = close;
    } else {
      const w = /^[A-Za-z0-9_]+/.exec(tmpl.slice(i + 1));
      if (!w) {
        out += c;
        continue;
      }
      name = w[0];
      end = i + w[0].length;
    }
    if (/^\d+$/.test(name)) out += m[Number(name)] ?? '';
    else out += m.groups?.[name] ?? '';
    i = end;
  }
  return out;
}

function replaceAll(expr: string, s: string, repl: string, literal: boolean): string {
  const re = compile(expr);
  re.lastIndex = 0;
  let out = '';
  let last = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    out += s.slice(last, m.index) + (literal ? repl : expand(repl, m));
    last = m.index + m[0].length;
    if (m[0].length === 0) re.lastIndex++;
  }
  return out + s.slice(last);
}

function findAll(expr: string, s: string, n: number): string[] {
  const re = compile(expr);
  re.lastIndex = 0;
  const out: string[] = [];
  if (n === 0) return out;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    out.push(m[0]);
    if (m[0].length === 0) re.lastIndex++;
    if (n > 0 && out.length >= n) break;
  }
  return out;
}

function split(expr: string, s: string, n: number): string[] {
  if (n === 0) return [];
  if (expr.length > 0 && s.length === 0) return [''];
  const re = compile(expr);
  re.lastIndex = 0;
  const out: string[] = [];
  let beg = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    if (n > 0 && out.length === n - 1) break;
    const end = m.index;
    if (m[0].length === 0) {
      re.lastIndex++;
      if (m.index === 0 || m.index === s.length) continue;
    }
    out.push(s.slice(beg, end));
    beg = m.index + m[0].length;
  }
  out.push(s.slice(beg));
  return out;
}

function safe<T>(mustErr: boolean, f: () => T, fallback: T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof RegexError) {
      if (mustErr) goErr(e.message);
      return fallback;
    }
    throw e;
  }
}

const s = (v: V): string => v as string;
const n = (v: V): number => Number((v as { v: bigint }).v);

function pair(name: string, params: string[], f: (a: V[]) => V, fallback: V): [string, FuncDef][] {
  const cap = name[0]!.toUpperCase() + name.slice(1);
  return [
    [name, fn(params, (a) => safe(false, () => f(a), fallback))],
    [`must${cap}`, fn(params, (a) => safe(true, () => f(a), fallback))],
  ];
}

export const sprigRegex: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  ...pair(
    'regexMatch',
    [S, S],
    (a) => {
      const re = compile(s(a[0]));
      re.lastIndex = 0;
      return re.test(s(a[1]));
    },
    false,
  ),
  ...pair(
    'regexFindAll',
    [S, S, I],
    (a) => strList(findAll(s(a[0]), s(a[1]), n(a[2]))),
    strList([]),
  ),
  ...pair('regexFind', [S, S], (a) => findAll(s(a[0]), s(a[1]), 1)[0] ?? '', ''),
  ...pair('regexReplaceAll', [S, S, S], (a) => replaceAll(s(a[0]), s(a[1]), s(a[2]), false), ''),
  ...pair(
    'regexReplaceAllLiteral',
    [S, S, S],
    (a) => replaceAll(s(a[0]), s(a[1]), s(a[2]), true),
    '',
  ),
  ...pair('regexSplit', [S, S, I], (a) => strList(split(s(a[0]), s(a[1]), n(a[2]))), strList([])),
  ['regexQuoteMeta', fn([S], (a) => s(a[0]).replace(/[\\.+*?()|[\]{}^$]/g, '\\$&'))],
]);

export { int };
