// sprig's list functions (list.go). The non-must variants panic where the must variants
// return an error; text/template reports both as "error calling X: ...".

import { GoSlice } from '../values.ts';
import { INTERFACE as A } from '../values.ts';
import type { FuncDef, GoValue } from '../values.ts';
import { deepEqual, empty, fn, goErr, kindName, nilDeref, sliceOf, toInt64 } from './convert.ts';
import type { V } from './convert.ts';

const nilSlice = (): GoSlice => new GoSlice(A, [], true);

/** The list's items, or sprig's error: "Cannot <what> on type <kind>" ("Cannot chunk type"). */
function items(v: V, what: string): GoValue[] {
  if (v === undefined || v === null) goErr(nilDeref);
  if (v instanceof GoSlice) return v.items;
  goErr(`Cannot ${what}${what === 'chunk' ? '' : ' on'} type ${kindName(v)}`);
}

type ListOp = (list: GoValue[], args: V[], orig: GoSlice) => V;

function both(
  name: string,
  what: string,
  op: ListOp,
  params: string[] = [A],
  variadic?: string,
): [string, FuncDef][] {
  const impl = (a: V[]): V => {
    const l = items(a[0], what);
    return op(l, a.slice(1), a[0] as GoSlice);
  };
  const cap = name[0]!.toUpperCase() + name.slice(1);
  return [
    [name, fn(params, impl, variadic)],
    [`must${cap}`, fn(params, impl, variadic)],
  ];
}

function uniq(l: GoValue[]): GoValue[] {
  const out: GoValue[] = [];
  for (const x of l) if (!out.some((y) => deepEqual(x, y))) out.push(x);
  return out;
}

function sliceImpl(a: V[]): V {
  const list = a[0];
  if (list === undefined || list === null) goErr(nilDeref);
  if (!(list instanceof GoSlice))
    goErr(`list should be type of slice or array but ${kindName(list)}`);
  const l = list.items.length;
  if (l === 0) return null;
  const start = a.length > 1 ? Number(toInt64(a[1])) : 0;
  const end = a.length > 2 ? Number(toInt64(a[2])) : l;
  if (start < 0 || end < start || end > l) goErr('reflect.Value.Slice: slice index out of bounds');
  return new GoSlice(list.elem, list.items.slice(start, end));
}

function concat(a: V[]): V {
  const res: GoValue[] = [];
  for (const l of a) {
    if (l === undefined || l === null) goErr(nilDeref);
    if (!(l instanceof GoSlice)) goErr(`Cannot concat type ${kindName(l)} as list`);
    res.push(...l.items);
  }
  return sliceOf(res);
}

function chunk(size: number, l: GoValue[]): V {
  const out: GoValue[] = [];
  for (let i = 0; i < l.length; i += size) out.push(sliceOf(l.slice(i, i + size)));
  return new GoSlice('[]interface {}', out);
}

export const sprigLists: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  ['list', fn([], (a) => sliceOf(a.map((x) => x ?? null)), A)],
  ['tuple', fn([], (a) => sliceOf(a.map((x) => x ?? null)), A)],
  ...both('push', 'push', (l, a) => sliceOf([...l, a[0] ?? null]), [A, A]),
  ...both('append', 'push', (l, a) => sliceOf([...l, a[0] ?? null]), [A, A]),
  ...both('prepend', 'prepend', (l, a) => sliceOf([a[0] ?? null, ...l]), [A, A]),
  ...both('first', 'find first', (l) => (l.length === 0 ? null : l[0]!)),
  // sprig v2 returns a nil slice for an empty list (toJson prints `null`).
  ...both('rest', 'find rest', (l) => (l.length === 0 ? nilSlice() : sliceOf(l.slice(1)))),
  ...both('last', 'find last', (l) => (l.length === 0 ? null : l[l.length - 1]!)),
  ...both('initial', 'find initial', (l) =>
    l.length === 0 ? nilSlice() : sliceOf(l.slice(0, -1)),
  ),
  ...both('reverse', 'find reverse', (l) => sliceOf([...l].reverse())),
  ...both('uniq', 'find uniq', (l) => sliceOf(uniq(l))),
  ...both('compact', 'compact', (l) => sliceOf(l.filter((x) => !empty(x)))),
  ...both(
    'without',
    'find without',
    (l, a) => sliceOf(l.filter((x) => !a.some((o) => deepEqual(x, o)))),
    [A],
    A,
  ),
  [
    'has',
    fn([A, A], (a) => {
      const h = a[1];
      if (h === undefined || h === null) return false;
      return items(h, 'find has').some((x) => deepEqual(x, a[0]));
    }),
  ],
  [
    'mustHas',
    fn([A, A], (a) => {
      const h = a[1];
      if (h === undefined || h === null) return false;
      return items(h, 'find has').some((x) => deepEqual(x, a[0]));
    }),
  ],
  ['slice', fn([A], sliceImpl, A)],
  ['mustSlice', fn([A], sliceImpl, A)],
  ['concat', fn([], concat, A)],
  ['chunk', fn(['int', A], (a) => chunk(Number((a[0] as { v: bigint }).v), items(a[1], 'chunk')))],
  [
    'mustChunk',
    fn(['int', A], (a) => chunk(Number((a[0] as { v: bigint }).v), items(a[1], 'chunk'))),
  ],
]);
