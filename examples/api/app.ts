// Compiled example of the composition root: what `planwright start` does, in process.
import type { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { App } from '../../src/app.ts';
import { StaticCertificateSource } from '../../src/server/index.ts';

export async function runApp(kubeConfig: KubeConfig, signal: AbortSignal): Promise<number> {
  const { source } = StaticCertificateSource.forLoopback('planwright-local');
  const app = new App({
    kubeConfig,
    logger: pino(),
    registry: new Registry(),
    manager: { leaderElection: { namespace: 'planwright-system', name: 'planwright-leader' } },
    webhook: { port: 9443, host: '127.0.0.1', tls: source },
    admission: { controllerUsers: ['system:serviceaccount:planwright-system:planwright'] },
    controller: { workers: 4 },
    render: { workers: 2 },
  });
  const running = app.start(signal);
  const port = await app.listening.catch(() => undefined); // register the webhook at this port
  void port;
  return running; // exit code: 0 after a graceful stop
}
