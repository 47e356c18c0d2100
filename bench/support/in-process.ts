// Planwright's App in the bench's own process (webhook on a free loopback port, registered with
// the apiserver, no leader election): for benches that read the manager's internals.
import type { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { App } from '../../src/app.ts';
import type { InstanceControllerSettings } from '../../src/kudo/controller/index.ts';
import { installCrds, registerLocalWebhook } from '../../src/cli/install.ts';
import type { KubeClient } from '../../src/kube/index.ts';
import { StaticCertificateSource } from '../../src/server/index.ts';

export interface InProcessPlanwright {
  readonly app: App;
  /** Stops the App and waits for it. */
  stop(): Promise<void>;
}

/** Installs the CRDs, starts the App and registers its Instance webhook. */
export async function startInProcessPlanwright(
  kubeConfig: KubeConfig,
  client: KubeClient,
  controller?: InstanceControllerSettings,
): Promise<InProcessPlanwright> {
  await installCrds(client);
  const loopback = StaticCertificateSource.forLoopback('bench-webhook');
  const app = new App({
    kubeConfig,
    logger: pino({ level: 'warn' }),
    registry: new Registry(),
    manager: { leaderElection: false },
    webhook: { port: 0, host: '127.0.0.1', tls: loopback.source },
    admission: { controllerUsers: [] },
    ...(controller ? { controller } : {}),
  });
  const abort = new AbortController();
  const running = app.start(abort.signal);
  const stop = async (): Promise<void> => {
    abort.abort();
    await running;
  };
  try {
    const port = await app.listening;
    await registerLocalWebhook(client, {
      url: `https://127.0.0.1:${port}/mutate/instances`,
      caPem: loopback.caPem,
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { app, stop };
}
