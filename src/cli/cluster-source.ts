/**
 * Which cluster a command talks to (`planwright start`): the source chosen before anything is
 * loaded, then the connection checked, with a message for a person at the terminal when it
 * fails — or the embedded local control plane, for as long as the run lasts.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  KubeClient,
  KubeConfigError,
  loadKubeConfig as loadApiConfig,
  serviceAccountDir,
  type KubeConfig,
} from '../kube/index.ts';
import type { NodeKind } from '../localcluster/index.ts';
import type { LineWriter } from './io.ts';

/** Where the cluster connection comes from, decided before anything is loaded. */
export type ClusterSource =
  | { readonly kind: 'kubeconfig'; readonly path: string; readonly origin: string }
  | { readonly kind: 'in-cluster' }
  | { readonly kind: 'local' };

/**
 * The usual precedence of Kubernetes clients: an explicit --kubeconfig, then $KUBECONFIG,
 * then ~/.kube/config, then the in-cluster service account; with none of them, the embedded
 * local control plane. A kubeconfig that is configured but missing is an error, not a reason
 * to fall back silently to another cluster.
 */
export function chooseClusterSource(
  options: { kubeconfig?: string; local: boolean },
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): ClusterSource {
  if (options.local) return { kind: 'local' };
  if (options.kubeconfig) {
    return { kind: 'kubeconfig', path: options.kubeconfig, origin: '--kubeconfig' };
  }
  const fromEnv = env['KUBECONFIG']?.split(':').find((p) => p.length > 0);
  if (fromEnv) return { kind: 'kubeconfig', path: fromEnv, origin: 'KUBECONFIG' };
  const defaultPath = join(home, '.kube', 'config');
  if (existsSync(defaultPath))
    return { kind: 'kubeconfig', path: defaultPath, origin: '~/.kube/config' };
  if (env['KUBERNETES_SERVICE_HOST'] && existsSync(join(serviceAccountDir(env), 'token')))
    return { kind: 'in-cluster' };
  return { kind: 'local' };
}

/** The cluster start runs against, and whether it registers the webhooks there itself. */
export interface Connection {
  readonly kubeConfig: KubeConfig;
  readonly inCluster: boolean;
  /** The CRDs and the webhook registration at https://127.0.0.1 are this process's (--install, local). */
  readonly install: boolean;
}

/** In a cluster behind the planwright-webhook Service: not registered here by this process. */
export function behindService(connection: Connection): boolean {
  return connection.inCluster && !connection.install;
}

/**
 * Runs `run` against the cluster the options choose ({@link chooseClusterSource}): a
 * kubeconfig's or in-cluster, checked and reported, or the embedded local control plane,
 * started for the run and removed after it.
 */
export async function withCluster(
  options: {
    readonly kubeconfig?: string;
    readonly local: boolean;
    readonly bare: boolean;
    readonly nodes?: NodeKind;
    readonly install: boolean;
  },
  io: LineWriter,
  signal: AbortSignal,
  run: (connection: Connection) => Promise<number>,
): Promise<number> {
  const source = chooseClusterSource(options);
  if (source.kind === 'local') {
    // Loaded only here: a replica given a cluster never holds the local cluster's code.
    const { onLocalCluster } = await import('./local-start.ts');
    return onLocalCluster(options, io, signal, (kubeConfig) =>
      run({ kubeConfig, inCluster: false, install: true }),
    );
  }
  const kubeConfig = loadKubeConfig(source);
  const version = await serverVersion(kubeConfig, describeSource(source, kubeConfig));
  const server = kubeConfig.getCurrentCluster()?.server ?? '?';
  io.out(`Connected to ${server} (${describeSource(source, kubeConfig)}).`);
  io.out(`Server version: ${version}`);
  return run({ kubeConfig, inCluster: source.kind === 'in-cluster', install: options.install });
}

export class ClusterConnectionError extends Error {
  override readonly name = 'ClusterConnectionError';
}

const VERSION_TIMEOUT_MS = 10_000;

/**
 * Parsing and validation are src/kube's (shared with the manager); this adds where the
 * configuration came from and the way out, for a person at the terminal.
 */
export function loadKubeConfig(source: Exclude<ClusterSource, { kind: 'local' }>): KubeConfig {
  if (source.kind === 'kubeconfig' && !existsSync(source.path)) {
    throw new ClusterConnectionError(
      `kubeconfig ${source.path} (from ${source.origin}) does not exist. ` +
        'Point --kubeconfig or KUBECONFIG at an existing file, or run `npm start -- --local` ' +
        'for the embedded control plane.',
    );
  }
  try {
    return loadApiConfig(source.kind === 'kubeconfig' ? { kubeconfig: source.path } : {})
      .kubeConfig;
  } catch (err) {
    if (!(err instanceof KubeConfigError)) throw err;
    const origin = source.kind === 'kubeconfig' ? ` from ${source.origin}` : '';
    throw new ClusterConnectionError(
      `${err.message}${origin}. Fix the configuration (e.g. \`kubectl config use-context ` +
        '<name>`), or run `npm start -- --local` for the embedded control plane.',
    );
  }
}

export function describeSource(source: ClusterSource, kc: KubeConfig): string {
  if (source.kind === 'kubeconfig') {
    return `context "${kc.getCurrentContext()}" of ${source.path}, from ${source.origin}`;
  }
  return source.kind === 'in-cluster' ? 'in-cluster service account' : 'local control plane';
}

export async function serverVersion(kc: KubeConfig, where: string): Promise<string> {
  const client = new KubeClient(kc);
  try {
    const info = await client.request<{ gitVersion?: unknown }>({
      path: '/version',
      timeoutMs: VERSION_TIMEOUT_MS,
    });
    return String(info.gitVersion);
  } catch (err) {
    throw new ClusterConnectionError(
      `cannot reach the Kubernetes API at ${kc.getCurrentCluster()?.server ?? '?'} (${where}): ` +
        `${describeError(err)}. Check that the cluster is up and the credentials are valid, ` +
        'or run `npm start -- --local` for the embedded control plane.',
    );
  } finally {
    client.close();
  }
}

/** The reason (ECONNREFUSED, a TLS error…) may hide in an error's `cause`. */
function describeError(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error && parts.length < 4; e = e.cause) {
    const code = (e as NodeJS.ErrnoException).code;
    parts.push(code && !e.message.includes(code) ? `${e.message} (${code})` : e.message);
  }
  return parts.length > 0 ? parts.join(': ') : String(err);
}
