// Plan engine end to end: N Instances (default 1,000) of a 3-ConfigMap deploy plan, created
// through the real Instance webhook, from the first create until every plan is COMPLETE.
// Prints wall time, API requests per Instance (apiserver_request_total before/after, all
// clients: the bench's creates and polls included and shown separately) and the manager's RSS.
// Run: node --import ./scripts/register-ts.mjs bench/instances.ts [instances=1000]
import { execFile } from 'node:child_process';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { App } from '../src/app.ts';
import { installCrds, registerLocalWebhook } from '../src/cli/install.ts';
import { KubeClient } from '../src/kube/index.ts';
import type { Instance } from '../src/kudo/api/types.ts';
import { startLocalCluster } from '../src/localcluster/index.ts';
import { StaticCertificateSource } from '../src/server/index.ts';
import { pool } from './pool.ts';

const total = Number(process.argv[2] ?? 1_000);
const ns = 'default';

function requestCounts(kubectl: string, kubeconfig: string): Promise<Map<string, number>> {
  return new Promise((resolve, reject) =>
    execFile(
      kubectl,
      ['--kubeconfig', kubeconfig, 'get', '--raw', '/metrics'],
      { maxBuffer: 128 << 20 },
      (err, out) => {
        if (err) return reject(new Error(err.message));
        const counts = new Map<string, number>();
        for (const line of out.split('\n')) {
          if (!line.startsWith('apiserver_request_total{')) continue;
          const verb = /verb="([A-Z]+)"/.exec(line)?.[1] ?? '';
          const resource = /resource="([a-z]*)"/.exec(line)?.[1] ?? '';
          const sub = /subresource="([a-z]*)"/.exec(line)?.[1] ?? '';
          const key = `${verb} ${resource}${sub ? `/${sub}` : ''}`;
          counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
        }
        resolve(counts);
      },
    ),
  );
}

const cluster = await startLocalCluster({ onProgress: (l) => console.error(l) });
const kc = new KubeConfig();
kc.loadFromFile(cluster.kubeconfigPath);
const client = new KubeClient(kc);
let app: App | undefined;
const stop = new AbortController();
let running: Promise<number> | undefined;
try {
  await installCrds(client);
  const loopback = StaticCertificateSource.forLoopback('bench-webhook');
  app = new App({
    kubeConfig: kc,
    logger: pino({ level: 'warn' }),
    registry: new Registry(),
    manager: { leaderElection: false },
    webhook: { port: 0, host: '127.0.0.1', tls: loopback.source },
    admission: { controllerUsers: [] },
  });
  running = app.start(stop.signal);
  const port = await app.listening;
  await registerLocalWebhook(client, {
    url: `https://127.0.0.1:${port}/mutate/instances`,
    caPem: loopback.caPem,
  });
  const templates: Record<string, string> = {};
  for (const i of [0, 1, 2])
    templates[`cm${i}.yaml`] =
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-${i}\ndata:\n  v: "{{ .Params.V }}"\n`;
  await client.request({
    method: 'POST',
    path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/operatorversions`,
    body: {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'OperatorVersion',
      metadata: { name: 'bench-1.0' },
      spec: {
        version: '1.0',
        parameters: [{ name: 'V', default: 'x' }],
        templates,
        tasks: [{ name: 'all', kind: 'Apply', spec: { resources: Object.keys(templates) } }],
        plans: { deploy: { phases: [{ name: 'p', steps: [{ name: 's', tasks: ['all'] }] }] } },
      },
    },
  });
  // Let the webhook registration reach the apiserver before timing.
  await new Promise((r) => setTimeout(r, 2_000));
  const before = await requestCounts(cluster.binaries.kubectl, cluster.kubeconfigPath);
  let rss = process.memoryUsage().rss;
  const sampler = setInterval(() => (rss = Math.max(rss, process.memoryUsage().rss)), 200);
  const started = performance.now();
  let benchRequests = 0;
  await pool(total, 16, async (i) => {
    benchRequests++;
    await client.request({
      method: 'POST',
      path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances`,
      body: {
        apiVersion: 'kudo.dev/v1beta1',
        kind: 'Instance',
        metadata: { name: `b${i}`, labels: { 'kudo.dev/operator': 'bench' } },
        spec: { operatorVersion: { name: 'bench-1.0' } },
      },
    });
  });
  const created = performance.now();
  for (;;) {
    benchRequests++;
    const list = await client.request<{ items: Instance[] }>({
      path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances`,
    });
    const done = list.items.filter(
      (i) => i.status?.planStatus?.['deploy']?.status === 'COMPLETE',
    ).length;
    if (done === total) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const finished = performance.now();
  clearInterval(sampler);
  const after = await requestCounts(cluster.binaries.kubectl, cluster.kubeconfigPath);
  const delta = [...after]
    .map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const)
    .filter(([, v]) => v > 0);
  const all = delta.reduce((n, [, v]) => n + v, 0);
  console.log(`instances: ${total} (3 ConfigMaps each, one Apply step)`);
  console.log(`creates done after: ${((created - started) / 1000).toFixed(1)} s`);
  console.log(`all COMPLETE after: ${((finished - started) / 1000).toFixed(1)} s`);
  console.log(
    `apiserver requests: ${all} total, ${benchRequests} by the bench itself (creates + polls)`,
  );
  console.log(
    `requests per Instance by Planwright (+ webhook-less apiserver internals): ${((all - benchRequests) / total).toFixed(2)}`,
  );
  console.log(
    `peak RSS (manager + bench client, one process): ${(rss / 1024 / 1024).toFixed(0)} MiB`,
  );
  console.log('by verb/resource:');
  for (const [k, v] of delta.sort((a, b) => b[1] - a[1])) console.log(`  ${k.padEnd(40)} ${v}`);
} finally {
  stop.abort();
  await running;
  client.close();
  await cluster.stop();
}
