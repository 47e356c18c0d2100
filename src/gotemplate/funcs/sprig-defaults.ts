// sprig's defaults, JSON and reflection functions (defaults.go, reflect.go).

import { sprintf } from '../fmt.ts';
import { INTERFACE as A } from '../values.ts';
import { kindOf, typeOf } from '../values.ts';
import type { FuncDef } from '../values.ts';
import { deepEqual, empty, fn, goErr } from './convert.ts';
import type { V } from './convert.ts';
import { JSONError, marshal, unmarshal } from './json.ts';

const S = 'string';

function json(v: V, html: boolean, indent?: string): string {
  return marshal(v ?? null, html, indent);
}

function swallow(f: () => string): string {
  try {
    return f();
  } catch (e) {
    if (e instanceof JSONError) return '';
    throw e;
  }
}

function must(f: () => V): V {
  try {
    return f();
  } catch (e) {
    if (e instanceof JSONError) goErr(e.message);
    throw e;
  }
}

export const sprigDefaults: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  ['default', fn([A], (a) => (a.length < 2 || empty(a[1]) ? (a[0] ?? null) : (a[1] ?? null)), A)],
  ['empty', fn([A], (a) => empty(a[0]))],
  ['coalesce', fn([], (a) => a.find((x) => !empty(x)) ?? null, A)],
  ['all', fn([], (a) => a.every((x) => !empty(x)), A)],
  ['any', fn([], (a) => a.some((x) => !empty(x)), A)],
  ['ternary', fn([A, A, 'bool'], (a) => (a[2] ? (a[0] ?? null) : (a[1] ?? null)))],
  [
    'fromJson',
    fn([S], (a) => {
      try {
        return unmarshal(a[0]);
      } catch (e) {
        if (e instanceof JSONError) return null;
        throw e;
      }
    }),
  ],
  ['mustFromJson', fn([S], (a) => must(() => unmarshal(a[0])))],
  ['toJson', fn([A], (a) => swallow(() => json(a[0], true)))],
  ['toPrettyJson', fn([A], (a) => swallow(() => json(a[0], true, '  ')))],
  ['toRawJson', fn([A], (a) => swallow(() => json(a[0], false)))],
  ['mustToJson', fn([A], (a) => must(() => json(a[0], true)))],
  ['mustToPrettyJson', fn([A], (a) => must(() => json(a[0], true, '  ')))],
  ['mustToRawJson', fn([A], (a) => must(() => json(a[0], false)))],
  ['typeOf', fn([A], (a) => sprintf('%T', [a[0] ?? null]))],
  ['typeIs', fn([S, A], (a) => a[0] === sprintf('%T', [a[1] ?? null]))],
  [
    'typeIsLike',
    fn([S, A], (a) => {
      const t = sprintf('%T', [a[1] ?? null]);
      return a[0] === t || a[0] === '*' + t;
    }),
  ],
  ['kindOf', fn([A], (a) => kindOf(a[0]))],
  ['kindIs', fn([S, A], (a) => a[0] === kindOf(a[1]))],
  ['deepEqual', fn([A, A], (a) => deepEqual(a[0], a[1]))],
  ['fail', fn([S], (a) => goErr(a[0]))],
]);

export { typeOf };
