/**
 * What the verifier checks, the same shape whether it comes from a package folder or from an
 * OperatorVersion object, with the field paths each source uses in its findings.
 */
import type { OperatorVersion, Plan, Task } from '../api/index.ts';
import type { PackageDefinition, ParameterGroup } from '../package/index.ts';

export interface SubjectParameter {
  readonly name: string;
  readonly displayName?: string | undefined;
  readonly description?: string | undefined;
  readonly required: boolean;
  readonly default?: string | undefined;
  readonly trigger?: string | undefined;
  readonly type?: string | undefined;
  readonly immutable: boolean;
  readonly enum?: readonly string[] | undefined;
  readonly group?: string | undefined;
  readonly advanced?: boolean | undefined;
  readonly hint?: string | undefined;
}

export interface SubjectVersion {
  /** KUDO's name of the field in messages (`operatorVersion`, `kubernetesVersion`, …). */
  readonly label: string;
  readonly value: string | undefined;
  readonly required: boolean;
  readonly field: string;
}

export interface VerifySubject {
  readonly kind: 'package' | 'operatorVersion';
  readonly operatorName: string;
  readonly operatorNameField: string;
  readonly versions: readonly SubjectVersion[];
  readonly parameters: readonly SubjectParameter[];
  readonly groups: readonly ParameterGroup[];
  readonly tasks: readonly Task[];
  readonly plans: Readonly<Record<string, Plan>>;
  readonly templates: Readonly<Record<string, string>>;
  readonly namespaceManifest: string | undefined;
  /** An OperatorVersion's KudoOperator tasks must carry resolved versions; a package's not yet. */
  readonly kudoOperatorNeedsVersion: boolean;
  readonly field: {
    parameter(index: number, sub?: string): string;
    group(index: number): string;
    task(index: number, sub?: string): string;
    plan(name: string, sub?: string): string;
    template(key: string): string;
    namespaceManifest: string;
  };
}

function join(base: string, sub?: string): string {
  return sub ? `${base}.${sub}` : base;
}

export function packageSubject(pkg: PackageDefinition): VerifySubject {
  const op = pkg.operator;
  return {
    kind: 'package',
    operatorName: op.name,
    operatorNameField: 'operator.yaml: name',
    versions: [
      {
        label: 'operatorVersion',
        value: op.operatorVersion,
        required: true,
        field: 'operator.yaml: operatorVersion',
      },
      {
        label: 'appVersion',
        value: op.appVersion,
        required: false,
        field: 'operator.yaml: appVersion',
      },
      {
        label: 'kubernetesVersion',
        value: op.kubernetesVersion,
        required: true,
        field: 'operator.yaml: kubernetesVersion',
      },
      {
        label: 'kudoVersion',
        value: op.kudoVersion,
        required: false,
        field: 'operator.yaml: kudoVersion',
      },
    ],
    parameters: pkg.params.parameters,
    groups: pkg.params.groups,
    tasks: op.tasks,
    plans: op.plans,
    templates: pkg.templates,
    namespaceManifest: op.namespaceManifest,
    kudoOperatorNeedsVersion: false,
    field: {
      parameter: (i, sub) => join(`params.yaml: parameters[${i}]`, sub),
      group: (i) => `params.yaml: groups[${i}]`,
      task: (i, sub) => join(`operator.yaml: tasks[${i}]`, sub),
      plan: (name, sub) => join(`operator.yaml: plans.${name}`, sub),
      template: (key) => `templates/${key}`,
      namespaceManifest: 'operator.yaml: namespaceManifest',
    },
  };
}

export interface OperatorVersionSubjectOptions {
  /** The Operator's `spec.namespaceManifest`, when known: that template may be a Namespace. */
  readonly namespaceManifest?: string | undefined;
}

export function operatorVersionSubject(
  ov: OperatorVersion,
  options: OperatorVersionSubjectOptions = {},
): VerifySubject {
  const spec = ov.spec ?? {};
  return {
    kind: 'operatorVersion',
    operatorName: spec.operator?.name ?? '',
    operatorNameField: 'spec.operator.name',
    versions: [
      { label: 'version', value: spec.version, required: true, field: 'spec.version' },
      { label: 'appVersion', value: spec.appVersion, required: false, field: 'spec.appVersion' },
    ],
    parameters: (spec.parameters ?? []).map((p) => ({
      name: p.name,
      displayName: p.displayName,
      description: p.description,
      // The API has no reader default: an OperatorVersion written by hand says it or not.
      required: p.required === true,
      default: p.default ?? undefined,
      trigger: p.trigger,
      type: p['value-type'] || undefined,
      immutable: p.immutable === true,
      enum: p.enum ?? undefined,
    })),
    groups: [],
    tasks: spec.tasks ?? [],
    plans: spec.plans ?? {},
    templates: spec.templates ?? {},
    namespaceManifest: options.namespaceManifest,
    kudoOperatorNeedsVersion: true,
    field: {
      parameter: (i, sub) => join(`spec.parameters[${i}]`, sub),
      group: (i) => `spec.groups[${i}]`,
      task: (i, sub) => join(`spec.tasks[${i}]`, sub),
      plan: (name, sub) => join(`spec.plans[${name}]`, sub),
      template: (key) => `spec.templates[${key}]`,
      namespaceManifest: 'spec.templates',
    },
  };
}
