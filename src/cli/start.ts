/**
 * `planwright start` from its options to a running App: the cluster (a kubeconfig, in-cluster,
 * or the embedded local control plane), the webhook's certificate and the App's settings, made
 * here once from the options as the flags gave them (commands/start.ts) — and, with --install
 * or locally, the CRDs and the webhook registration at https://127.0.0.1:<port> with a
 * development certificate. In-cluster, the certificate is self-managed in a Secret and injected
 * into both webhook configurations — or, with `certDir` (files mode, the cert-manager variant),
 * read from tls.crt/tls.key there and swapped in place when the files change.
 */
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { App, type AppSettings, type RenderSettings } from '../app.ts';
import { KubeClient, inClusterNamespace, type KubeConfig } from '../kube/index.ts';
import type { PackagePolicy } from '../kudo/admission/index.ts';
import type { InstanceControllerSettings } from '../kudo/controller/index.ts';
import type { TenancyPolicy } from '../kudo/tasks/index.ts';
import type { NodeKind } from '../localcluster/index.ts';
import { collectProcessMetrics } from '../runtime/index.ts';
import {
  FileCertificateSource,
  KubeMetricsAuthorizer,
  SelfManagedTls,
  StaticCertificateSource,
  type CertificateSource,
} from '../server/index.ts';
import {
  chooseClusterSource,
  describeSource,
  loadKubeConfig,
  serverVersion,
} from './cluster-source.ts';
import { installCrds, registerLocalWebhooks } from './install.ts';
import { onLocalCluster } from './local-start.ts';
import type { LineWriter } from './io.ts';
import { managerLogger } from './logger.ts';
import { RegistrationGate } from './registration-gate.ts';
import { refuseAnsweringInstallation, type Installation } from './registration.ts';
import { watchesNamespace, type WatchNamespaces } from './watch-namespaces.ts';
import { waitForWebhooks } from './webhook-probe.ts';

/**
 * Options of `planwright start` (npm start): made once from the flags, read as they are down
 * to the App's settings ({@link appSettings}); nothing is copied into another options type.
 */
export interface StartOptions {
  /** Explicit kubeconfig path (--kubeconfig); otherwise KUBECONFIG, ~/.kube/config, in-cluster. */
  readonly kubeconfig?: string;
  /** Always run against the embedded local control plane (--local, --bare). */
  readonly local: boolean;
  /** --bare: the local control plane without workloads (no controllers, scheduler, nodes). */
  readonly bare: boolean;
  /** Nodes of the local control plane (--nodes); default mixed when real nodes are possible. */
  readonly nodeKind?: NodeKind;
  /** With a kubeconfig: also install the CRDs and register the webhooks at 127.0.0.1 (--install). */
  readonly install: boolean;
  /** HTTPS port of the webhook server (--webhook-port; 0 picks a free one). */
  readonly webhookPort: number;
  /** False with --no-leader-election: the controllers run without a Lease (one replica). */
  readonly leaderElection: boolean;
  /** --leader-elect-lease-duration, -renew-deadline, -retry-period (default: client-go's). */
  readonly leaseTimings?: LeaseTimings;
  /** Namespace of the Leases (--namespace); default the in-cluster namespace or `default`. */
  readonly namespace?: string;
  /** Files mode (--cert-dir): serve tls.crt/tls.key from this folder, e.g. cert-manager's Secret. */
  readonly certDir?: string;
  /** --watch-namespaces: serve only these namespaces (the controller, the --install registration). */
  readonly watchNamespaces?: WatchNamespaces;
  /** --shards: the Instances are split into this many shards, shared out over the replicas. */
  readonly shards?: number;
  /** --strict-package-admission: `strict` refuses OperatorVersions on any `package verify` error. */
  readonly packagePolicy: PackagePolicy;
  /** The tenancy posture and its allowances (--tenancy, --allow-*; docs/security.md). */
  readonly tenancy?: TenancyPolicy;
  /** --render-workers, --render-timeout, --render-worker-heap. */
  readonly render?: RenderSettings;
  /** --pipe-waiter-image, --step-timeout, --allow-unsafe-kubeconfig, --allow-target-server. */
  readonly controller: Pick<
    InstanceControllerSettings,
    'pipeWaiterImage' | 'stepTimeoutMs' | 'remote'
  >;
}

/** The leader-election Lease's timings (the shard ring's Leases take them too). */
export interface LeaseTimings {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** The cluster start runs against, and whether it registers the webhooks there itself. */
interface Connection {
  readonly kubeConfig: KubeConfig;
  readonly inCluster: boolean;
  readonly install: boolean;
}

/** The configurations manifests/webhook/ registers (and the self-managed TLS injects). */
export const WEBHOOK_CONFIGURATION = 'planwright-instances';
export const VALIDATING_WEBHOOK_CONFIGURATION = 'planwright-validation';

/** How long `--install` waits for the API server to call the webhooks it just registered. */
const REGISTRATION_TIMEOUT_MS = 30_000;

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
  if (source.kind === 'local') {
    return onLocalCluster(options, io, signal, (kubeConfig) =>
      runPlanwright(options, { kubeConfig, inCluster: false, install: true }, io, signal),
    );
  }
  const kc = loadKubeConfig(source);
  const version = await serverVersion(kc, describeSource(source, kc));
  io.out(`Connected to ${kc.getCurrentCluster()?.server ?? '?'} (${describeSource(source, kc)}).`);
  io.out(`Server version: ${version}`);
  const inCluster = source.kind === 'in-cluster';
  return runPlanwright(
    options,
    { kubeConfig: kc, inCluster, install: options.install },
    io,
    signal,
  );
}

/** The webhook server's certificate, and the CA of a development one (to register with). */
function webhookTls(
  options: StartOptions,
  connection: Connection,
  namespace: string,
  logger: Logger,
): { readonly tls: CertificateSource; readonly caPem?: string } {
  if (options.certDir) {
    const directory = options.certDir;
    return {
      tls: new FileCertificateSource({ directory, logger: logger.child({ component: 'tls' }) }),
    };
  }
  if (connection.inCluster && !connection.install) {
    const tls = new SelfManagedTls({
      kubeConfig: connection.kubeConfig,
      logger: logger.child({ component: 'tls' }),
      namespace,
      secretName: 'planwright-webhook-tls',
      serviceName: 'planwright-webhook',
      webhookConfigurations: [
        { kind: 'mutating', name: WEBHOOK_CONFIGURATION },
        { kind: 'validating', name: VALIDATING_WEBHOOK_CONFIGURATION },
      ],
    });
    return { tls };
  }
  const loopback = StaticCertificateSource.forLoopback('planwright-local');
  return { tls: loopback.source, caPem: loopback.caPem };
}

/** What the App is made of: each value read from the options as it is. */
function appSettings(
  options: StartOptions,
  connection: Connection,
  parts: Pick<AppSettings, 'logger' | 'registry'> & {
    readonly namespace: string;
    readonly client: KubeClient;
    readonly tls: CertificateSource;
    readonly gate: RegistrationGate;
  },
): AppSettings {
  const { namespace, client, tls, gate } = parts;
  const watch = options.watchNamespaces;
  const served = connection.inCluster && !connection.install;
  return {
    kubeConfig: connection.kubeConfig,
    logger: parts.logger,
    registry: parts.registry,
    manager: {
      leaderElection: options.leaderElection
        ? { namespace, name: 'planwright-leader', ...options.leaseTimings }
        : false,
      // Namespaces named exactly are watched one by one: the manager then needs list/watch
      // there only (docs/namespaced-installation.md). A prefix needs the cluster-wide watch.
      namespaces: watch && watch.prefixes.length === 0 ? watch.names : undefined,
      sharding: { shards: options.shards ?? 1 },
      gate,
    },
    webhook: {
      port: options.webhookPort,
      host: connection.inCluster ? undefined : '127.0.0.1',
      tls,
      // In a cluster the port is reachable by every pod: /metrics asks the API server who
      // calls (TokenReview) and whether they may (SubjectAccessReview), as controller-runtime.
      metricsAuth: served ? new KubeMetricsAuthorizer({ client }) : undefined,
    },
    admission: {
      controllerUsers: [`system:serviceaccount:${namespace}:planwright`],
      packagePolicy: options.packagePolicy,
      tenancy: options.tenancy,
    },
    render: options.render,
    verifyEvents: watch ? { namespaces: (ns) => watchesNamespace(watch, ns) } : {},
    controller: {
      ...options.controller,
      tenancy: options.tenancy,
      filter: watch && ((i) => watchesNamespace(watch, i.metadata.namespace ?? '')),
    },
  };
}

/**
 * Runs Planwright (webhook server + the Instance controllers of the shards it holds) against
 * the connection's cluster until `signal` aborts.
 */
async function runPlanwright(
  options: StartOptions,
  connection: Connection,
  io: LineWriter,
  signal: AbortSignal,
): Promise<number> {
  const logger = managerLogger();
  const registry = new Registry();
  // prom-client's default metrics, the event loop measured at scrape time: nothing ticks.
  collectProcessMetrics(registry);
  // An empty --namespace means none, as it always has.
  const namespace = options.namespace || inClusterNamespace() || 'default';
  const { tls, caPem } = webhookTls(options, connection, namespace, logger);
  const client = new KubeClient(connection.kubeConfig);
  if (connection.install) await refuseAnsweringInstallation(client, namespace, signal);
  const lease = options.leaseTimings;
  // The App's port, for the gate: the App is made with the gate in its settings.
  let listening: Promise<number> = Promise.reject(new Error('the App is not built yet'));
  listening.catch(() => undefined);
  const gate = new RegistrationGate({
    client,
    logger: logger.child({ component: 'registration' }),
    // Asked when the manager first wants to run controllers: the App exists then.
    self: () => self(listening, connection, namespace),
    report: (line) => io.err(line),
    settleMs: lease?.leaseDurationMs ?? 15_000,
    retryPeriodMs: lease?.retryPeriodMs ?? 2_000,
    renewDeadlineMs: lease?.renewDeadlineMs ?? 10_000,
    registeredHere: connection.install,
  });
  const parts = { logger, registry, namespace, client, tls, gate };
  const app = new App(appSettings(options, connection, parts));
  listening = app.listening;
  try {
    return await serve(app, { options, connection, client, namespace, caPem, io, signal });
  } finally {
    client.close();
  }
}

/**
 * Runs the App: the CRDs go in first (--install), the registration at 127.0.0.1 once the port
 * is known; everything under one signal that Ctrl-C or a failed registration aborts.
 */
async function serve(
  app: App,
  run: {
    readonly options: StartOptions;
    readonly connection: Connection;
    readonly client: KubeClient;
    readonly namespace: string;
    readonly caPem: string | undefined;
    readonly io: LineWriter;
    readonly signal: AbortSignal;
  },
): Promise<number> {
  const { connection, client, io, signal } = run;
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  try {
    if (connection.install) {
      const crds = await installCrds(client, stop.signal);
      io.err(`Installed CRDs: ${crds.join(', ')}.`);
    }
    const running = app.start(stop.signal);
    const port = await app.listening.catch(() => undefined);
    if (port === undefined) return await running;
    io.err(
      `Webhook server listening on https://${connection.inCluster ? '0.0.0.0' : '127.0.0.1'}:${port}.`,
    );
    try {
      if (connection.install && run.caPem) await registerHere(run, port, run.caPem, stop.signal);
    } catch (err) {
      // Ctrl-C while registering or probing is a normal stop, as it is once running.
      if (signal.aborted) return await running;
      stop.abort(err);
      await running;
      throw err;
    }
    const shards = run.options.shards ?? 1;
    io.err(
      `Planwright is running (webhook on every replica; Instances in ${shards} ${shards === 1 ? 'shard' : 'shards'} shared out over the replicas). Ctrl-C stops it.`,
    );
    return await running;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Registers both webhook configurations at https://127.0.0.1:<port>, then waits until the API
 * server calls them: "running" means a kubectl apply now reaches this process (the API server
 * reloads a changed registration a moment after the write, and until then calls the previous
 * URL, a former run's port). A cluster that never answers is reported, not fatal.
 */
async function registerHere(
  run: Pick<Parameters<typeof serve>[1], 'client' | 'namespace' | 'options' | 'io'>,
  port: number,
  caPem: string,
  signal: AbortSignal,
): Promise<void> {
  const { client, namespace, io } = run;
  const baseUrl = `https://127.0.0.1:${port}`;
  const watch = run.options.watchNamespaces;
  const registered = await registerLocalWebhooks(client, {
    baseUrl,
    caPem,
    installation: namespace,
    watch,
  });
  for (const { kind, name } of registered) io.err(`Registered ${kind} ${name} → ${baseUrl}.`);
  const probe = await waitForWebhooks(
    client,
    { namespace, timeoutMs: REGISTRATION_TIMEOUT_MS },
    signal,
  );
  if (!probe.answered) {
    io.err(
      `Warning: the API server does not call this process's webhooks yet after ${REGISTRATION_TIMEOUT_MS / 1000} s (last: ${probe.last}); creating KUDO objects fails until it does.`,
    );
  }
}

/** This installation: its Leases' namespace, and whom its registration calls. */
async function self(
  listening: Promise<number>,
  connection: Connection,
  namespace: string,
): Promise<Installation> {
  if (connection.inCluster && !connection.install) {
    return { namespace, target: { kind: 'service', namespace, name: 'planwright-webhook' } };
  }
  const port = await listening;
  return { namespace, target: { kind: 'url', url: `https://127.0.0.1:${port}/mutate/instances` } };
}
