/**
 * `planwright start` from its options to a running App: the cluster (cluster-source.ts), the
 * webhook's certificate (webhook-tls.ts), the gate that keeps two installations apart
 * (registration-gate.ts) and the App's settings, each read from the options as they are —
 * and, where this process registers the webhooks itself (--install, local), the CRDs first
 * and the registration at https://127.0.0.1:<port> once the server listens (install.ts).
 */
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { App, type AppSettings } from '../app.ts';
import { KubeClient, inClusterNamespace } from '../kube/index.ts';
import { collectProcessMetrics } from '../runtime/index.ts';
import { KubeMetricsAuthorizer, type CertificateSource } from '../server/index.ts';
import { behindService, withCluster, type Connection } from './cluster-source.ts';
import { installCrds, registerHere } from './install.ts';
import type { LineWriter } from './io.ts';
import { managerLogger } from './logger.ts';
import { RegistrationGate } from './registration-gate.ts';
import { refuseAnsweringInstallation, thisInstallation } from './registration.ts';
import type { StartOptions } from './start-flags.ts';
import { watchesNamespace } from './watch-namespaces.ts';
import { webhookTls } from './webhook-tls.ts';

/**
 * `npm start`: runs Planwright against the cluster of the options (the embedded local control
 * plane when there is none) until `signal` aborts; resolves with the process exit code.
 */
export function runStart(
  options: StartOptions,
  io: LineWriter,
  signal: AbortSignal,
): Promise<number> {
  return withCluster(options, io, signal, async (connection) => {
    const client = new KubeClient(connection.kubeConfig);
    try {
      const namespace = options.namespace || inClusterNamespace() || 'default';
      if (connection.install) await refuseAnsweringInstallation(client, namespace, signal);
      const logger = managerLogger();
      const run: Run = { options, connection, namespace, client, io, logger };
      const { certDir } = options;
      const { tls, caPem } = webhookTls({ certDir, connection, namespace }, logger);
      // Whom the registration calls, asked when the manager first wants to run controllers:
      // the App, made with the gate in its settings, exists then.
      let listening = (): Promise<number> => Promise.reject(new Error('the App is not built yet'));
      // Keeps the controllers of two installations apart (registration-gate.ts).
      const gate = new RegistrationGate({
        client,
        logger: logger.child({ component: 'registration' }),
        self: () => thisInstallation(namespace, behindService(connection), () => listening()),
        report: (line) => io.err(line),
        lease: options.leaseTimings,
        registeredHere: connection.install,
      });
      const app = new App(appSettings(run, tls, gate));
      listening = () => app.listening;
      return await serve(app, { ...run, caPem }, signal);
    } finally {
      client.close();
    }
  });
}

/** One run of start: its options, its cluster, the namespace of its Leases. */
interface Run {
  readonly options: StartOptions;
  readonly connection: Connection;
  readonly namespace: string;
  readonly client: KubeClient;
  readonly io: LineWriter;
  readonly logger: Logger;
}

/** The App's settings: each value read from the options as it is. */
function appSettings(run: Run, tls: CertificateSource, gate: RegistrationGate): AppSettings {
  const { options: o, connection, namespace } = run;
  const watch = o.watchNamespaces;
  const registry = new Registry();
  // prom-client's default metrics, the event loop measured at scrape time: nothing ticks.
  collectProcessMetrics(registry);
  return {
    kubeConfig: connection.kubeConfig,
    logger: run.logger,
    registry,
    manager: {
      leaderElection:
        o.leaderElection !== false
          ? { namespace, name: 'planwright-leader', ...o.leaseTimings }
          : false,
      // Namespaces named exactly are watched one by one: the manager then needs list/watch
      // there only (docs/namespaced-installation.md). A prefix needs the cluster-wide watch.
      namespaces: watch && watch.prefixes.length === 0 ? watch.names : undefined,
      sharding: { shards: o.shards ?? 1 },
      gate,
    },
    webhook: {
      port: o.webhookPort,
      host: connection.inCluster ? undefined : '127.0.0.1',
      tls,
      // In a cluster the port is reachable by every pod: /metrics asks the API server who
      // calls (TokenReview) and whether they may (SubjectAccessReview), as controller-runtime.
      metricsAuth: behindService(connection)
        ? new KubeMetricsAuthorizer({ client: run.client })
        : undefined,
    },
    admission: {
      controllerUsers: [`system:serviceaccount:${namespace}:planwright`],
      packagePolicy: o.strictPackageAdmission ? 'strict' : 'warn',
      tenancy: o.tenancyPolicy,
    },
    render: {
      workers: o.renderWorkers,
      deadlineMs: o.renderTimeout,
      maxHeapMb: o.renderWorkerHeap,
    },
    verifyEvents: watch ? { namespaces: (ns) => watchesNamespace(watch, ns) } : {},
    controller: {
      pipeWaiterImage: o.pipeWaiterImage,
      stepTimeoutMs: o.stepTimeout,
      remote: {
        allowUnsafeKubeconfig: o.allowUnsafeKubeconfig,
        allowedServers: o.allowTargetServer,
      },
      tenancy: o.tenancyPolicy,
      filter: watch && ((i) => watchesNamespace(watch, i.metadata.namespace ?? '')),
    },
  };
}

/**
 * Runs the App: the CRDs go in first (--install), the registration at 127.0.0.1 once the port
 * is known; everything under one signal that Ctrl-C or a failed registration aborts.
 */
async function serve(
  app: App,
  run: Run & { readonly caPem: string | undefined },
  signal: AbortSignal,
): Promise<number> {
  const { options, connection, client, io } = run;
  const failed = new AbortController();
  const stop = AbortSignal.any([signal, failed.signal]);
  if (connection.install) {
    io.err(`Installed CRDs: ${(await installCrds(client, stop)).join(', ')}.`);
  }
  const running = app.start(stop);
  const port = await app.listening.catch(() => undefined);
  if (port === undefined) return await running;
  const host = connection.inCluster ? '0.0.0.0' : '127.0.0.1';
  io.err(`Webhook server listening on https://${host}:${port}.`);
  try {
    if (connection.install && run.caPem) {
      const { namespace, caPem } = run;
      await registerHere(
        client,
        { port, caPem, namespace, watch: options.watchNamespaces },
        io,
        stop,
      );
    }
  } catch (err) {
    // Ctrl-C while registering or probing is a normal stop, as it is once running.
    if (signal.aborted) return await running;
    failed.abort(err);
    await running;
    throw err;
  }
  const shards = options.shards ?? 1;
  io.err(
    `Planwright is running (webhook on every replica; Instances in ${shards} ${shards === 1 ? 'shard' : 'shards'} shared out over the replicas). Ctrl-C stops it.`,
  );
  return await running;
}
