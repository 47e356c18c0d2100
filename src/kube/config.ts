/**
 * Where the API credentials come from. Standalone mode reads a kubeconfig (`--kubeconfig`,
 * then `KUBECONFIG`, then `~/.kube/config`); in a pod, the service-account files. Problems are
 * reported naming what is missing and where it was looked for.
 *
 * See examples/api/kube.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { LiteKubeConfig, type KubeConfig } from './kubeconfig.ts';
import { KubeConfigError } from './errors.ts';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * Environment variable: a folder that stands for `/` in front of {@link SERVICE_ACCOUNT_DIR}
 * (token, ca.crt, namespace). For running the manager outside a pod with a pod's identity —
 * the in-cluster tests run the Deployment's replicas as local processes this way.
 */
export const SERVICE_ACCOUNT_ROOT_ENV = 'PLANWRIGHT_SERVICE_ACCOUNT_ROOT';

/** Where the service-account files are: {@link SERVICE_ACCOUNT_DIR}, under the root override if set. */
export function serviceAccountDir(env: NodeJS.ProcessEnv = process.env): string {
  return `${env[SERVICE_ACCOUNT_ROOT_ENV] ?? ''}${SERVICE_ACCOUNT_DIR}`;
}

export interface LoadKubeConfigOptions {
  /** Explicit kubeconfig path (the `--kubeconfig` flag); wins over everything else. */
  readonly kubeconfig?: string;
  /** Context to use instead of the current one. */
  readonly context?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly home?: string;
  /**
   * Prefix before /var/run/secrets/… for the service-account files (tests override it);
   * default $PLANWRIGHT_SERVICE_ACCOUNT_ROOT, else none.
   */
  readonly serviceAccountRoot?: string;
}

export interface LoadedKubeConfig {
  readonly kubeConfig: KubeConfig;
  /** A path, or `in-cluster`. */
  readonly source: string;
  readonly mode: 'standalone' | 'in-cluster';
}

export function loadKubeConfig(options: LoadKubeConfigOptions = {}): LoadedKubeConfig {
  const env = options.env ?? process.env;
  const fromEnv = env.KUBECONFIG?.split(':').filter((p) => p !== '');
  const home = join(options.home ?? homedir(), '.kube', 'config');
  const candidates: string[] = options.kubeconfig
    ? [options.kubeconfig]
    : fromEnv && fromEnv.length > 0
      ? fromEnv
      : existsSync(home)
        ? [home]
        : [];
  if (options.kubeconfig && !existsSync(options.kubeconfig)) {
    throw new KubeConfigError(
      'the kubeconfig file given with --kubeconfig does not exist',
      options.kubeconfig,
    );
  }
  if (candidates.length > 0) {
    const path = candidates.find((p) => existsSync(p));
    if (!path)
      throw new KubeConfigError('no file named in KUBECONFIG exists', candidates.join(':'));
    const kc = new LiteKubeConfig();
    try {
      kc.loadFromFile(path);
    } catch (err) {
      throw new KubeConfigError(`cannot parse kubeconfig: ${(err as Error).message}`, path);
    }
    if (options.context) {
      if (!kc.getContextObject(options.context)) {
        throw new KubeConfigError(`context "${options.context}" is not defined`, path);
      }
      kc.setCurrentContext(options.context);
    }
    validate(kc, path);
    return { kubeConfig: kc, source: path, mode: 'standalone' };
  }
  return loadInCluster(env, options.serviceAccountRoot ?? env[SERVICE_ACCOUNT_ROOT_ENV] ?? '');
}

// The API server's address from KUBERNETES_SERVICE_* of `env`, the files under `root`.
function loadInCluster(env: NodeJS.ProcessEnv, root: string): LoadedKubeConfig {
  const source = 'in-cluster';
  const dir = `${root}${SERVICE_ACCOUNT_DIR}`;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new KubeConfigError(
      'no kubeconfig found (--kubeconfig, KUBECONFIG, ~/.kube/config) and not running in a pod: ' +
        'KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT are not set',
      source,
    );
  }
  for (const file of ['token', 'ca.crt']) {
    if (!existsSync(join(dir, file))) {
      throw new KubeConfigError(
        `service-account file ${join(dir, file)} is missing (is automountServiceAccountToken off?)`,
        source,
      );
    }
  }
  const kc = new LiteKubeConfig();
  kc.loadFromCluster(root, env);
  validate(kc, source);
  return { kubeConfig: kc, source, mode: 'in-cluster' };
}

/** In-cluster: the namespace this pod runs in, if known. */
export function inClusterNamespace(dir: string = serviceAccountDir()): string | undefined {
  const file = join(dir, 'namespace');
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8').trim() || undefined;
}

function validate(kc: KubeConfig, source: string): void {
  const cluster = kc.getCurrentCluster();
  if (!kc.getCurrentContext()) throw new KubeConfigError('no current-context is set', source);
  if (!cluster)
    throw new KubeConfigError(`context "${kc.getCurrentContext()}" names no known cluster`, source);
  if (!cluster.server)
    throw new KubeConfigError(`cluster "${cluster.name}" has no server URL`, source);
  try {
    new URL(cluster.server);
  } catch {
    throw new KubeConfigError(
      `cluster "${cluster.name}" has an invalid server URL "${cluster.server}"`,
      source,
    );
  }
  if (!kc.getCurrentUser())
    throw new KubeConfigError(`context "${kc.getCurrentContext()}" names no known user`, source);
}
