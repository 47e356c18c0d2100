// sprig's regex functions over the RE2 port (re2/): Go's syntax, errors and match loops.
// regexMatch swallows a bad expression (false); the other non-must functions call
// regexp.MustCompile, whose panic the template reports as the call's error.

import { GoSlice } from '../values.ts';
import { quoteGo } from '../fmt.ts';
import { compile, quoteMeta, Re2Error } from '../re2/regexp.ts';
import type { Regexp } from '../re2/regexp.ts';
import type { FuncDef } from '../values.ts';
import { fn, goErr, strList } from './convert.ts';
import type { V } from './convert.ts';

const S = 'string';
const I = 'int';

const s = (v: V): string => v as string;
const n = (v: V): number => Number((v as { v: bigint }).v);

/** strconv.CanBackquote: no backquote, no control character but tab, no BOM. */
function canBackquote(str: string): boolean {
  for (const ch of str) {
    const c = ch.codePointAt(0)!;
    if (c === 0xfeff || ch === '`' || c === 0x7f || (c < 0x20 && c !== 9)) return false;
    if (c >= 0xd800 && c <= 0xdfff) return false;
  }
  return true;
}

/** regexp.MustCompile's panic text. */
function mustCompile(expr: string): Regexp {
  try {
    return compile(expr);
  } catch (e) {
    if (!(e instanceof Re2Error)) throw e;
    const q = canBackquote(expr) ? `\`${expr}\`` : quoteGo(expr);
    return goErr(`regexp: Compile(${q}): ${e.message}`);
  }
}

/** regexp.Compile for the must* variants: the parse error itself. */
function mustVariant(expr: string): Regexp {
  try {
    return compile(expr);
  } catch (e) {
    if (e instanceof Re2Error) goErr(e.message);
    throw e;
  }
}

type Compiler = (expr: string) => Regexp;

/** Go's FindAllString: nil (toJson `null`) when nothing matches. */
function findAll(re: Regexp, str: string, count: number): V {
  const found = re.findAll(str, count);
  if (found.length === 0) return new GoSlice('string', [], true);
  return strList(found.map((m) => str.slice(m[0], m[1])));
}

function find(re: Regexp, str: string): string {
  const m = re.exec(str, 0);
  return m ? str.slice(m[0], m[1]) : '';
}

/** Both spellings of each function: plain (MustCompile) and must* (Compile). */
function pair(name: string, params: string[], f: (c: Compiler, a: V[]) => V): [string, FuncDef][] {
  const cap = name[0]!.toUpperCase() + name.slice(1);
  return [
    [name, fn(params, (a) => f(mustCompile, a))],
    [`must${cap}`, fn(params, (a) => f(mustVariant, a))],
  ];
}

export const sprigRegex: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  [
    'regexMatch',
    fn([S, S], (a) => {
      try {
        return compile(s(a[0])).matchString(s(a[1]));
      } catch (e) {
        if (e instanceof Re2Error) return false;
        throw e;
      }
    }),
  ],
  ['mustRegexMatch', fn([S, S], (a) => mustVariant(s(a[0])).matchString(s(a[1])))],
  ...pair('regexFindAll', [S, S, I], (c, a) => findAll(c(s(a[0])), s(a[1]), n(a[2]))),
  ...pair('regexFind', [S, S], (c, a) => find(c(s(a[0])), s(a[1]))),
  ...pair('regexReplaceAll', [S, S, S], (c, a) => {
    const re = c(s(a[0]));
    const str = s(a[1]);
    return re.replaceAll(str, (m) => re.expand(s(a[2]), str, m));
  }),
  ...pair('regexReplaceAllLiteral', [S, S, S], (c, a) =>
    c(s(a[0])).replaceAll(s(a[1]), () => s(a[2])),
  ),
  // Go's Split with n == 0 is nil.
  ...pair('regexSplit', [S, S, I], (c, a) =>
    n(a[2]) === 0 ? new GoSlice('string', [], true) : strList(c(s(a[0])).split(s(a[1]), n(a[2]))),
  ),
  ['regexQuoteMeta', fn([S], (a) => quoteMeta(s(a[0])))],
]);
