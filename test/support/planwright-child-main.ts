// Planwright as a child process for the hostile-input and lease tests: the App (webhook on
// 127.0.0.1 with a development certificate, registered for the given namespaces only, and the
// Instance controller for those namespaces), with the render limits and lease timings given.
// Prints `READY <webhook port> <base64 CA PEM>` once the webhook is registered; exits 0 on
// SIGTERM. A crash or restart would show as this process exiting.
// Arguments: kubeconfig path, JSON settings (see ChildSettings).
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { App, type RenderSettings } from '../../src/app.ts';
import { registerLocalWebhook } from '../../src/cli/install.ts';
import { shutdownSignal } from '../../src/cli/signals.ts';
import { KubeClient } from '../../src/kube/index.ts';
import { StaticCertificateSource } from '../../src/server/index.ts';

export interface ChildSettings {
  readonly namespaces: readonly string[];
  readonly webhookName: string;
  readonly render?: RenderSettings;
  /** Lease timings; leader election is off without them. */
  readonly lease?: {
    readonly namespace: string;
    readonly name: string;
    readonly leaseDurationMs: number;
    readonly renewDeadlineMs: number;
    readonly retryPeriodMs: number;
  };
  /** Watch inactivity timeout (short in the apiserver-pause test). */
  readonly inactivityMs?: number;
}

const [kubeconfig = '', json = '{}'] = process.argv.slice(2);
const settings = JSON.parse(json) as ChildSettings;
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(kubeconfig);
const allowed = new Set(settings.namespaces);
const loopback = StaticCertificateSource.forLoopback('planwright-hostile');
const logger = pino({ level: process.env['PLANWRIGHT_LOG_LEVEL'] ?? 'info' }, process.stderr);
const app = new App({
  kubeConfig,
  logger,
  registry: new Registry(),
  manager: {
    leaderElection: settings.lease
      ? { ...settings.lease, identity: `child-${process.pid}` }
      : false,
    shutdownTimeoutMs: 10_000,
    inactivityMs: settings.inactivityMs,
  },
  webhook: { port: 0, host: '127.0.0.1', tls: loopback.source },
  admission: { controllerUsers: [] },
  controller: {
    filter: (i) => allowed.has(i.metadata.namespace ?? ''),
    waitMinMs: 200,
    waitMaxMs: 2_000,
  },
  render: settings.render,
});
const shutdown = shutdownSignal((line) => logger.info(line));
const running = app.start(shutdown.signal);
process.stdout.write('STARTING\n');
const port = await app.listening.catch(() => undefined);
if (port === undefined) {
  // Stopped (a signal) before the webhook listened.
  process.exitCode = await running;
  shutdown.dispose();
} else {
  const client = new KubeClient(kubeConfig);
  await registerLocalWebhook(client, {
    url: `https://127.0.0.1:${port}/mutate/instances`,
    caPem: loopback.caPem,
    name: settings.webhookName,
    namespaces: settings.namespaces,
  });
  client.close();
  process.stdout.write(`READY ${port} ${Buffer.from(loopback.caPem).toString('base64')}\n`);
  process.exitCode = await running;
  shutdown.dispose();
}
