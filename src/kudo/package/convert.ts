/**
 * A package as the API objects install and upgrade create: the Operator, the
 * OperatorVersion (`<name>-<appVersion>-<operatorVersion>`, or `<name>-<operatorVersion>`)
 * and the Instance (`<name>-instance` unless named, label `kudo.dev/operator`). Every call
 * returns fresh objects the caller may change.
 */
import {
  KUDO_API_VERSION,
  type Instance,
  type Operator,
  type OperatorVersion,
  type Parameter,
  type ParameterValueType,
} from '../api/index.ts';
import { PackageReadError } from './errors.ts';
import type { PackageDefinition, PackageParameter } from './model.ts';

export const OPERATOR_LABEL = 'kudo.dev/operator';

export interface PackageResources {
  readonly operator: Operator;
  readonly operatorVersion: OperatorVersion;
  readonly instance: Instance;
}

export interface ResourceOptions {
  /** Put on all three objects; omitted when undefined. */
  readonly namespace?: string | undefined;
  /** The Instance name (`--instance`); default `<name>-instance`. */
  readonly instanceName?: string | undefined;
  /** The Instance's `spec.parameters` (the CLI's map); omitted when undefined. */
  readonly parameters?: Readonly<Record<string, string>> | undefined;
  /** Build the objects of an operator.yaml without `operatorVersion` (for listing only). */
  readonly allowMissingOperatorVersion?: boolean | undefined;
}

/** The OperatorVersion name KUDO's CLI gives: `<operator>-<appVersion>-<version>` (appVersion optional). */
export function operatorVersionName(
  operator: string,
  version: string,
  appVersion?: string,
): string {
  return appVersion ? `${operator}-${appVersion}-${version}` : `${operator}-${version}`;
}

/** The Instance name install uses without `--instance`. */
export function defaultInstanceName(operator: string): string {
  return `${operator}-instance`;
}

/**
 * The default KUDO's CLI stored for an array or map parameter without one: it wrote every
 * array/map default as YAML (sigs.k8s.io/yaml), and the YAML of nothing is `null` and a line
 * break. Such a parameter thus never counts as required without a default, and `package list
 * parameters` shows `null`.
 */
const NIL_COLLECTION_DEFAULT = 'null\n';

/** A package parameter as the OperatorVersion stores it (`type` → `value-type`, UI fields dropped). */
export function toApiParameter(p: PackageParameter): Parameter {
  const out: Parameter = { name: p.name };
  if (p.displayName !== undefined) out.displayName = p.displayName;
  if (p.description !== undefined) out.description = p.description;
  out.required = p.required;
  if (p.default !== undefined) out.default = p.default;
  else if (p.type === 'array' || p.type === 'map') out.default = NIL_COLLECTION_DEFAULT;
  if (p.trigger !== undefined) out.trigger = p.trigger;
  if (p.type !== undefined) out['value-type'] = p.type as ParameterValueType;
  out.immutable = p.immutable;
  if (p.enum !== undefined) out.enum = [...p.enum];
  return out;
}

function set<T extends object, K extends keyof T>(
  target: T,
  key: K,
  value: T[K] | undefined,
): void {
  if (value !== undefined && value !== '') target[key] = value;
}

export function packageResources(
  pkg: PackageDefinition,
  options: ResourceOptions = {},
): PackageResources {
  const op = pkg.operator;
  if (!op.name) {
    throw new PackageReadError(`operator.yaml in ${pkg.source} has no name; add name: <operator>`, {
      source: pkg.source,
    });
  }
  if (!op.operatorVersion && !options.allowMissingOperatorVersion) {
    throw new PackageReadError(
      `operator.yaml in ${pkg.source} has no operatorVersion; add operatorVersion: <semver>`,
      { source: pkg.source, stage: 'resources' },
    );
  }
  const ns = options.namespace !== undefined ? { namespace: options.namespace } : {};
  const ovName = operatorVersionName(op.name, op.operatorVersion, op.appVersion);

  const operator: Operator = {
    apiVersion: KUDO_API_VERSION,
    kind: 'Operator',
    metadata: { name: op.name, ...ns },
    spec: {},
  };
  const spec = operator.spec!;
  set(spec, 'description', op.description);
  set(spec, 'kudoVersion', op.kudoVersion);
  set(spec, 'kubernetesVersion', op.kubernetesVersion);
  if (op.maintainers.length > 0) spec.maintainers = op.maintainers.map((m) => ({ ...m }));
  set(spec, 'url', op.url);
  set(spec, 'namespaceManifest', op.namespaceManifest);

  const operatorVersion: OperatorVersion = {
    apiVersion: KUDO_API_VERSION,
    kind: 'OperatorVersion',
    metadata: { name: ovName, ...ns },
    spec: {
      operator: { name: op.name, kind: 'Operator' },
      version: op.operatorVersion,
      ...(op.appVersion ? { appVersion: op.appVersion } : {}),
      templates: { ...pkg.templates },
      tasks: structuredClone([...op.tasks]),
      parameters: pkg.params.parameters.map(toApiParameter),
      plans: structuredClone({ ...op.plans }),
    },
  };

  const instance: Instance = {
    apiVersion: KUDO_API_VERSION,
    kind: 'Instance',
    metadata: {
      name: options.instanceName || defaultInstanceName(op.name),
      ...ns,
      labels: { [OPERATOR_LABEL]: op.name },
    },
    spec: {
      operatorVersion: { name: ovName },
      ...(options.parameters !== undefined ? { parameters: { ...options.parameters } } : {}),
    },
  };
  return { operator, operatorVersion, instance };
}
