/** One thing wrong with an Instance's parameters, pointing at the field a person must fix. */
export interface ParameterProblem {
  /** The parameter's name. */
  readonly name: string;
  /** Field path as kubectl shows it: `spec.parameters.NAME`. */
  readonly field: string;
  readonly message: string;
  /** Cause type in Kubernetes' vocabulary (FieldValueInvalid, FieldValueRequired, …). */
  readonly reason:
    'FieldValueInvalid' | 'FieldValueRequired' | 'FieldValueNotSupported' | 'FieldValueForbidden';
}

export function parameterField(name: string): string {
  return `spec.parameters.${name}`;
}
