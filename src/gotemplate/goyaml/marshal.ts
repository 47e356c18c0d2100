/**
 * `yaml.Marshal` of go-yaml v2.3.0 for JSON-shaped data — maps with string keys, lists,
 * strings, numbers, booleans and null — byte for byte: KUDO's `kudo.dev/dependencies-hash` is
 * an MD5 over exactly that text, and `kubectl kudo … -o yaml` prints it.
 */

import { GoYamlEmitter, type NodeContext } from './emitter.ts';
import { sortYamlKeys } from './keys.ts';
import { stringStyle, yamlFloat } from './resolve.ts';

export type GoYamlValue =
  | null
  | boolean
  | number
  | string
  | readonly GoYamlValue[]
  | { readonly [key: string]: GoYamlValue };

/**
 * A number as go-yaml prints what Go's JSON decoding made of it: JSON writes integral values
 * below 1e21 as digits, which Go reads as int64 when they fit and as float64 otherwise.
 * (JavaScript cannot tell `1.0` from `1`: integral values count as integers.)
 */
function formatNumber(n: number): string {
  if (Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 63) return BigInt(n).toString();
  return yamlFloat(n);
}

function node(e: GoYamlEmitter, value: GoYamlValue, ctx: NodeContext): void {
  if (value === null) return e.scalar('null', 'plain', ctx);
  if (typeof value === 'boolean') return e.scalar(value ? 'true' : 'false', 'plain', ctx);
  if (typeof value === 'number') return e.scalar(formatNumber(value), 'plain', ctx);
  if (typeof value === 'string') return e.scalar(value, stringStyle(value), ctx);
  if (Array.isArray(value)) {
    const items = value as readonly GoYamlValue[];
    return e.sequence(items.length, ctx, (i, c) => node(e, items[i] ?? null, c));
  }
  const map = value as { readonly [key: string]: GoYamlValue };
  e.mapping(sortYamlKeys(Object.keys(map)), (key, c) => node(e, map[key] ?? null, c));
}

/** `yaml.Marshal(value)` of go-yaml v2.3.0 for JSON-shaped data; ends with a line break. */
export function goYamlMarshal(value: GoYamlValue): string {
  const e = new GoYamlEmitter();
  node(e, value, GoYamlEmitter.TOP);
  return e.finish();
}
