// Controller runtime: 10,000 ConfigMaps listed and watched through watcher → cache → queue →
// no-op reconcile. Prints time to synced, throughput and memory per cached object.
// Run: node --expose-gc --import ./scripts/register-ts.mjs bench/runtime.ts [objects=10000]
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { KubeClient } from '../src/kube/index.ts';
import { startLocalCluster } from '../src/localcluster/index.ts';
import { CacheRegistry } from '../src/runtime/cache-registry.ts';
import { ControllerBuilder } from '../src/runtime/builder.ts';
import { RuntimeMetrics } from '../src/runtime/metrics.ts';
import { pool } from './pool.ts';

const total = Number(process.argv[2] ?? 10_000);
const namespace = 'bench';
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

const cluster = await startLocalCluster({ onProgress: (l) => console.error(l) });
const root = new AbortController();
const rows: Record<string, string>[] = [];
const row = (measure: string, value: string): void => void rows.push({ measure, value });
try {
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  const writer = new KubeClient(kc);
  await writer.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { metadata: { name: namespace } },
  });
  const payload = 'x'.repeat(200);
  let t = performance.now();
  await pool(total, 64, (i) =>
    writer.request({
      method: 'POST',
      path: `/api/v1/namespaces/${namespace}/configmaps`,
      body: {
        metadata: { name: `cm-${i}`, labels: { app: 'bench', shard: String(i % 10) } },
        data: { payload },
      },
    }),
  );
  row(
    `create ${total} ConfigMaps (setup, apiserver-bound)`,
    `${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  const heapBefore = heap();
  const rssBefore = process.memoryUsage().rss;
  const client = new KubeClient(kc);
  const logger = pino({ level: 'warn' });
  const caches = new CacheRegistry({
    clients: new Map([['local', client]]),
    logger,
    signal: root.signal,
    metrics: new RuntimeMetrics(new Registry()),
  });
  let reconciles = 0;
  const controller = new ControllerBuilder({ caches, logger })
    .named('bench')
    .for({ group: '', version: 'v1', kind: 'ConfigMap' })
    .workers(4)
    .complete(() => {
      reconciles += 1;
      return Promise.resolve();
    });
  t = performance.now();
  const running = controller.start(root.signal);
  await controller.waitForSync(root.signal);
  const syncMs = performance.now() - t;
  row(
    'list → cache synced',
    `${(syncMs / 1000).toFixed(2)} s (${Math.round(controller.primary.size / (syncMs / 1000))} objects/s)`,
  );
  const wait = async (cond: () => boolean): Promise<void> => {
    while (!cond()) await new Promise((r) => setTimeout(r, 5));
  };
  await wait(() => reconciles >= controller.primary.size);
  const initialMs = performance.now() - t;
  row('start → every object reconciled once', `${(initialMs / 1000).toFixed(2)} s`);
  const heapSynced = heap();
  const rssSynced = process.memoryUsage().rss;
  const objects = controller.primary.size;
  row('objects cached', String(objects));
  row('heap per cached object', `${Math.round((heapSynced - heapBefore) / objects)} B`);
  row('RSS before / after sync', `${mib(rssBefore)} / ${mib(rssSynced)} MiB`);

  // Watch path: update every object; count events through the cache and the reconciles.
  let events = 0;
  const unsubscribe = controller.primary.subscribe({ onUpdate: () => void (events += 1) });
  const before = reconciles;
  t = performance.now();
  await pool(total, 64, (i) =>
    writer.request({
      method: 'PATCH',
      path: `/api/v1/namespaces/${namespace}/configmaps/cm-${i}`,
      contentType: 'application/merge-patch+json',
      body: { data: { payload, n: '1' } },
    }),
  );
  const writeMs = performance.now() - t;
  await wait(
    () => events >= total && controller.queue.length === 0 && controller.queue.inFlight === 0,
  );
  const watchMs = performance.now() - t;
  unsubscribe();
  row(
    `${total} updates written (apiserver-bound)`,
    `${(writeMs / 1000).toFixed(2)} s (${Math.round(total / (writeMs / 1000))} writes/s)`,
  );
  row(
    'watch events → cache → queue → reconcile',
    `${Math.round(events / (watchMs / 1000))} events/s end to end; ${reconciles - before} reconciles (coalesced)`,
  );

  // In-process path without the apiserver: how fast the runtime itself digests events.
  const cache = controller.primary;
  const sample = cache.list();
  t = performance.now();
  let n = 0;
  for (let round = 0; round < 10; round += 1) {
    for (const obj of sample) {
      controller.enqueue(`${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`);
      n += 1;
    }
    await wait(() => controller.queue.length === 0 && controller.queue.inFlight === 0);
  }
  const localMs = performance.now() - t;
  row('queue → no-op reconcile only (in-process)', `${Math.round(n / (localMs / 1000))} keys/s`);
  row('RSS at end', `${mib(process.memoryUsage().rss)} MiB`);

  root.abort();
  await running;
  await caches.stop();
  client.close();
  writer.close();
} finally {
  root.abort();
  await cluster.stop();
}
console.table(rows);
