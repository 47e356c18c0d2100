// Plan engine end to end: N Instances (default 1,000; BENCH_N or the first argument) of a
// 3-ConfigMap deploy plan, created through the real Instance webhook, from the first create
// until every plan is COMPLETE. Prints wall time, API requests per Instance
// (apiserver_request_total before/after, all clients: the bench's creates and its LIST + WATCH included
// and shown separately) and the RSS of the process (manager and bench client together).
// For the manager alone, as users run it, against KUDO: bench/vs-kudo.ts.
// Run: node --import ./scripts/register-ts.mjs bench/instances.ts [instances=1000]
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../src/kube/index.ts';
import { startLocalCluster } from '../src/localcluster/index.ts';
import { sleep } from '../src/runtime/time.ts';
import { requestCounts } from './support/apiserver-metrics.ts';
import { countsSince, total as sum } from './support/audit.ts';
import {
  configMapTemplates,
  createBenchOperator,
  createInstances,
  waitForPlans,
} from './support/bench-operator.ts';
import { startInProcessPlanwright, type InProcessPlanwright } from './support/in-process.ts';
import { peakRssOf, TreeSampler } from './support/process-stats.ts';
import { mib } from './support/table.ts';

const total = Number(process.env['BENCH_N'] ?? process.argv[2] ?? 1_000);
const ns = 'default';

const cluster = await startLocalCluster({ onProgress: (l) => console.error(l) });
const kc = new KubeConfig();
kc.loadFromFile(cluster.kubeconfigPath);
const client = new KubeClient(kc);
let planwright: InProcessPlanwright | undefined;
try {
  planwright = await startInProcessPlanwright(kc, client);
  await createBenchOperator(client, ns, configMapTemplates());
  // Let the webhook registration reach the apiserver before timing.
  await sleep(2_000);
  const before = await requestCounts(cluster, { subresources: true });
  // The local control plane runs as children of this process: not part of the figure.
  const sampler = new TreeSampler(process.pid, { exclude: Object.values(cluster.pids) });
  const started = performance.now();
  let benchRequests = await createInstances(client, ns, total);
  const created = performance.now();
  benchRequests += await waitForPlans(client, ns, total);
  const finished = performance.now();
  sampler.stop();
  const delta = countsSince(await requestCounts(cluster, { subresources: true }), before);
  const all = sum(delta);
  console.log(`instances: ${total} (3 ConfigMaps each, one Apply step)`);
  console.log(`creates done after: ${((created - started) / 1000).toFixed(1)} s`);
  console.log(`all COMPLETE after: ${((finished - started) / 1000).toFixed(1)} s`);
  console.log(
    `apiserver requests: ${all} total, ${benchRequests} by the bench itself (creates + LIST/WATCH until COMPLETE)`,
  );
  console.log(
    `requests per Instance by Planwright (+ webhook-less apiserver internals): ${((all - benchRequests) / total).toFixed(2)}`,
  );
  console.log(
    `peak RSS (manager + bench client, one process): ${mib(peakRssOf(process.pid))} MiB; ` +
      `with its children (render workers, kubectl): ${mib(sampler.peakRss)} MiB in ${sampler.processesAtPeak} processes`,
  );
  console.log('by verb/resource:');
  for (const [k, v] of delta) console.log(`  ${k.padEnd(40)} ${v}`);
} finally {
  await planwright?.stop();
  client.close();
  await cluster.stop();
}
