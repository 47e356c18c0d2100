/** Instance parameter checks: types, enum, required, unknown names, immutability. */
export {
  ParameterValidator,
  operatorVersionLabel,
  type ParameterValidatorOptions,
} from './validator.ts';
export { immutabilityProblems, type ImmutabilityInput } from './immutability.ts';
export { convert, Unparsable, valueType } from './convert.ts';
export { parameterField, type ParameterProblem } from './errors.ts';
