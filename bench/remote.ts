// Remote targets: N Instances (default 100) of a 3-ConfigMap deploy plan spread over 3 target
// clusters (each a bare local control plane; the management cluster holds the Instances),
// next to a baseline of the same N Instances on the management cluster itself, in one run.
// Prints time to all COMPLETE, watch caches alive per cluster (the registry's and each
// target apiserver's WATCH count), apiserver requests per target cluster and per Instance by
// verb/resource, and peak RSS. Order: baseline, remote, baseline again.
// Run: node --import ./scripts/register-ts.mjs bench/remote.ts [instances=100]
import { readFile } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../src/kube/index.ts';
import { startLocalCluster, type LocalCluster } from '../src/localcluster/index.ts';
import { sleep } from '../src/runtime/time.ts';
import { openWatches, requestCounts } from './support/apiserver-metrics.ts';
import { countsSince, total as sum } from './support/audit.ts';
import {
  configMapTemplates,
  createBenchOperator,
  createInstances,
  waitForPlans,
} from './support/bench-operator.ts';
import { startInProcessPlanwright, type InProcessPlanwright } from './support/in-process.ts';
import { TreeSampler } from './support/process-stats.ts';
import { mib } from './support/table.ts';

const total = Number(process.argv[2] ?? 100);
const TARGETS = 3;

const progress = (l: string): void => console.error(l);
const home = await startLocalCluster({ onProgress: progress });
const targets: LocalCluster[] = [];
const kc = new KubeConfig();
kc.loadFromFile(home.kubeconfigPath);
const client = new KubeClient(kc);
let planwright: InProcessPlanwright | undefined;
let sampler: TreeSampler | undefined;
try {
  for (let i = 0; i < TARGETS; i++)
    targets.push(await startLocalCluster({ binaries: home.binaries, onProgress: progress }));
  // The local control planes run as children of this process: not part of the figure.
  sampler = new TreeSampler(process.pid, {
    exclude: [home, ...targets].flatMap((c) => Object.values(c.pids)),
  });
  // The target control planes listen on loopback: allowed as an administrator would
  // (`planwright start --allow-target-server 127.0.0.1`; refused by default).
  planwright = await startInProcessPlanwright(kc, client, {
    remote: { allowedServers: ['127.0.0.1'] },
  });
  const { app } = planwright;
  for (const ns of ['local', 'remote', 'local-again']) {
    await client.request({
      method: 'POST',
      path: '/api/v1/namespaces',
      body: { metadata: { name: ns } },
    });
    await createBenchOperator(client, ns, configMapTemplates());
  }
  for (const [i, t] of targets.entries()) {
    const tk = new KubeConfig();
    tk.loadFromFile(t.kubeconfigPath);
    const tc = new KubeClient(tk);
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
  await sleep(2_000);

  const run = async (ns: string, target?: (i: number) => string): Promise<number> => {
    const started = performance.now();
    await createInstances(client, ns, total, {
      ...(target ? { spec: (i) => ({ kubeConfig: { secretRef: { name: target(i) } } }) } : {}),
    });
    await waitForPlans(client, ns, total);
    return (performance.now() - started) / 1000;
  };

  const localSeconds = await run('local');
  const localRss = sampler.peakRss;
  const before = await Promise.all(targets.map((t) => requestCounts(t)));
  const watchesBefore = await Promise.all(targets.map(openWatches));
  const remoteSeconds = await run('remote', (i) => `target-${i % TARGETS}`);
  // The first run also warms the manager up (webhook, render workers, caches): run the
  // baseline again after the remote one, so order does not decide the comparison.
  const localAgainSeconds = await run('local-again');
  // Settle: the Ready recomputation and watch wake-ups after COMPLETE.
  await sleep(3_000);
  const after = await Promise.all(targets.map((t) => requestCounts(t)));
  const watchesAfter = await Promise.all(targets.map(openWatches));
  const caches = [...app.manager.caches.users().keys()];
  console.log(`instances: ${total} per run (3 ConfigMaps each, one Apply step)`);
  console.log(
    `baseline, all on the management cluster: all COMPLETE after ${localSeconds.toFixed(1)} s (first run, warms the manager up) and ${localAgainSeconds.toFixed(1)} s (after the remote run); peak RSS ${mib(localRss)} MiB after the first`,
  );
  console.log(
    `spread over ${TARGETS} target clusters: all COMPLETE after ${remoteSeconds.toFixed(1)} s, peak RSS ${mib(sampler.peakRss)} MiB (manager + bench client, one process)`,
  );
  console.log(
    `watch caches alive: ${caches.length} (${caches.filter((k) => k.startsWith('secret:')).length} on target clusters)`,
  );
  for (const [i, t] of targets.entries()) {
    const d = countsSince(
      after[i] ?? new Map<string, number>(),
      before[i] ?? new Map<string, number>(),
    );
    const requests = sum(d);
    const instances = Math.ceil((total - i) / TARGETS);
    console.log(
      `target ${i} (${t.server}): ${instances} Instances, ${requests} requests (${(requests / instances).toFixed(2)} per Instance), WATCHes ${watchesBefore[i]} → ${watchesAfter[i]}`,
    );
    for (const [k, v] of d) console.log(`  ${k.padEnd(28)} ${v}`);
  }
} finally {
  sampler?.stop();
  await planwright?.stop();
  client.close();
  for (const t of targets) await t.stop();
  await home.stop();
}
