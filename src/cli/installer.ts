/**
 * What install and upgrade share: resolving the package argument and its KudoOperator
 * dependencies completely before anything is written, checks against the cluster, and the
 * create-if-absent rule for Operators and OperatorVersions (KUDO's install steps 2, 5, 7, 8).
 */
import type { OperatorVersion } from '../kudo/api/index.ts';
import {
  PackageError,
  packageResolver,
  parseLenientVersion,
  resolveDependencies,
  type RepositoryConfig,
  type ResolvedDependencies,
  type ResolvedPackage,
} from '../kudo/package/index.ts';
import { CliError } from './errors.ts';
import type { Terminal } from './io.ts';
import { InClusterResolver } from './in-cluster.ts';
import { apiMessage, type KudoApi } from './kudo-api.ts';

export interface ResolveRequest {
  readonly name: string;
  readonly appVersion?: string;
  readonly operatorVersion?: string;
  readonly cwd: string;
  readonly namespace: string;
  /** Resolve from the OperatorVersions in the namespace (install --in-cluster). */
  readonly inCluster?: boolean;
  /** The repository for bare names, asked only when a name goes to a repository. */
  readonly repository: () => Promise<RepositoryConfig>;
  readonly signal?: AbortSignal;
  /** Resolve KudoOperator dependencies too (default true; `package list` does not). */
  readonly dependencies?: boolean;
}

/** The package and its dependencies, every object namespaced; fails before any write. */
export async function resolvePackage(
  api: KudoApi | undefined,
  request: ResolveRequest,
): Promise<ResolvedDependencies> {
  const resolver =
    request.inCluster && api
      ? new InClusterResolver(api, request.namespace)
      : packageResolver({ cwd: request.cwd, repository: request.repository });
  let resolved: ResolvedDependencies;
  try {
    const root = await resolver.resolve(
      request.name,
      request.appVersion ?? '',
      request.operatorVersion ?? '',
      request.signal,
    );
    resolved =
      request.dependencies === false
        ? { root, dependencies: [], creationOrder: [root] }
        : await resolveDependencies(root, request.signal);
  } catch (err) {
    if (err instanceof PackageError) {
      throw new CliError(
        `failed to resolve operator package for: ${request.name}: ${err.message}`,
        {
          cause: err,
        },
      );
    }
    throw err;
  }
  for (const pkg of resolved.creationOrder) {
    pkg.resources.operator.metadata.namespace = request.namespace;
    pkg.resources.operatorVersion.metadata.namespace = request.namespace;
    pkg.resources.instance.metadata.namespace = request.namespace;
  }
  return resolved;
}

/** `kubernetesVersion` must parse, and its major.minor must not exceed the server's. */
export async function checkKubernetesVersion(api: KudoApi, pkg: ResolvedPackage): Promise<void> {
  const wanted = pkg.resources.operator.spec?.kubernetesVersion ?? '';
  const version = parseLenientVersion(wanted);
  if (!version) throw new CliError(`unable to parse operators kubernetes version: ${wanted}`);
  const server = await api.serverVersion();
  const actual = parseLenientVersion(server.gitVersion.replace(/^v/, '').replace(/\+.*$/, ''));
  if (!actual) return;
  if (
    version.major > actual.major ||
    (version.major === actual.major && version.minor > actual.minor)
  ) {
    throw new CliError(
      `expected kubernetes version of ${wanted} is not supported with version: ${server.gitVersion}`,
    );
  }
}

/** Required parameters without a default that the CLI map does not set. */
export function missingRequiredParameters(
  ov: OperatorVersion,
  values: Readonly<Record<string, string>>,
): string[] {
  return (ov.spec?.parameters ?? [])
    .filter((p) => p.required === true && (p.default === undefined || p.default === null))
    .filter((p) => !(p.name in values))
    .map((p) => p.name);
}

/** The OperatorVersion among `versions` of the same operator and version (KUDO's test). */
function sameVersion(
  versions: readonly OperatorVersion[],
  wanted: OperatorVersion,
): OperatorVersion | undefined {
  return versions.find(
    (ov) =>
      ov.spec?.operator?.name === wanted.spec?.operator?.name &&
      ov.spec?.version === wanted.spec?.version,
  );
}

/**
 * The name of the root package's OperatorVersion in the namespace when installOperators would
 * write nothing for `packages` (every Operator and OperatorVersion is there), else undefined.
 */
export async function installedRootVersion(
  api: KudoApi,
  packages: readonly ResolvedPackage[],
  namespace: string,
): Promise<string | undefined> {
  const versions = await api.list<OperatorVersion>('operatorversions', namespace);
  let root: OperatorVersion | undefined;
  for (const pkg of packages) {
    const { operator, operatorVersion } = pkg.resources;
    if (!(await api.getOperator(namespace, operator.metadata.name ?? ''))) return undefined;
    root = sameVersion(versions, operatorVersion);
    if (!root) return undefined;
  }
  return root?.metadata.name;
}

/**
 * Creates the Operator (if no GET finds it) and the OperatorVersion (unless the namespace holds
 * one of the same operator and version: content is not compared, as in KUDO) of each package,
 * dependencies first.
 */
export async function installOperators(
  api: KudoApi,
  packages: readonly ResolvedPackage[],
  namespace: string,
  term: Terminal,
): Promise<void> {
  const versions = await api.list<OperatorVersion>('operatorversions', namespace);
  for (const pkg of packages) {
    const { operator, operatorVersion } = pkg.resources;
    const opName = operator.metadata.name ?? '';
    try {
      if (!(await api.getOperator(namespace, opName))) {
        await api.create('operators', namespace, operator);
        term.out(`operator ${namespace}/${opName} created`);
      }
      const existing = sameVersion(versions, operatorVersion);
      if (existing) {
        term.out(`operatorversion ${namespace}/${existing.metadata.name ?? ''} already installed`);
        continue;
      }
      await api.create('operatorversions', namespace, operatorVersion);
      versions.push(operatorVersion);
      term.out(`operatorversion ${namespace}/${operatorVersion.metadata.name ?? ''} created`);
    } catch (err) {
      if (err instanceof CliError) throw err;
      throw new CliError(`failed to install package ${opName}: ${apiMessage(err)}`, { cause: err });
    }
  }
}
