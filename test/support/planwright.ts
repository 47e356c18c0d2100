// Runs Planwright in-process against the shared (or a dedicated) control plane: the App with
// its real webhook on 127.0.0.1 (development certificate), registered with the apiserver for
// the given namespaces only, and the Instance controller reconciling only those namespaces.
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { Registry } from 'prom-client';
import type { KubeConfig } from '@kubernetes/client-node';
import { App } from '../../src/app.ts';
import { registerLocalWebhook, unregisterWebhook } from '../../src/cli/install.ts';
import { KubeClient } from '../../src/kube/index.ts';
import type { TenancyPolicy } from '../../src/kudo/tasks/index.ts';
import { StaticCertificateSource } from '../../src/server/index.ts';
import { uniqueName } from './cluster.ts';

export interface RunningPlanwright {
  readonly app: App;
  /** Where the App's metrics are registered. */
  readonly registry: Registry;
  readonly logLines: string[];
  stop(): Promise<void>;
}

function quietLogger(lines: string[]): Logger {
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(line);
      if (lines.length > 5000) lines.splice(0, lines.length - 5000);
      cb();
    },
  });
  return pino({ level: process.env['PW_TEST_LOG'] ?? 'info' }, stream);
}

/**
 * Planwright in this process for `namespaces` (or a prefix); with its webhook (the default),
 * returns once the apiserver calls it in each of `namespaces`.
 */
export async function startPlanwright(options: {
  kubeConfig: KubeConfig;
  namespaces: readonly string[];
  /** Instead of `namespaces` (pass []): every namespace whose name starts with this, e.g. kuttl's `kuttl-test-`. */
  namespacePrefix?: string;
  webhook?: boolean;
  waitMaxMs?: number;
  stepTimeoutMs?: number;
  pipeWaiterImage?: string;
  /** What `planwright start --tenancy … --allow-…` passes (default: KUDO's posture). */
  tenancy?: TenancyPolicy;
}): Promise<RunningPlanwright> {
  const lines: string[] = [];
  const logger = quietLogger(lines);
  const loopback = StaticCertificateSource.forLoopback('planwright-test');
  const allowed = new Set(options.namespaces);
  const prefix = options.namespacePrefix;
  const inScope = (ns: string): boolean =>
    allowed.has(ns) || (prefix !== undefined && ns.startsWith(prefix));
  const withWebhook = options.webhook ?? true;
  const registry = new Registry();
  const app = new App({
    kubeConfig: options.kubeConfig,
    logger,
    registry,
    manager: { leaderElection: false, shutdownTimeoutMs: 10_000 },
    webhook: withWebhook ? { port: 0, host: '127.0.0.1', tls: loopback.source } : false,
    admission: { controllerUsers: [] },
    controller: {
      filter: (i) => inScope(i.metadata.namespace ?? ''),
      waitMinMs: 200,
      waitMaxMs: options.waitMaxMs ?? 3_000,
      stepTimeoutMs: options.stepTimeoutMs,
      pipeWaiterImage: options.pipeWaiterImage,
      ...(options.tenancy ? { tenancy: options.tenancy } : {}),
    },
  });
  const client = new KubeClient(options.kubeConfig);
  const stop = new AbortController();
  const running = app.start(stop.signal);
  let configName: string | undefined;
  if (withWebhook) {
    const port = await app.listening;
    configName = await registerLocalWebhook(client, {
      url: `https://127.0.0.1:${port}/mutate/instances`,
      caPem: loopback.caPem,
      name: uniqueName('pw-engine'),
      ...(prefix === undefined ? { namespaces: options.namespaces } : { namespacePrefix: prefix }),
    });
  }
  const planwright: RunningPlanwright = {
    app,
    registry,
    logLines: lines,
    stop: async () => {
      if (configName) await unregisterWebhook(client, configName).catch(() => undefined);
      stop.abort();
      await running;
      client.close();
    },
  };
  // Ready when the apiserver calls the webhook in every namespace it serves.
  try {
    if (withWebhook) {
      for (const namespace of options.namespaces)
        await waitForWebhook(options.kubeConfig, namespace);
    }
  } catch (err) {
    await planwright.stop();
    throw err;
  }
  return planwright;
}

/**
 * Waits until the apiserver calls the webhook for `namespace`: a dry-run create of an
 * Instance naming a missing OperatorVersion is refused only by the webhook.
 */
export async function waitForWebhook(kubeConfig: KubeConfig, namespace: string): Promise<void> {
  const client = new KubeClient(kubeConfig);
  try {
    for (let i = 0; i < 200; i++) {
      try {
        await client.request({
          method: 'POST',
          path: `/apis/kudo.dev/v1beta1/namespaces/${namespace}/instances`,
          query: { dryRun: 'All' },
          body: {
            apiVersion: 'kudo.dev/v1beta1',
            kind: 'Instance',
            metadata: { name: 'webhook-probe' },
            spec: { operatorVersion: { name: 'does-not-exist-probe' } },
          },
        });
      } catch {
        return; // refused: the webhook answered
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the apiserver never called the Instance webhook for namespace ${namespace}`);
  } finally {
    client.close();
  }
}
