// Local control plane start-up: time to ready and memory of etcd and kube-apiserver.
// Run: node --import ./scripts/register-ts.mjs bench/controlplane.ts [runs=3]
import { readFileSync } from 'node:fs';
import { ensureControlPlaneBinaries, startLocalCluster } from '../src/localcluster/index.ts';

const runs = Number(process.argv[2] ?? 3);

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

const t0 = performance.now();
const binaries = await ensureControlPlaneBinaries({ onProgress: (l) => console.error(l) });
const ensureMs = performance.now() - t0;

const rows: Array<Record<string, string>> = [];
for (let i = 0; i < runs; i++) {
  const started = performance.now();
  const cluster = await startLocalCluster({ binaries });
  const readyMs = performance.now() - started;
  const restartStarted = performance.now();
  await cluster.restartApiServer();
  const restartMs = performance.now() - restartStarted;
  const stopStarted = performance.now();
  const rss = { etcd: rssMiB(cluster.pids.etcd), api: rssMiB(cluster.pids.kubeApiServer) };
  await cluster.stop();
  rows.push({
    run: String(i + 1),
    'start→ready (s)': (readyMs / 1000).toFixed(2),
    'apiserver restart (s)': (restartMs / 1000).toFixed(2),
    'stop (s)': ((performance.now() - stopStarted) / 1000).toFixed(2),
    'etcd RSS (MiB)': rss.etcd.toFixed(0),
    'kube-apiserver RSS (MiB)': rss.api.toFixed(0),
  });
}
console.log(`binaries ready (cache lookup) in ${ensureMs.toFixed(0)} ms`);
console.table(rows);
