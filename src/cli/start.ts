import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  KubeClient,
  KubeConfigError,
  LiteKubeConfig,
  loadKubeConfig as loadApiConfig,
  type KubeConfig,
} from '../kube/index.ts';
import {
  KUBERNETES_VERSION,
  startLocalCluster,
  type LocalCluster,
  type NodeKind,
} from '../localcluster/index.ts';
import { repositoryRoot } from '../localcluster/index.ts';
import { chooseClusterSource, type ClusterSource } from './cluster-source.ts';
import { runPlanwright, type EngineOptions, type RunPlanwrightOptions } from './run-planwright.ts';
import type { LeaseTimings, RenderLimits } from './start-tuning.ts';
import type { WatchNamespaces } from './watch-namespaces.ts';
import type { LineWriter } from './io.ts';

/** Options of `planwright start` (npm start). */
export interface StartOptions {
  /** Explicit kubeconfig path (--kubeconfig); otherwise KUBECONFIG, ~/.kube/config, in-cluster. */
  readonly kubeconfig?: string;
  /** Always run against the embedded local control plane (--local). */
  readonly local: boolean;
  /** --bare: the local control plane without workloads (no controllers, scheduler, nodes). */
  readonly bare?: boolean;
  /** Nodes of the local control plane (--nodes); default mixed when real nodes are possible. */
  readonly nodeKind?: NodeKind;
  /** HTTPS port of the webhook server (--webhook-port); default 9443, 0 picks a free one. */
  readonly webhookPort?: number;
  /** With a kubeconfig: also install the CRDs and register the webhook at 127.0.0.1 (--install). */
  readonly install?: boolean;
  /** --no-leader-election: run the controllers without a Lease (a single replica). */
  readonly noLeaderElection?: boolean;
  /** Namespace of the leader Lease (--namespace); default the in-cluster namespace or `default`. */
  readonly namespace?: string;
  /** Files mode (--cert-dir): serve tls.crt/tls.key from this folder, e.g. cert-manager's Secret. */
  readonly certDir?: string;
  /** What the engine does beyond the defaults (--pipe-waiter-image, --step-timeout). */
  readonly engine?: EngineOptions;
  /** --strict-package-admission: refuse OperatorVersions on any `package verify` error. */
  readonly strictPackageAdmission?: boolean;
  /** --watch-namespaces: serve only these namespaces. */
  readonly watchNamespaces?: WatchNamespaces;
  /** --leader-elect-lease-duration, -renew-deadline, -retry-period (default: client-go's). */
  readonly leaseTimings?: LeaseTimings;
  /** --render-workers, --render-timeout, --render-worker-heap. */
  readonly render?: RenderLimits;
  /** --shards: the Instances are split into this many shards, shared out over the replicas. */
  readonly shards?: number;
}

export class ClusterConnectionError extends Error {
  override readonly name = 'ClusterConnectionError';
}

const VERSION_TIMEOUT_MS = 10_000;

/**
 * `npm start`: with a cluster configured, checks the connection, reports the server version
 * and runs Planwright against it; without one, starts the embedded local control plane,
 * installs the CRDs and the webhook registration, and runs Planwright against it, until
 * `signal` aborts. Resolves with the process exit code.
 */
export async function runStart(
  options: StartOptions,
  io: LineWriter,
  signal: AbortSignal,
): Promise<number> {
  const source = chooseClusterSource(options);
  if (source.kind === 'local') return runLocal(options, io, signal);
  const kc = loadKubeConfig(source);
  const version = await serverVersion(kc, describeSource(source, kc));
  io.out(`Connected to ${kc.getCurrentCluster()?.server ?? '?'} (${describeSource(source, kc)}).`);
  io.out(`Server version: ${version}`);
  return runPlanwright(
    {
      kubeConfig: kc,
      inCluster: source.kind === 'in-cluster',
      install: options.install ?? false,
      webhookPort: options.webhookPort ?? 9443,
      leaderElection: !(options.noLeaderElection ?? false),
      ...(options.namespace ? { namespace: options.namespace } : {}),
      ...(options.certDir ? { certDir: options.certDir } : {}),
      ...(options.engine ? { engine: options.engine } : {}),
      ...admissionOptions(options),
    },
    io,
    signal,
  );
}

/** What start passes through to the manager unchanged, in both modes. */
function admissionOptions(
  options: StartOptions,
): Pick<
  RunPlanwrightOptions,
  'strictPackageAdmission' | 'watchNamespaces' | 'leaseTimings' | 'render' | 'shards'
> {
  return {
    ...(options.shards !== undefined ? { shards: options.shards } : {}),
    ...(options.strictPackageAdmission ? { strictPackageAdmission: true } : {}),
    ...(options.watchNamespaces ? { watchNamespaces: options.watchNamespaces } : {}),
    ...(options.leaseTimings ? { leaseTimings: options.leaseTimings } : {}),
    ...(options.render ? { render: options.render } : {}),
  };
}

/**
 * Parsing and validation are src/kube's (shared with the manager); this adds where the
 * configuration came from and the way out, for a person at the terminal.
 */
function loadKubeConfig(source: Exclude<ClusterSource, { kind: 'local' }>): KubeConfig {
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

function describeSource(source: ClusterSource, kc: KubeConfig): string {
  if (source.kind === 'kubeconfig') {
    return `context "${kc.getCurrentContext()}" of ${source.path}, from ${source.origin}`;
  }
  return source.kind === 'in-cluster' ? 'in-cluster service account' : 'local control plane';
}

async function serverVersion(kc: KubeConfig, where: string): Promise<string> {
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

/** What the nodes of a local cluster are, one line per kind. */
function describeNodes(cluster: LocalCluster): string[] {
  if (cluster.mode === 'bare') {
    return ['  mode:        bare (no controllers, scheduler or nodes: pods never run)'];
  }
  const real = cluster.realNodes?.length ? cluster.nodes.filter((n) => !n.startsWith('kwok-')) : [];
  const kwok = cluster.nodes.filter((n) => !real.includes(n));
  const lines: string[] = [];
  if (real.length > 0) {
    lines.push(
      `  nodes:       ${real.join(', ')} (real: kubelet + containerd; images from the local ` +
        `registry ${cluster.imageRegistry ?? ''}: busybox, alpine, nginx)`,
    );
  }
  if (kwok.length > 0) {
    lines.push(
      `  ${real.length > 0 ? '            ' : 'nodes:      '} ${kwok.join(', ')} (simulated by kwok: ` +
        (real.length > 0
          ? 'pods whose images the local registry lacks; no containers)'
          : 'pods run, no containers)'),
    );
  }
  return lines;
}

async function runLocal(
  options: StartOptions,
  io: LineWriter,
  signal: AbortSignal,
): Promise<number> {
  const mode = options.bare ? 'bare' : 'workloads';
  io.err(`Starting the embedded local control plane (${mode}).`);
  const started = Date.now();
  const cluster = await startLocalCluster({
    mode,
    nodeKind: options.nodeKind ?? 'mixed',
    onProgress: (line) => io.err(`  ${line}`),
    signal,
  });
  try {
    io.out('');
    io.out(
      `Planwright local control plane is up (${((Date.now() - started) / 1000).toFixed(1)} s).`,
    );
    io.out(`  API server:  ${cluster.server} (Kubernetes ${KUBERNETES_VERSION})`);
    io.out(`  kubeconfig:  ${cluster.kubeconfigPath}`);
    for (const line of describeNodes(cluster)) io.out(line);
    const examples = join(repositoryRoot(), 'examples');
    io.out(
      'Try it from another terminal (`npm link` once puts planwright and kubectl-kudo on PATH):',
    );
    io.out(`  export KUBECONFIG=${cluster.kubeconfigPath}`);
    io.out(
      `  export PATH="${dirname(cluster.binaries.kubectl)}:$PATH"   # kubectl ${KUBERNETES_VERSION}`,
    );
    // hello-web's Deployment needs pods to run; the bare control plane has no nodes.
    const example = mode === 'workloads' ? 'hello-web' : 'hello-config';
    io.out('Install the example package and watch its deploy plan reach COMPLETE:');
    io.out(`  kubectl kudo install ${join(examples, example)} --instance hello --wait`);
    io.out('  kubectl kudo plan status --instance hello');
    if (mode === 'workloads') {
      io.out('  kubectl port-forward service/hello 8080:80   # the page: http://localhost:8080');
    }
    io.out('  kubectl kudo update --instance hello -p message=hi --wait');
    io.out(`  kubectl kudo get all`);
    io.out('Press Ctrl-C to stop; the control plane and its files are removed.');
    const kc = new LiteKubeConfig();
    kc.loadFromFile(cluster.kubeconfigPath);
    // Ctrl-C while Planwright is still starting is a normal stop, not a failure.
    const code = await runPlanwright(
      {
        kubeConfig: kc,
        inCluster: false,
        install: true,
        webhookPort: options.webhookPort ?? 9443,
        leaderElection: !(options.noLeaderElection ?? false),
        ...(options.namespace ? { namespace: options.namespace } : {}),
        ...(options.engine ? { engine: options.engine } : {}),
        ...admissionOptions(options),
      },
      io,
      signal,
    ).catch((err: unknown) => {
      if (signal.aborted) return 0;
      throw err;
    });
    io.err('Stopping the local control plane…');
    return code;
  } finally {
    await cluster.stop();
    io.err('Stopped.');
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
