/**
 * Immutable parameters: once an Instance exists their effective value (explicit value, else
 * the default) must not change — neither by an edit nor by an upgrade whose default differs.
 * An upgrade that makes a parameter immutable, or adds an immutable one, needs an explicit
 * value in the Instance: the value is frozen from then on, so it must be a decision, not an
 * accident of whatever the default happens to be.
 */
import type { OperatorVersion, Parameter } from '../api/index.ts';
import { parameterField, type ParameterProblem } from './errors.ts';
import { namespacedName } from '../../kube/index.ts';

export interface ImmutabilityInput {
  readonly oldValues: Readonly<Record<string, string>>;
  readonly newValues: Readonly<Record<string, string>>;
  /** The OperatorVersion the stored Instance used; undefined when it no longer exists. */
  readonly oldOperatorVersion: OperatorVersion | undefined;
  readonly newOperatorVersion: OperatorVersion;
  readonly upgrade: boolean;
}

/** The value of `name` if the map has it as its own key (user keys may be `constructor`). */
function valueOf(values: Readonly<Record<string, string>>, name: string): string | undefined {
  return Object.hasOwn(values, name) ? values[name] : undefined;
}

function byName(ov: OperatorVersion | undefined): Map<string, Parameter> {
  return new Map((ov?.spec?.parameters ?? []).filter((p) => p?.name).map((p) => [p.name, p]));
}

export function immutabilityProblems(input: ImmutabilityInput): ParameterProblem[] {
  const { oldValues, newValues, upgrade, oldOperatorVersion } = input;
  const before = byName(oldOperatorVersion);
  const problems: ParameterProblem[] = [];
  const label = namespacedName(input.newOperatorVersion.metadata);
  for (const parameter of input.newOperatorVersion.spec?.parameters ?? []) {
    if (!parameter?.name || !parameter.immutable) continue;
    const name = parameter.name;
    const previous = before.get(name);
    // Without the old OperatorVersion, an explicit value is the only evidence of the past.
    const wasImmutable =
      oldOperatorVersion === undefined
        ? Object.hasOwn(oldValues, name)
        : previous?.immutable === true;
    if (wasImmutable) {
      const oldValue = valueOf(oldValues, name) ?? (previous ?? parameter).default ?? undefined;
      const newValue = valueOf(newValues, name) ?? parameter.default ?? undefined;
      if (oldValue === newValue) continue;
      // Values are left out of messages on purpose: parameters often carry passwords.
      problems.push({
        name,
        field: parameterField(name),
        reason: 'FieldValueForbidden',
        message: Object.hasOwn(newValues, name)
          ? 'immutable: it cannot change after the Instance was created; restore the previous value'
          : Object.hasOwn(oldValues, name)
            ? 'immutable: removing it would change its value to the default; restore the previous value'
            : `immutable, and the default in ${label} differs from the value in use; set the value in use explicitly`,
      });
    } else if (upgrade && !Object.hasOwn(newValues, name)) {
      problems.push({
        name,
        field: parameterField(name),
        reason: 'FieldValueRequired',
        message: previous
          ? `${label} makes this parameter immutable; set it explicitly in the same change (it cannot change afterwards)`
          : `${label} adds this immutable parameter; set it explicitly in the same change (it cannot change afterwards)`,
      });
    }
  }
  return problems;
}
