/**
 * Runs Planwright (webhook server + leader-elected Instance controller) against a cluster
 * until `signal` aborts. With `install`, first installs the CRDs and registers both webhook
 * configurations at https://127.0.0.1:<port> with a development certificate (local mode does
 * this). In-cluster, the certificate is self-managed in a Secret and injected into both
 * webhook configurations — or, with `certDir` (files mode, the cert-manager variant), read
 * from tls.crt/tls.key there and swapped in place when the files change.
 */
import { Registry } from 'prom-client';
import { App } from '../app.ts';
import { KubeClient, inClusterNamespace, type KubeConfig } from '../kube/index.ts';
import type { Instance } from '../kudo/api/index.ts';
import type { TenancyPolicy } from '../kudo/tasks/index.ts';
import { collectProcessMetrics } from '../runtime/index.ts';
import {
  FileCertificateSource,
  KubeMetricsAuthorizer,
  SelfManagedTls,
  StaticCertificateSource,
  type CertificateSource,
} from '../server/index.ts';
import { CliError } from './errors.ts';
import { installCrds, registerLocalWebhooks } from './install.ts';
import { RegistrationGate } from './registration-gate.ts';
import {
  describeRegistration,
  readRegistration,
  REGISTRATION_NAME,
  targetAnswers,
  type Installation,
} from './registration.ts';
import { managerLogger } from './logger.ts';
import { waitForWebhooks } from './webhook-probe.ts';
import type { LeaseTimings, RenderLimits } from './start-tuning.ts';
import { watchesNamespace, type WatchNamespaces } from './watch-namespaces.ts';
import type { LineWriter } from './io.ts';

export interface RunPlanwrightOptions {
  readonly kubeConfig: KubeConfig;
  readonly inCluster: boolean;
  readonly install: boolean;
  readonly webhookPort: number;
  readonly leaderElection: boolean;
  readonly namespace?: string;
  /** Files mode: serve tls.crt/tls.key from this folder (a mounted cert-manager Secret). */
  readonly certDir?: string;
  readonly engine?: EngineOptions;
  /** Refuse OperatorVersions on any `package verify` error (--strict-package-admission). */
  readonly strictPackageAdmission?: boolean;
  /** Serve only these namespaces (--watch-namespaces): the controller, and the --install registration. */
  readonly watchNamespaces?: WatchNamespaces;
  /** The Lease's timings (--leader-elect-*); client-go's defaults without. */
  readonly leaseTimings?: LeaseTimings;
  /** Limits of the render workers (--render-*); the App's defaults without. */
  readonly render?: RenderLimits;
  /** Shards the Instances are split into between replicas (--shards). Default 1. */
  readonly shards?: number;
}

/** Engine settings of the manager command line (passed to the Instance controller as they are). */
export interface EngineOptions {
  /** Image of the Pipe tasks' waiter container (--pipe-waiter-image; default DEFAULT_WAITER_IMAGE). */
  readonly pipeWaiterImage?: string;
  /** A step not COMPLETE this long after it started becomes FATAL_ERROR (--step-timeout). */
  readonly stepTimeoutMs?: number;
  /** Accept insecure TLS and plain-http servers in target kubeconfigs (--allow-unsafe-kubeconfig). */
  readonly allowUnsafeKubeconfig?: boolean;
  /** Server addresses or CIDR ranges target kubeconfigs may name (--allow-target-server). */
  readonly allowTargetServers?: readonly string[];
  /** The tenancy posture and its allowances (--tenancy, --allow-*; docs/security.md). */
  readonly tenancy?: TenancyPolicy;
  /** Reconcile only Instances of these namespaces (--watch-namespaces). */
  readonly watchNamespaces?: readonly string[];
}

/** An Instance filter: its namespace is one of `namespaces`. */
function inNamespaces(namespaces: readonly string[]): (instance: Instance) => boolean {
  const set = new Set(namespaces);
  return (instance) => set.has(instance.metadata.namespace ?? '');
}

/** The configurations manifests/webhook/ registers (and the self-managed TLS injects). */
export const WEBHOOK_CONFIGURATION = 'planwright-instances';
export const VALIDATING_WEBHOOK_CONFIGURATION = 'planwright-validation';

/** How long `--install` waits for the API server to call the webhooks it just registered. */
const REGISTRATION_TIMEOUT_MS = 30_000;

export async function runPlanwright(
  options: RunPlanwrightOptions,
  io: LineWriter,
  signal: AbortSignal,
): Promise<number> {
  const logger = managerLogger();
  const registry = new Registry();
  // prom-client's default metrics, the event loop measured at scrape time: nothing ticks.
  collectProcessMetrics(registry);
  const namespace = options.namespace ?? inClusterNamespace() ?? 'default';
  const watch = options.watchNamespaces;
  let tls: CertificateSource;
  let caPem: string | undefined;
  if (options.certDir) {
    tls = new FileCertificateSource({
      directory: options.certDir,
      logger: logger.child({ component: 'tls' }),
    });
  } else if (options.inCluster && !options.install) {
    tls = new SelfManagedTls({
      kubeConfig: options.kubeConfig,
      logger: logger.child({ component: 'tls' }),
      namespace,
      secretName: 'planwright-webhook-tls',
      serviceName: 'planwright-webhook',
      webhookConfigurations: [
        { kind: 'mutating', name: WEBHOOK_CONFIGURATION },
        { kind: 'validating', name: VALIDATING_WEBHOOK_CONFIGURATION },
      ],
    });
  } else {
    const loopback = StaticCertificateSource.forLoopback('planwright-local');
    tls = loopback.source;
    caPem = loopback.caPem;
  }
  const client = new KubeClient(options.kubeConfig);
  if (options.install) await refuseAnsweringInstallation(client, namespace, signal);
  const lease = options.leaseTimings;
  // The App's port, for the gate: the App is made with the gate in its settings.
  let listening: Promise<number> = Promise.reject(new Error('the App is not built yet'));
  listening.catch(() => undefined);
  const gate = new RegistrationGate({
    client,
    logger: logger.child({ component: 'registration' }),
    // Asked when the manager first wants to run controllers: the App exists then.
    self: () => self(listening, options, namespace),
    report: (line) => io.err(line),
    settleMs: lease?.leaseDurationMs ?? 15_000,
    retryPeriodMs: lease?.retryPeriodMs ?? 2_000,
    renewDeadlineMs: lease?.renewDeadlineMs ?? 10_000,
    registeredHere: options.install,
  });
  const app = new App({
    kubeConfig: options.kubeConfig,
    logger,
    registry,
    manager: {
      leaderElection: options.leaderElection
        ? { namespace, name: 'planwright-leader', ...options.leaseTimings }
        : false,
      // Namespaces named exactly are watched one by one: the manager then needs list/watch
      // there only (docs/namespaced-installation.md). A prefix needs the cluster-wide watch.
      ...(watch && watch.prefixes.length === 0 ? { namespaces: watch.names } : {}),
      sharding: { shards: options.shards ?? 1 },
      gate,
    },
    webhook: {
      port: options.webhookPort,
      host: options.inCluster ? undefined : '127.0.0.1',
      tls,
      // In a cluster the port is reachable by every pod: /metrics asks the API server who
      // calls (TokenReview) and whether they may (SubjectAccessReview), as controller-runtime.
      ...(options.inCluster && !options.install
        ? { metricsAuth: new KubeMetricsAuthorizer({ client }) }
        : {}),
    },
    admission: {
      controllerUsers: [`system:serviceaccount:${namespace}:planwright`],
      packagePolicy: options.strictPackageAdmission ? 'strict' : 'warn',
      ...(options.engine?.tenancy ? { tenancy: options.engine.tenancy } : {}),
    },
    ...(options.render ? { render: options.render } : {}),
    verifyEvents: watch ? { namespaces: (ns) => watchesNamespace(watch, ns) } : {},
    controller: {
      ...(watch ? { filter: (i) => watchesNamespace(watch, i.metadata.namespace ?? '') } : {}),
      pipeWaiterImage: options.engine?.pipeWaiterImage,
      stepTimeoutMs: options.engine?.stepTimeoutMs,
      ...(options.engine?.tenancy ? { tenancy: options.engine.tenancy } : {}),
      ...(options.engine?.watchNamespaces
        ? { filter: inNamespaces(options.engine.watchNamespaces) }
        : {}),
      remote: {
        allowUnsafeKubeconfig: options.engine?.allowUnsafeKubeconfig,
        ...(options.engine?.allowTargetServers
          ? { allowedServers: options.engine.allowTargetServers }
          : {}),
      },
    },
  });
  listening = app.listening;
  // Everything runs under the manager; CRDs go in first, the local registration needs the port.
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  try {
    if (options.install) {
      const crds = await installCrds(client, stop.signal);
      io.err(`Installed CRDs: ${crds.join(', ')}.`);
    }
    const running = app.start(stop.signal);
    const port = await app.listening.catch(() => undefined);
    if (port === undefined) return await running;
    io.err(
      `Webhook server listening on https://${options.inCluster ? '0.0.0.0' : '127.0.0.1'}:${port}.`,
    );
    try {
      if (options.install && caPem) {
        const baseUrl = `https://127.0.0.1:${port}`;
        for (const { kind, name } of await registerLocalWebhooks(client, {
          baseUrl,
          caPem,
          installation: namespace,
          ...(watch ? { watch } : {}),
        })) {
          io.err(`Registered ${kind} ${name} → ${baseUrl}.`);
        }
        // "Running" means a kubectl apply now reaches this process: the API server reloads a
        // changed registration a moment after the write, and until then calls the previous URL
        // (a former run's port, refused). A cluster that never answers is reported, not fatal.
        const probe = await waitForWebhooks(
          client,
          { namespace, timeoutMs: REGISTRATION_TIMEOUT_MS },
          stop.signal,
        );
        if (!probe.answered) {
          io.err(
            `Warning: the API server does not call this process's webhooks yet after ${REGISTRATION_TIMEOUT_MS / 1000} s (last: ${probe.last}); creating KUDO objects fails until it does.`,
          );
        }
      }
    } catch (err) {
      // Ctrl-C while registering or probing is a normal stop, as it is once running.
      if (signal.aborted) return await running;
      stop.abort(err);
      await running;
      throw err;
    }
    io.err(
      `Planwright is running (webhook on every replica; Instances in ${options.shards ?? 1} ${(options.shards ?? 1) === 1 ? 'shard' : 'shards'} shared out over the replicas). Ctrl-C stops it.`,
    );
    return await running;
  } finally {
    signal.removeEventListener('abort', onAbort);
    client.close();
  }
}

/** This installation: its Leases' namespace, and whom its registration calls. */
async function self(
  listening: Promise<number>,
  options: RunPlanwrightOptions,
  namespace: string,
): Promise<Installation> {
  if (options.inCluster && !options.install) {
    return { namespace, target: { kind: 'service', namespace, name: 'planwright-webhook' } };
  }
  const port = await listening;
  return { namespace, target: { kind: 'url', url: `https://127.0.0.1:${port}/mutate/instances` } };
}

/**
 * `--install` replaces the registration: not while it names another installation that still
 * answers (two would reconcile the same Instances; a URL of a process on this machine would
 * also take the webhooks away from an in-cluster installation's users).
 */
async function refuseAnsweringInstallation(
  client: KubeClient,
  namespace: string,
  signal: AbortSignal,
): Promise<void> {
  const found = await readRegistration(client, signal);
  if (found.state !== 'present') return;
  // Another replica of this installation (same namespace) may register itself instead.
  if (found.installation === namespace) return;
  if (!(await targetAnswers(client, found.target, signal))) return;
  throw new CliError(
    `another Planwright installation runs in this cluster: the webhook registration ${REGISTRATION_NAME} belongs to ${describeRegistration(found)}, which answers. ` +
      '--install would take its webhooks away and two installations would reconcile the same Instances. ' +
      'Stop or uninstall that one first (kubectl delete -k manifests/, or Ctrl-C in its terminal), ' +
      'or run `planwright start` without --install to serve webhooks only.',
  );
}
