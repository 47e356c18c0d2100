/**
 * Instance parameter values are strings; value-type says what they must hold. This turns a
 * string into the typed value the schema checks (and templates see for array/map), or a
 * {@link Unparsable} naming why it cannot be one.
 */
import { parse as parseYaml } from 'yaml';
import type { Parameter, ParameterValueType } from '../api/types.ts';

export class Unparsable {
  constructor(
    readonly raw: string,
    readonly reason: string,
  ) {}
}

export function valueType(parameter: Parameter): ParameterValueType {
  const type = parameter['value-type'];
  return type ? type : 'string';
}

// Go's strconv.ParseBool, which KUDO used: the spellings packages and users already write.
const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);
const INTEGER = /^[+-]?\d+$/;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a map' : `a ${typeof value}`;
}

/** The typed value of `raw` for `type`, or why it is not one. */
export function convert(raw: string, type: ParameterValueType): unknown {
  switch (type) {
    case 'string':
      return raw;
    case 'integer':
      return INTEGER.test(raw.trim()) && Number.isSafeInteger(Number(raw))
        ? Number(raw)
        : new Unparsable(raw, 'is not an integer');
    case 'number': {
      const n = raw.trim() === '' ? Number.NaN : Number(raw);
      return Number.isFinite(n) ? n : new Unparsable(raw, 'is not a number');
    }
    case 'boolean':
      if (TRUE.has(raw.trim())) return true;
      if (FALSE.has(raw.trim())) return false;
      return new Unparsable(raw, 'is not a boolean (true or false)');
    case 'array':
    case 'map': {
      let parsed: unknown;
      try {
        parsed = parseYaml(raw);
      } catch (err) {
        const why = (
          err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)
        ).replace(/:\s*$/, '');
        return new Unparsable(raw, `is not valid YAML: ${why}`);
      }
      const wanted = type === 'array' ? Array.isArray(parsed) : isMap(parsed);
      return wanted
        ? parsed
        : new Unparsable(
            raw,
            `is ${describe(parsed)}, not a YAML ${type === 'array' ? 'list' : 'map'}`,
          );
    }
  }
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
