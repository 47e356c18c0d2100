/**
 * `install --in-cluster`: packages resolved from the OperatorVersions already installed in the
 * namespace instead of folders, URLs or a repository (dependencies too).
 */
import type { Operator, OperatorVersion } from '../kudo/api/index.ts';
import {
  PackageResolveError,
  compareLenientVersions,
  defaultInstanceName,
  parseLenientVersion,
  type PackageResolver,
  type ResolvedPackage,
} from '../kudo/package/index.ts';
import type { KudoApi } from './kudo-api.ts';

function newestFirst(a: OperatorVersion, b: OperatorVersion): number {
  const va = parseLenientVersion(a.spec?.version ?? '');
  const vb = parseLenientVersion(b.spec?.version ?? '');
  if (va && vb) return compareLenientVersions(vb, va);
  return va ? -1 : vb ? 1 : 0;
}

export class InClusterResolver implements PackageResolver {
  constructor(
    private readonly api: KudoApi,
    private readonly namespace: string,
  ) {}

  async resolve(
    name: string,
    appVersion = '',
    operatorVersion = '',
    _signal?: AbortSignal,
  ): Promise<ResolvedPackage> {
    const candidates = (await this.api.list<OperatorVersion>('operatorversions', this.namespace))
      .filter((ov) => ov.spec?.operator?.name === name)
      .filter((ov) => !appVersion || ov.spec?.appVersion === appVersion)
      .filter((ov) => !operatorVersion || ov.spec?.version === operatorVersion)
      .sort(newestFirst);
    const ov = candidates[0];
    if (!ov) {
      throw new PackageResolveError(
        `no OperatorVersion of operator ${name}${operatorVersion ? ` version ${operatorVersion}` : ''}${appVersion ? ` app version ${appVersion}` : ''} is installed in namespace ${this.namespace}`,
        { source: name },
      );
    }
    const operator: Operator = (await this.api.getOperator(this.namespace, name)) ?? {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'Operator',
      metadata: { name, namespace: this.namespace },
    };
    const copy = structuredClone(ov);
    copy.metadata = { name: ov.metadata.name ?? '', namespace: this.namespace };
    return {
      resources: {
        operator: {
          apiVersion: 'kudo.dev/v1beta1',
          kind: 'Operator',
          metadata: { name },
          spec: operator.spec ?? {},
        },
        operatorVersion: { ...copy, apiVersion: 'kudo.dev/v1beta1', kind: 'OperatorVersion' },
        instance: {
          apiVersion: 'kudo.dev/v1beta1',
          kind: 'Instance',
          metadata: { name: defaultInstanceName(name), labels: { 'kudo.dev/operator': name } },
          spec: { operatorVersion: { name: ov.metadata.name ?? '' } },
        },
      },
      origin: {
        kind: 'other',
        description: `operatorversion ${this.namespace}/${ov.metadata.name ?? ''}`,
      },
      dependencies: this,
    };
  }
}
