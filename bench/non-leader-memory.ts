// Memory of a non-leader replica with 1,000 Deployments in the cluster, for two checkouts side
// by side in the same run: `planwright start` from BENCH_BASELINE_ROOT (e.g. an extracted
// older commit with node_modules) and from this checkout, alternating, each as a child process
// against one local control plane whose leader Lease is held by someone else. After /readyz
// answers 200 and a settle time (a replica that warms more caches finishes listing them), the
// child's RSS (/proc) and V8 heap (its /metrics) are sampled, and the LIST and WATCH requests
// for Deployments it made (the apiserver's apiserver_request_total); also the RSS of its whole
// process tree and how many child processes it runs (render workers).
// BENCH_ROLE=leader: nobody else holds the Lease, so the replica runs every shard and holds the
// workload caches; the Deployments are none of Planwright's (no `heritage=kudo`), and those
// caches hold only Planwright's objects (docs/replicas.md, "Caches").
// Run: BENCH_BASELINE_ROOT=/tmp/base node --import ./scripts/register-ts.mjs bench/non-leader-memory.ts [deployments=1000] [rounds=2]
import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { installCrds } from '../src/cli/install.ts';
import { KubeClient } from '../src/kube/index.ts';
import { startLocalCluster } from '../src/localcluster/index.ts';
import { sleep } from '../src/runtime/time.ts';
import { pool } from './pool.ts';
import { holdLeaderLease } from './support/leader-lease.ts';
import { rssOf, sampleTree } from './support/process-stats.ts';
import { managerPort, startManagerProcess } from '../test/support/manager-process.ts';

const total = Number(process.argv[2] ?? 1_000);
const rounds = Number(process.argv[3] ?? 2);
const settleMs = Number(process.env['BENCH_SETTLE_MS'] ?? 20_000);
const baseline = process.env['BENCH_BASELINE_ROOT'];
const leader = process.env['BENCH_ROLE'] === 'leader';
const variants: { name: string; root: string }[] = [
  ...(baseline ? [{ name: `baseline (${baseline})`, root: baseline }] : []),
  { name: 'this checkout', root: process.cwd() },
];
const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(0);

function get(port: number, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      { host: '127.0.0.1', port, path, rejectUnauthorized: false, timeout: 2_000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
  });
}

/** LIST + WATCH requests for Deployments the apiserver has served so far (its own metrics). */
async function deploymentReads(kc: KubeConfig): Promise<number> {
  const server = new URL(kc.getCurrentCluster()?.server ?? '');
  const options: https.RequestOptions = {
    host: server.hostname,
    port: server.port,
    path: '/metrics',
  };
  await kc.applyToHTTPSOptions(options);
  const text = await new Promise<string>((resolve, reject) =>
    https
      .get(options, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve(body));
      })
      .on('error', reject),
  );
  let sum = 0;
  for (const line of text.split('\n')) {
    if (
      line.startsWith('apiserver_request_total{') &&
      line.includes('resource="deployments"') &&
      (line.includes('verb="LIST"') || line.includes('verb="WATCH"'))
    )
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

function metric(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? NaN);
}

async function measure(root: string, kubeconfig: string, kc: KubeConfig): Promise<number[]> {
  const readsBefore = await deploymentReads(kc);
  // A replica of `root`'s checkout; its port is read from its log (`--webhook-port 0`).
  const manager = await startManagerProcess(kubeconfig, ['--namespace', 'default'], {
    leaderElection: true,
    cwd: root,
  });
  const child = manager.proc;
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`replica not ready (exit ${child.exitCode}):\n${manager.log.slice(-4000)}`);
      const port = managerPort(manager);
      const ready =
        port === undefined ? undefined : await get(port, '/readyz').catch(() => undefined);
      if (ready?.status === 200) break;
      await sleep(250);
    }
    const port = managerPort(manager) ?? 0;
    await sleep(settleMs);
    let rss = 0;
    let heap = 0;
    let treeRss = 0;
    let children = 0;
    for (let i = 0; i < 5; i++) {
      rss = Math.max(rss, rssOf(child.pid ?? 0));
      const tree = sampleTree(child.pid ?? 0);
      treeRss = Math.max(treeRss, tree.rss);
      children = Math.max(children, tree.processes - 1);
      const text = (await get(port, '/metrics')).text;
      heap = Math.max(heap, metric(text, 'nodejs_heap_size_used_bytes'));
      await sleep(1_000);
    }
    return [rss, heap, (await deploymentReads(kc)) - readsBefore, treeRss, children];
  } finally {
    child.kill('SIGTERM');
    await manager.exited;
  }
}

const cluster = await startLocalCluster({ mode: 'bare', onProgress: (l) => console.error(l) });
try {
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  const client = new KubeClient(kc);
  await installCrds(client);
  await client.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { metadata: { name: 'bench' } },
  });
  // Someone else leads for the whole run: every replica started here is a non-leader.
  if (!leader) await holdLeaderLease(client, 'default');
  const t = performance.now();
  await pool(total, 32, (i) =>
    client.request({
      method: 'POST',
      path: '/apis/apps/v1/namespaces/bench/deployments',
      body: {
        metadata: { name: `web-${i}`, labels: { app: 'web', shard: String(i % 10) } },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: `web-${i}` } },
          template: {
            metadata: { labels: { app: `web-${i}` } },
            spec: {
              containers: [
                {
                  name: 'web',
                  image: 'nginx:1.27',
                  ports: [{ containerPort: 80 }],
                  env: [{ name: 'GREETING', value: 'hello '.repeat(20) }],
                  resources: { requests: { cpu: '10m', memory: '16Mi' } },
                },
              ],
            },
          },
        },
      },
    }),
  );
  client.close();
  console.error(`created ${total} Deployments in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const results = new Map<string, number[][]>();
  for (let round = 0; round < rounds; round++) {
    for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
      const sample = await measure(v.root, cluster.kubeconfigPath, kc);
      console.error(`round ${round + 1} ${v.name}: RSS ${mib(sample[0] ?? 0)} MiB`);
      results.set(v.name, [...(results.get(v.name) ?? []), sample]);
    }
  }
  console.log(
    `${leader ? 'leading' : 'non-leader'} replica, ${total} Deployments in the cluster, settle ${settleMs / 1000} s:`,
  );
  for (const [name, samples] of results) {
    const rss = samples.map((s) => mib(s[0] ?? 0)).join(', ');
    const heap = samples.map((s) => mib(s[1] ?? 0)).join(', ');
    const reads = samples.map((s) => s[2] ?? 0).join(', ');
    const tree = samples.map((s) => mib(s[3] ?? 0)).join(', ');
    const children = samples.map((s) => s[4] ?? 0).join(', ');
    console.log(
      `  ${name}: RSS ${rss} MiB (with children ${tree} MiB; child processes ${children}); V8 heap used ${heap} MiB; Deployment LIST+WATCH requests ${reads}`,
    );
  }
} finally {
  await cluster.stop();
}
