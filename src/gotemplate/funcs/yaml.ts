// KUDO's toYaml: gopkg.in/yaml.v2 (v2.3.0) Marshal of the value, returned as is (with its
// trailing newline). The text is go-yaml's emitter's (../goyaml/), the one that also writes
// KUDO's dependencies hash; this file maps template values onto the nodes yaml.v2's encoder
// makes of the Go values they stand for.

import { GoYamlEmitter, type NodeContext } from '../goyaml/emitter.ts';
import { INTERFACE } from '../values.ts';
import { sortYamlKeys } from '../goyaml/keys.ts';
import { stringStyle, yamlFloat } from '../goyaml/resolve.ts';
import { GoFunc, GoInt, GoMap, GoSlice } from '../values.ts';
import type { FuncDef, GoValue } from '../values.ts';
import { fn, goErr } from './convert.ts';

function node(e: GoYamlEmitter, v: GoValue, ctx: NodeContext): void {
  if (v === null) return e.scalar('null', 'plain', ctx);
  switch (typeof v) {
    case 'string':
      return e.scalar(v, stringStyle(v), ctx);
    case 'boolean':
      return e.scalar(String(v), 'plain', ctx);
    case 'number':
      return e.scalar(yamlFloat(v), 'plain', ctx);
  }
  if (v instanceof GoInt) return e.scalar(v.v.toString(), 'plain', ctx);
  if (v instanceof GoSlice) {
    // A nil slice is written `[]` as an empty one.
    return e.sequence(v.items.length, ctx, (i, c) => node(e, v.items[i] ?? null, c));
  }
  if (v instanceof GoMap) {
    return e.mapping(sortYamlKeys([...v.entries.keys()]), (k, c) =>
      node(e, v.entries.get(k) ?? null, c),
    );
  }
  if (v instanceof GoFunc) goErr(`cannot marshal type: ${v.type}`);
  // Times and durations have a scalar of their own; other structs print as their String().
  const own = v.hooks.yamlScalar?.();
  if (own !== undefined) return e.scalar(own, 'plain', ctx);
  const text = v.str();
  e.scalar(text, stringStyle(text), ctx);
}

export function toYaml(v: GoValue): string {
  const e = new GoYamlEmitter();
  node(e, v, GoYamlEmitter.TOP);
  return e.finish();
}

export const yamlFuncs: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  ['toYaml', fn([INTERFACE], (a) => toYaml(a[0] ?? null))],
]);
