/**
 * Instance parameter values are strings; value-type says what they must hold. This turns a
 * string into the typed value the schema checks (and templates see for array/map), or a
 * {@link Unparsable} naming why it cannot be one. Anything but a string (the CRD schema
 * says string, but admission must not trust that) is Unparsable, never an exception.
 */
import type { Parameter, ParameterValueType } from '../api/index.ts';
import { MAX_PARAMETER_VALUE_BYTES, describeType } from './limits.ts';
import { YamlProblem, decodeYaml } from './yaml.ts';

export class Unparsable {
  constructor(
    readonly raw: unknown,
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
// Go's int64, which KUDO parses integers into.
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * An integer parameter's typed value: the canonical decimal text of an int64 (a JS number
 * cannot hold 9223372036854775807 exactly; comparing canonical text is exact).
 */
export function canonicalInteger(raw: string): string | Unparsable {
  const text = raw.trim();
  if (!INTEGER.test(text)) return new Unparsable(raw, 'is not an integer');
  const value = BigInt(text);
  if (value < INT64_MIN || value > INT64_MAX) {
    return new Unparsable(raw, 'is out of range for a 64-bit integer');
  }
  return value.toString();
}

/** The typed value of `raw` for `type`, or why it is not one. */
export function convert(raw: unknown, type: ParameterValueType): unknown {
  if (typeof raw !== 'string') {
    return new Unparsable(
      raw,
      `is ${describeType(raw)}, not a string: parameter values are always strings (quote it: "5")`,
    );
  }
  if (tooLarge(raw)) {
    return new Unparsable(
      raw,
      `is ${Buffer.byteLength(raw)} bytes, more than the limit of ${MAX_PARAMETER_VALUE_BYTES} bytes per value`,
    );
  }
  switch (type) {
    case 'string':
      return raw;
    case 'integer':
      return canonicalInteger(raw);
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
      const parsed = decodeYaml(raw);
      if (parsed instanceof YamlProblem) return new Unparsable(raw, parsed.reason);
      // "" and YAML that decodes to nothing (`null`, `~`, only a comment) leave Go's variable
      // nil, which KUDO's templates saw as an empty list/map: accepted, as rendering does.
      if (parsed === null || parsed === undefined) {
        return type === 'array' ? [] : (Object.create(null) as Record<string, unknown>);
      }
      const wanted = type === 'array' ? Array.isArray(parsed) : isMap(parsed);
      return wanted
        ? parsed
        : new Unparsable(
            raw,
            `is ${describeType(parsed)}, not a YAML ${type === 'array' ? 'list' : 'map'}`,
          );
    }
  }
}

/** UTF-8 length over the limit; the character count alone (1–3 bytes each) decides most cases. */
function tooLarge(raw: string): boolean {
  if (raw.length > MAX_PARAMETER_VALUE_BYTES) return true;
  if (raw.length * 3 <= MAX_PARAMETER_VALUE_BYTES) return false;
  return Buffer.byteLength(raw) > MAX_PARAMETER_VALUE_BYTES;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
