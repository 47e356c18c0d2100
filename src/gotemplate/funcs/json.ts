// encoding/json as sprig uses it: Marshal (sorted keys, HTML escaping, Go's float
// format) and Unmarshal into interface{} (objects → map[string]interface{}, numbers →
// float64).

import { GoFunc, GoInt, GoMap, GoObject, GoSlice } from '../values.ts';
import { INTERFACE } from '../values.ts';
import type { GoValue } from '../values.ts';
import { formatFloat } from '../fmt.ts';
import { goJsonSyntaxError } from './json-syntax.ts';

export class JSONError extends Error {}

function quote(s: string, escapeHTML: boolean): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (c < 0x20) {
      if (ch === '\n') out += '\\n';
      else if (ch === '\r') out += '\\r';
      else if (ch === '\t') out += '\\t';
      else if (ch === '\b') out += '\\b';
      else if (ch === '\f') out += '\\f';
      else out += '\\u00' + c.toString(16).padStart(2, '0');
    } else if (escapeHTML && (ch === '<' || ch === '>' || ch === '&')) {
      out += '\\u00' + c.toString(16).padStart(2, '0');
    } else if (c === 0x2028 || c === 0x2029) {
      out += '\\u' + c.toString(16);
    } else out += ch;
  }
  return out + '"';
}

function float(f: number): string {
  if (!Number.isFinite(f))
    throw new JSONError(`json: unsupported value: ${formatFloat(f, 'g', -1)}`);
  const abs = Math.abs(f);
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) {
    let s = formatFloat(f, 'e', -1);
    // clean up e-09 to e-9
    s = s.replace(/e([+-])0(\d)$/, 'e$1$2');
    return s;
  }
  return formatFloat(f, 'f', -1);
}

export function marshal(
  v: GoValue | undefined,
  escapeHTML: boolean,
  indent?: string,
  prefix = '',
): string {
  if (v === undefined || v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return quote(v, escapeHTML);
    case 'number':
      return float(v);
    case 'boolean':
      return String(v);
  }
  if (v instanceof GoInt) return v.v.toString();
  if (v instanceof GoFunc) throw new JSONError(`json: unsupported type: ${v.type}`);
  if (v instanceof GoObject) {
    const m = v.hooks.marshalJSON;
    if (!m) return quote(v.str(), escapeHTML);
    try {
      return m();
    } catch (e) {
      throw new JSONError((e as Error).message);
    }
  }
  const inner = prefix + (indent ?? '');
  const nl = indent !== undefined ? '\n' : '';
  if (v instanceof GoSlice) {
    if (v.nil) return 'null';
    if (v.items.length === 0) return '[]';
    const parts = v.items.map(
      (x) => (indent !== undefined ? inner : '') + marshal(x, escapeHTML, indent, inner),
    );
    return `[${nl}${parts.join(',' + nl)}${nl}${indent !== undefined ? prefix : ''}]`;
  }
  const m = v;
  if (m.nil) return 'null';
  if (m.entries.size === 0) return '{}';
  const sep = indent !== undefined ? ': ' : ':';
  const parts = [...m.entries.keys()]
    .sort()
    .map(
      (k) =>
        (indent !== undefined ? inner : '') +
        quote(k, escapeHTML) +
        sep +
        marshal(m.entries.get(k) ?? null, escapeHTML, indent, inner),
    );
  return `{${nl}${parts.join(',' + nl)}${nl}${indent !== undefined ? prefix : ''}}`;
}

export function fromPlain(x: unknown): GoValue {
  if (x === null) return null;
  if (Array.isArray(x)) return new GoSlice(INTERFACE, x.map(fromPlain));
  if (typeof x === 'object') {
    return new GoMap(
      INTERFACE,
      new Map(Object.entries(x as Record<string, unknown>).map(([k, v]) => [k, fromPlain(v)])),
    );
  }
  return x as string | number | boolean;
}

export function unmarshal(s: string): GoValue {
  let parsed: unknown;
  try {
    parsed = JSON.parse(s);
  } catch (e) {
    throw new JSONError(goJsonSyntaxError(s) ?? (e instanceof Error ? e.message : String(e)));
  }
  return fromPlain(parsed);
}
