/** Instance parameter checks: types, enum, required, unknown names, immutability. */
export {
  PARAMETERS_FIELD,
  ParameterValidator,
  type DecodeOutcome,
  type DecodedParameters,
  type ParameterDecoder,
  type ParameterValidatorOptions,
} from './validator.ts';
export { immutabilityProblems, type ImmutabilityInput } from './immutability.ts';
export { canonicalInteger, convert, Unparsable, valueType } from './convert.ts';
export {
  YamlProblem,
  decodeYaml,
  duplicateKey,
  harden,
  lineAndColumn,
  nestingBound,
} from './yaml.ts';
export * from './limits.ts';
export { parameterField, type ParameterProblem } from './errors.ts';
