/**
 * Whether a default or enum value fits the parameter's type, in KUDO's words. The parsing
 * itself is admission's (params/convert.ts), so the verifier accepts exactly what an
 * Instance may later hold.
 */
import { PARAMETER_VALUE_TYPES, type ParameterValueType } from '../api/index.ts';
import { convert, Unparsable } from '../params/index.ts';

const GO_PARSER: Partial<Record<ParameterValueType, string>> = {
  integer: 'strconv.ParseInt',
  number: 'strconv.ParseFloat',
  boolean: 'strconv.ParseBool',
};

export function isKnownType(type: string | undefined): boolean {
  return !type || (PARAMETER_VALUE_TYPES as readonly string[]).includes(type);
}

/** KUDO's text for `value` not being a `type`, or undefined when it is one (or the type is unknown). */
export function valueTypeProblem(type: string | undefined, value: string): string | undefined {
  if (!type || type === 'string' || !isKnownType(type)) return undefined;
  const t = type as ParameterValueType;
  if (!(convert(value, t) instanceof Unparsable)) return undefined;
  const q = JSON.stringify(value);
  if (t === 'array' || t === 'map') return `type is "${t}", but format of ${value} is invalid`;
  const range = t === 'integer' && /^[+-]?\d+$/.test(value.trim());
  return `type is "${t}" but format of ${q} is invalid: ${GO_PARSER[t] ?? ''}: parsing ${q}: ${range ? 'value out of range' : 'invalid syntax'}`;
}
