// How many TLS connections kube-apiserver opens to the webhook server in a burst of Instance
// creates, and what the burst costs: `planwright start` (dist build, no leader election) on a
// fresh local control plane, BENCH_N (1,000) Instances of the bench operator created 16 at a
// time (each through the mutating and the validating webhook), until all are COMPLETE.
// Connections come from the server's planwright_webhook_tls_connections_total (full and
// resumed handshakes), read before and after the burst; CPU from /proc.
// Run: npm run build && node --import ./scripts/register-ts.mjs bench/webhook-connections.ts
//   BENCH_N=1000 BENCH_ROUNDS=1 (each round a fresh manager on the same control plane)
import { loadavg } from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../src/kube/index.ts';
import { startLocalCluster } from '../src/localcluster/index.ts';
import { freeLoopbackPort } from '../src/localcluster/ports.ts';
import { sleep } from '../src/runtime/time.ts';
import {
  configMapTemplates,
  createBenchOperator,
  createInstances,
  waitForPlans,
} from './support/bench-operator.ts';
import { localMetrics, startPlanwrightProcess } from './support/planwright-process.ts';
import { cpuSecondsOf } from './support/process-stats.ts';

const N = Number(process.env['BENCH_N'] ?? process.argv[2] ?? 1_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 1);
const progress = (line: string): void => console.error(line);

/** The server's connection counters, from its /metrics. */
async function connections(port: number): Promise<{ full: number; resumed: number }> {
  const text = await localMetrics(port);
  const read = (kind: string): number => {
    const m = new RegExp(
      `^planwright_webhook_tls_connections_total\\{handshake="${kind}"\\} (\\d+)`,
      'm',
    ).exec(text);
    return m ? Number(m[1]) : NaN;
  };
  return { full: read('full'), resumed: read('resumed') };
}

const cluster = await startLocalCluster({ onProgress: progress });
try {
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  const admin = new KubeClient(kc);
  for (let round = 0; round < ROUNDS; round++) {
    const ns = `wc${round}`;
    await admin.request({
      method: 'POST',
      path: '/api/v1/namespaces',
      body: { metadata: { name: ns } },
    });
    const port = await freeLoopbackPort();
    const manager = await startPlanwrightProcess({
      kubeconfig: cluster.kubeconfigPath,
      webhookPort: port,
    });
    try {
      await createBenchOperator(admin, ns, configMapTemplates());
      await sleep(2_000);
      // Our own scrapes are connections too: one before, one after, subtracted.
      const before = await connections(port);
      const api0 = cpuSecondsOf(cluster.pids.kubeApiServer);
      const mgr0 = cpuSecondsOf(manager.pid);
      const t0 = performance.now();
      await createInstances(admin, ns, N);
      const created = performance.now() - t0;
      await waitForPlans(admin, ns, N);
      const complete = performance.now() - t0;
      const api = cpuSecondsOf(cluster.pids.kubeApiServer) - api0;
      const mgr = cpuSecondsOf(manager.pid) - mgr0;
      const after = await connections(port);
      // The second scrape's own connection (a resumed one, as a rule) is not the apiserver's.
      const scrape =
        after.resumed > before.resumed ? { full: 0, resumed: 1 } : { full: 1, resumed: 0 };
      const full = after.full - before.full - scrape.full;
      const resumed = after.resumed - before.resumed - scrape.resumed;
      console.log(
        `round ${round + 1}: ${N} Instances: webhook TLS connections ${full} full + ${resumed} resumed ` +
          `(${((full * 1000) / N).toFixed(1)} full per 1,000 creates); created in ${(created / 1000).toFixed(1)} s, ` +
          `COMPLETE after ${(complete / 1000).toFixed(1)} s; kube-apiserver ${((api * 1000) / N).toFixed(2)} ms, ` +
          `manager ${((mgr * 1000) / N).toFixed(2)} ms CPU per Instance (load ${(loadavg()[0] ?? 0).toFixed(2)})`,
      );
    } finally {
      await manager.stop();
    }
  }
  admin.close();
} finally {
  await cluster.stop();
}
