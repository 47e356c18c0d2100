// kube-apiserver CPU per request, by the shape of the request: what one request of each kind the
// engine makes costs the apiserver (bare local control plane, one client, 16 in flight, a
// ConfigMap watch open as the manager has one). CPU from /proc of the kube-apiserver process.
// Run: node --import ./scripts/register-ts.mjs bench/apiserver-requests.ts [requests=1000]
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, type RequestOptions } from '../src/kube/index.ts';
import { startLocalCluster } from '../src/localcluster/index.ts';
import { pool } from './pool.ts';

const N = Number(process.argv[2] ?? 1_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 2);
const TICKS = 100; // USER_HZ on Linux
const ns = 'default';

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

function configMap(name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns, labels: { heritage: 'kudo', 'kudo.dev/instance': name } },
    data: { v: 'x' },
  };
}

function event(name: string): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: ns },
    involvedObject: { apiVersion: 'kudo.dev/v1beta1', kind: 'Instance', name, namespace: ns },
    reason: 'PlanStarted',
    message: 'plan deploy started',
    type: 'Normal',
    source: { component: 'planwright' },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}

const apply = (name: string, extra: Record<string, string> = {}): RequestOptions => ({
  method: 'PATCH',
  path: `/api/v1/namespaces/${ns}/configmaps/${name}`,
  query: { fieldManager: 'planwright', force: true, ...extra },
  contentType: 'application/apply-patch+yaml',
  body: configMap(name),
});

/** Request shapes by name: the i-th request of a round whose names start with `prefix`. */
const shapes: ReadonlyMap<string, (name: string, i: number) => RequestOptions> = new Map([
  ['SSA apply, new ConfigMap', (name) => apply(name)],
  [
    'SSA apply, new ConfigMap, fieldValidation=Ignore',
    (name) => apply(name, { fieldValidation: 'Ignore' }),
  ],
  [
    'POST ConfigMap',
    (name) => ({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/configmaps`,
      body: configMap(name),
    }),
  ],
  [
    'POST Event',
    (name) => ({ method: 'POST', path: `/api/v1/namespaces/${ns}/events`, body: event(name) }),
  ],
  ['GET ConfigMap', (_name, i) => ({ path: `/api/v1/namespaces/${ns}/configmaps/warm-${i}` })],
]);

const cluster = await startLocalCluster({ onProgress: (l) => console.error(l) });
const kc = new KubeConfig();
kc.loadFromFile(cluster.kubeconfigPath);
const client = new KubeClient(kc);
const watching = new AbortController();
try {
  void client
    .watch({
      path: '/api/v1/configmaps',
      signal: watching.signal,
      inactivityMs: 600_000,
      onEvent: () => undefined,
    })
    .catch((err: unknown) => console.error('configmap watch ended:', err));
  // Warm-up, and the objects the GETs read.
  await pool(N, 16, (i) =>
    client.request({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/configmaps`,
      body: configMap(`warm-${i}`),
    }),
  );
  const apiserver = cluster.pids.kubeApiServer;
  console.log(
    `${N} requests per shape, 16 in flight; kube-apiserver CPU and wall time per request`,
  );
  for (let round = 0; round < ROUNDS; round++) {
    let s = 0;
    for (const [label, shape] of shapes) {
      const prefix = `r${round}-s${s++}-`;
      const cpuBefore = cpuSeconds(apiserver);
      const started = performance.now();
      await pool(N, 16, (i) => client.request(shape(`${prefix}${i}`, i)));
      const wallMs = (performance.now() - started) / N;
      const cpuMs = ((cpuSeconds(apiserver) - cpuBefore) * 1000) / N;
      console.log(
        `round ${round + 1}  ${label.padEnd(50)} ${cpuMs.toFixed(2)} ms CPU  ${wallMs.toFixed(2)} ms wall  (load ${(loadavg()[0] ?? 0).toFixed(2)})`,
      );
    }
  }
} finally {
  watching.abort();
  client.close();
  await cluster.stop();
}
