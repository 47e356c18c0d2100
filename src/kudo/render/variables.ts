/**
 * KUDO's template variables for one step of one plan: `.Name`, `.Namespace`, `.OperatorName`,
 * `.OperatorVersion`, `.AppVersion`, `.PlanName`, `.PhaseName`, `.StepName`, `.Params`,
 * `.Pipes`. Scalar parameters stay strings; array and map values are parsed YAML.
 */
import type { Instance, OperatorVersion, ParameterValueType } from '../api/index.ts';
import { YamlProblem, convert, decodeYaml, Unparsable, valueType } from '../params/index.ts';

export interface StepCoordinates {
  readonly plan: string;
  readonly phase: string;
  readonly step: string;
  /** The run's uid (`spec.planExecution.uid`): annotation `kudo.dev/last-plan-execution-uid`. */
  readonly planUid?: string;
}

/** The variables besides `.Params` and `.Pipes`: plain strings, cheap to send to a worker. */
export type TemplateScalars = Omit<TemplateVariables, 'Params' | 'Pipes'>;

export interface TemplateVariables {
  readonly Name: string;
  readonly Namespace: string;
  readonly OperatorName: string;
  readonly OperatorVersion: string;
  readonly AppVersion: string;
  readonly PlanName: string;
  readonly PhaseName: string;
  readonly StepName: string;
  readonly Params: Readonly<Record<string, unknown>>;
  readonly Pipes: Readonly<Record<string, string>>;
}

/** A parameter value that cannot become what its value-type says (admission normally stops this). */
export class ParameterValueError extends Error {
  override readonly name = 'ParameterValueError';
  constructor(
    readonly parameter: string,
    readonly detail: string,
  ) {
    super(`parameter ${parameter} ${detail}; fix spec.parameters.${parameter}`);
  }
}

/**
 * The operator name (`.OperatorName`, label `kudo.dev/operator`): the OperatorVersion's
 * `spec.operator.name`, '' when it has none (as KUDO; the Instance's label is not consulted).
 */
export function operatorName(_instance: Instance, ov: OperatorVersion): string {
  return ov.spec?.operator?.name ?? '';
}

/** One entry of `.Params` before decoding: what a render job carries (to a worker). */
export interface ParameterInput {
  readonly name: string;
  readonly type: ParameterValueType;
  /** The effective value (usually a string; anything else is refused when decoded). */
  readonly raw: unknown;
}

/**
 * The effective values: the Instance's value, else the default, else ''. Own keys only and
 * a null-prototype result: parameter names are user input (`constructor`, `__proto__`).
 */
export function rawParameters(instance: Instance, ov: OperatorVersion): Record<string, unknown> {
  const values: Readonly<Record<string, unknown>> = instance.spec?.parameters ?? {};
  const out = Object.create(null) as Record<string, unknown>;
  for (const p of ov.spec?.parameters ?? []) {
    if (typeof p?.name !== 'string') continue;
    const own = Object.hasOwn(values, p.name) ? values[p.name] : undefined;
    out[p.name] = own ?? p.default ?? '';
  }
  return out;
}

/** The decode inputs of `ov`'s parameters from effective values (see {@link rawParameters}). */
export function parameterInputs(
  ov: OperatorVersion,
  raw: Readonly<Record<string, unknown>>,
): ParameterInput[] {
  return (ov.spec?.parameters ?? [])
    .filter((p) => typeof p?.name === 'string')
    .map((p) => ({
      name: p.name,
      type: valueType(p),
      raw: Object.hasOwn(raw, p.name) ? raw[p.name] : '',
    }));
}

/**
 * An `array`/`map` parameter's value as KUDO's templates saw it: YAML decoded into a Go
 * `[]interface{}` / `map[string]interface{}`. Empty text (absent without default, or "") and
 * YAML that decodes to nothing (`null`, `~`, only a comment) leave Go's variable nil: an empty
 * list/map here, which templates treat alike (falsy, `len` 0, printed `[]` / `map[]`). Only
 * YAML of another shape (a scalar for an array, a list for a map) is an error.
 */
function structuredParam(
  name: string,
  raw: unknown,
  type: 'array' | 'map',
  decode: (raw: unknown, type: 'array' | 'map') => unknown,
): unknown {
  const empty = (): unknown => (type === 'array' ? [] : Object.create(null));
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
    return empty();
  }
  const parsed = decode(raw, type);
  if (!(parsed instanceof Unparsable)) return parsed;
  if (typeof raw === 'string' && decodesToNothing(raw)) return empty();
  throw new ParameterValueError(name, parsed.reason);
}

function decodesToNothing(raw: string): boolean {
  const value = decodeYaml(raw);
  return !(value instanceof YamlProblem) && (value === null || value === undefined);
}

/**
 * `.Params` from decode inputs: scalars stay as they are, array/map values are decoded
 * (`decode` lets a caller memoise). Null-prototype. Throws {@link ParameterValueError}.
 */
export function decodeParameters(
  inputs: readonly ParameterInput[],
  decode: (raw: unknown, type: 'array' | 'map') => unknown = convert,
): Record<string, unknown> {
  const out = Object.create(null) as Record<string, unknown>;
  for (const { name, type, raw } of inputs) {
    out[name] =
      type === 'array' || type === 'map' ? structuredParam(name, raw, type, decode) : (raw ?? '');
  }
  return out;
}

/** `.Params`: the Instance's value, else the default, else ''; array/map decoded. */
export function templateParams(instance: Instance, ov: OperatorVersion): Record<string, unknown> {
  return decodeParameters(parameterInputs(ov, rawParameters(instance, ov)));
}

export function templateVariables(
  instance: Instance,
  ov: OperatorVersion,
  at: StepCoordinates,
  params: Record<string, unknown> = templateParams(instance, ov),
): TemplateVariables {
  return { ...templateScalars(instance, ov, at), Params: params, Pipes: {} };
}

export function templateScalars(
  instance: Instance,
  ov: OperatorVersion,
  at: StepCoordinates,
): TemplateScalars {
  return {
    Name: instance.metadata.name ?? '',
    Namespace: instance.metadata.namespace ?? '',
    OperatorName: operatorName(instance, ov),
    OperatorVersion: ov.spec?.version ?? '',
    AppVersion: ov.spec?.appVersion ?? '',
    PlanName: at.plan,
    PhaseName: at.phase,
    StepName: at.step,
  };
}
