/**
 * KUDO's template variables for one step of one plan: `.Name`, `.Namespace`, `.OperatorName`,
 * `.OperatorVersion`, `.AppVersion`, `.PlanName`, `.PhaseName`, `.StepName`, `.Params`,
 * `.Pipes`. Scalar parameters stay strings; array and map values are parsed YAML.
 */
import type { Instance, OperatorVersion } from '../api/types.ts';
import { convert, Unparsable, valueType } from '../params/index.ts';

export interface StepCoordinates {
  readonly plan: string;
  readonly phase: string;
  readonly step: string;
}

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
    detail: string,
  ) {
    super(`parameter ${parameter} ${detail}; fix spec.parameters.${parameter}`);
  }
}

/** The operator name: the OperatorVersion's `spec.operator.name`, else the Instance label. */
export function operatorName(instance: Instance, ov: OperatorVersion): string {
  return ov.spec?.operator?.name ?? instance.metadata.labels?.['kudo.dev/operator'] ?? '';
}

/** `.Params`: the Instance's value, else the default, else ''; array/map parsed. */
export function templateParams(instance: Instance, ov: OperatorVersion): Record<string, unknown> {
  const values = instance.spec?.parameters ?? {};
  const out: Record<string, unknown> = {};
  for (const p of ov.spec?.parameters ?? []) {
    const raw = values[p.name] ?? p.default ?? undefined;
    const type = valueType(p);
    if (type === 'array' || type === 'map') {
      if (raw === undefined || raw === null || raw === '') {
        out[p.name] = raw ?? '';
        continue;
      }
      const parsed = convert(raw, type);
      if (parsed instanceof Unparsable) throw new ParameterValueError(p.name, parsed.reason);
      out[p.name] = parsed;
    } else {
      out[p.name] = raw ?? '';
    }
  }
  return out;
}

export function templateVariables(
  instance: Instance,
  ov: OperatorVersion,
  at: StepCoordinates,
  params: Record<string, unknown> = templateParams(instance, ov),
): TemplateVariables {
  return {
    Name: instance.metadata.name ?? '',
    Namespace: instance.metadata.namespace ?? '',
    OperatorName: operatorName(instance, ov),
    OperatorVersion: ov.spec?.version ?? '',
    AppVersion: ov.spec?.appVersion ?? '',
    PlanName: at.plan,
    PhaseName: at.phase,
    StepName: at.step,
    Params: params,
    Pipes: {},
  };
}
