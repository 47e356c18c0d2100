/**
 * Runs Planwright (webhook server + leader-elected Instance controller) against a cluster
 * until `signal` aborts. With `install`, first installs the CRDs and registers both webhook
 * configurations at https://127.0.0.1:<port> with a development certificate (local mode does
 * this). In-cluster, the certificate is self-managed in a Secret and injected into both
 * webhook configurations — or, with `certDir` (files mode, the cert-manager variant), read
 * from tls.crt/tls.key there and swapped in place when the files change.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { App } from '../app.ts';
import { KubeClient, inClusterNamespace } from '../kube/index.ts';
import {
  FileCertificateSource,
  SelfManagedTls,
  StaticCertificateSource,
  type CertificateSource,
} from '../server/index.ts';
import { installCrds, registerLocalWebhooks } from './install.ts';
import { managerLogger } from './logger.ts';
import type { Console } from './start.ts';

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
}

/** Engine settings of the manager command line. */
export interface EngineOptions {
  /** Image of the Pipe tasks' waiter container (--pipe-waiter-image; default busybox). */
  readonly pipeWaiterImage?: string;
  /** A step not COMPLETE this long after it started becomes FATAL_ERROR (--step-timeout). */
  readonly stepTimeoutMs?: number;
  /** Accept exec/auth-provider plugins, file paths and insecure TLS in target kubeconfigs. */
  readonly allowUnsafeKubeconfig?: boolean;
}

/** The configurations manifests/webhook/ registers (and the self-managed TLS injects). */
export const WEBHOOK_CONFIGURATION = 'planwright-instances';
export const VALIDATING_WEBHOOK_CONFIGURATION = 'planwright-validation';

export async function runPlanwright(
  options: RunPlanwrightOptions,
  io: Console,
  signal: AbortSignal,
): Promise<number> {
  const logger = managerLogger();
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const namespace = options.namespace ?? inClusterNamespace() ?? 'default';
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
  const app = new App({
    kubeConfig: options.kubeConfig,
    logger,
    registry,
    webhook: {
      port: options.webhookPort,
      ...(options.inCluster ? {} : { host: '127.0.0.1' }),
      tls,
    },
    leaderElection: options.leaderElection ? { namespace, name: 'planwright-leader' } : false,
    controllerUsers: [`system:serviceaccount:${namespace}:planwright`],
    ...(options.engine?.pipeWaiterImage ? { pipeWaiterImage: options.engine.pipeWaiterImage } : {}),
    ...(options.engine?.stepTimeoutMs !== undefined
      ? { stepTimeoutMs: options.engine.stepTimeoutMs }
      : {}),
    ...(options.engine?.allowUnsafeKubeconfig ? { remote: { allowUnsafeKubeconfig: true } } : {}),
  });
  const client = new KubeClient(options.kubeConfig);
  try {
    if (options.install) {
      const crds = await installCrds(client, signal);
      io.err(`Installed CRDs: ${crds.join(', ')}.`);
    }
    const port = await app.startServer();
    io.err(
      `Webhook server listening on https://${options.inCluster ? '0.0.0.0' : '127.0.0.1'}:${port ?? '?'}.`,
    );
    if (options.install && caPem) {
      const baseUrl = `https://127.0.0.1:${port ?? 0}`;
      for (const { kind, name } of await registerLocalWebhooks(client, { baseUrl, caPem })) {
        io.err(`Registered ${kind} ${name} → ${baseUrl}.`);
      }
    }
  } catch (err) {
    app.stop();
    await app.run().catch(() => undefined);
    throw err;
  } finally {
    client.close();
  }
  const onAbort = (): void => app.stop();
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) app.stop();
  io.err(
    'Planwright is running (webhook on every replica, controllers on the leader). Ctrl-C stops it.',
  );
  try {
    return await app.run();
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
