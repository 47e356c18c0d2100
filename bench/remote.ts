// Remote targets: N Instances (default 100) of a 3-ConfigMap deploy plan spread over 3 target
// clusters (each a bare local control plane; the management cluster holds the Instances),
// next to a baseline of the same N Instances on the management cluster itself, in one run.
// Prints time to all COMPLETE, watch caches alive per cluster (the registry's and each
// target apiserver's WATCH count), apiserver requests per target cluster and per Instance by
// verb/resource, and peak RSS. Order: baseline, remote, baseline again.
// Run: node --import ./scripts/register-ts.mjs bench/remote.ts [instances=100]
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { App } from '../src/app.ts';
import { installCrds, registerLocalWebhook } from '../src/cli/install.ts';
import { KubeClient } from '../src/kube/index.ts';
import type { Instance } from '../src/kudo/api/types.ts';
import { startLocalCluster, type LocalCluster } from '../src/localcluster/index.ts';
import { StaticCertificateSource } from '../src/server/index.ts';
import { pool } from './pool.ts';

const total = Number(process.argv[2] ?? 100);
const TARGETS = 3;

function metrics(kubectl: string, kubeconfig: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      kubectl,
      ['--kubeconfig', kubeconfig, 'get', '--raw', '/metrics'],
      { maxBuffer: 128 << 20 },
      (err, out) => (err ? reject(new Error(err.message)) : resolve(out)),
    ),
  );
}

async function requestCounts(c: LocalCluster): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const line of (await metrics(c.binaries.kubectl, c.kubeconfigPath)).split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const verb = /verb="([A-Z]+)"/.exec(line)?.[1] ?? '';
    const resource = /resource="([a-z]*)"/.exec(line)?.[1] ?? '';
    const key = `${verb} ${resource}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

async function watches(c: LocalCluster): Promise<number> {
  let n = 0;
  for (const line of (await metrics(c.binaries.kubectl, c.kubeconfigPath)).split('\n')) {
    if (line.startsWith('apiserver_longrunning_requests{') && line.includes('verb="WATCH"'))
      n += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return n;
}

function diff(after: Map<string, number>, before: Map<string, number>): Array<[string, number]> {
  return [...after]
    .map(([k, v]) => [k, v - (before.get(k) ?? 0)] as [string, number])
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1]);
}

const progress = (l: string): void => console.error(l);
const home = await startLocalCluster({ onProgress: progress });
const targets: LocalCluster[] = [];
const kc = new KubeConfig();
kc.loadFromFile(home.kubeconfigPath);
const client = new KubeClient(kc);
let app: App | undefined;
let running: Promise<number> | undefined;
const stop = new AbortController();
let rss = process.memoryUsage().rss;
const sampler = setInterval(() => (rss = Math.max(rss, process.memoryUsage().rss)), 200);
try {
  for (let i = 0; i < TARGETS; i++)
    targets.push(await startLocalCluster({ binaries: home.binaries, onProgress: progress }));
  await installCrds(client);
  const loopback = StaticCertificateSource.forLoopback('bench-webhook');
  const registry = new Registry();
  app = new App({
    kubeConfig: kc,
    logger: pino({ level: 'warn' }),
    registry,
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
  const ov = (ns: string): Promise<unknown> =>
    client.request({
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
  for (const ns of ['local', 'remote', 'local-again']) {
    await client.request({
      method: 'POST',
      path: '/api/v1/namespaces',
      body: { metadata: { name: ns } },
    });
    await ov(ns);
  }
  for (const [i, t] of targets.entries()) {
    const tc = new KubeClient(
      (() => {
        const k = new KubeConfig();
        k.loadFromFile(t.kubeconfigPath);
        return k;
      })(),
    );
    await tc.request({
      method: 'POST',
      path: '/api/v1/namespaces',
      body: { metadata: { name: 'remote' } },
    });
    tc.close();
    await client.request({
      method: 'POST',
      path: '/api/v1/namespaces/remote/secrets',
      body: {
        metadata: { name: `target-${i}` },
        data: { value: Buffer.from(await readFile(t.kubeconfigPath)).toString('base64') },
      },
    });
  }
  await new Promise((r) => setTimeout(r, 2_000));

  const run = async (ns: string, target?: (i: number) => string): Promise<number> => {
    const started = performance.now();
    await pool(total, 16, async (i) => {
      await client.request({
        method: 'POST',
        path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances`,
        body: {
          apiVersion: 'kudo.dev/v1beta1',
          kind: 'Instance',
          metadata: { name: `b${i}` },
          spec: {
            operatorVersion: { name: 'bench-1.0' },
            ...(target ? { kubeConfig: { secretRef: { name: target(i) } } } : {}),
          },
        },
      });
    });
    for (;;) {
      const list = await client.request<{ items: Instance[] }>({
        path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances`,
      });
      const done = list.items.filter(
        (x) => x.status?.planStatus?.['deploy']?.status === 'COMPLETE',
      ).length;
      if (done === total) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    return (performance.now() - started) / 1000;
  };

  const localSeconds = await run('local');
  const localRss = rss;
  const before = await Promise.all(targets.map(requestCounts));
  const watchesBefore = await Promise.all(targets.map(watches));
  const remoteSeconds = await run('remote', (i) => `target-${i % TARGETS}`);
  // The first run also warms the manager up (webhook, render workers, caches): run the
  // baseline again after the remote one, so order does not decide the comparison.
  const localAgainSeconds = await run('local-again');
  // Settle: the Ready recomputation and watch wake-ups after COMPLETE.
  await new Promise((r) => setTimeout(r, 3_000));
  const after = await Promise.all(targets.map(requestCounts));
  const watchesAfter = await Promise.all(targets.map(watches));
  const caches = [...app.manager.caches.users().keys()];
  console.log(`instances: ${total} per run (3 ConfigMaps each, one Apply step)`);
  console.log(
    `baseline, all on the management cluster: all COMPLETE after ${localSeconds.toFixed(1)} s (first run, warms the manager up) and ${localAgainSeconds.toFixed(1)} s (after the remote run); peak RSS ${(localRss / 1048576).toFixed(0)} MiB after the first`,
  );
  console.log(
    `spread over ${TARGETS} target clusters: all COMPLETE after ${remoteSeconds.toFixed(1)} s, peak RSS ${(rss / 1048576).toFixed(0)} MiB (manager + bench client, one process)`,
  );
  console.log(
    `watch caches alive: ${caches.length} (${caches.filter((k) => k.startsWith('secret:')).length} on target clusters)`,
  );
  for (const [i, t] of targets.entries()) {
    const d = diff(after[i] ?? new Map<string, number>(), before[i] ?? new Map<string, number>());
    const sum = d.reduce((n, [, v]) => n + v, 0);
    const instances = Math.ceil((total - i) / TARGETS);
    console.log(
      `target ${i} (${t.server}): ${instances} Instances, ${sum} requests (${(sum / instances).toFixed(2)} per Instance), WATCHes ${watchesBefore[i]} → ${watchesAfter[i]}`,
    );
    for (const [k, v] of d) console.log(`  ${k.padEnd(28)} ${v}`);
  }
} finally {
  clearInterval(sampler);
  stop.abort();
  await running;
  client.close();
  for (const t of targets) await t.stop();
  await home.stop();
}
