// Planwright as two replicas on a real node (mixed cluster, the image built here and installed
// with `planwright init --image … --wait`), under a steady stream of Instance writes (two
// loops, one dry-run CREATE at a time each, 50 ms apart): the Lease handover and the
// admission requests that failed when the leader leaves cleanly (its pod deleted: preStop,
// SIGTERM, Lease released) and when its container is killed (kill -9: the Lease expires);
// the replicas' memory as the kubelet measures it (stats/summary). Run as root, after
// `npm run build`:
//   node --import ./scripts/register-ts.mjs bench/in-cluster.ts [rounds=1]
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { DEFAULT_IMAGE, pushPlanwrightImage } from '../src/cli/image.ts';
import { KubeClient } from '../src/kube/index.ts';
import {
  ensureControlPlaneBinaries,
  repositoryRoot,
  startLocalCluster,
  type LocalCluster,
} from '../src/localcluster/index.ts';
import { startAdmissionStream } from '../test/e2e/manifests/admission-stream.ts';
import { containerPid, planwrightPods, type PlanwrightPod } from '../test/e2e/manifests/pods.ts';
import { runBuilt } from '../test/integration/cli/built-cli.ts';

const NS = 'planwright-system';
const rounds = Number(process.argv[2] ?? 1);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(100);
  }
}

async function holder(admin: KubeClient): Promise<string> {
  const lease = await admin.request<{ spec: { holderIdentity?: string } }>({
    path: `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/planwright-leader`,
  });
  return lease.spec.holderIdentity ?? '';
}

async function twoReady(admin: KubeClient): Promise<PlanwrightPod[]> {
  return until('two ready replicas', async () => {
    const pods = (await planwrightPods(admin, NS)).filter((p) => !p.deleting);
    return pods.length === 2 && pods.every((p) => p.ready) ? pods : undefined;
  });
}

interface Disruption {
  readonly handoverS: number;
  readonly answered: number;
  readonly failed: number;
  readonly firstFailure: string;
}

async function disrupt(admin: KubeClient, how: 'delete' | 'kill'): Promise<Disruption> {
  const pods = await twoReady(admin);
  const before = await holder(admin);
  const leader = pods.find((p) => before.startsWith(`${p.name}_`));
  if (!leader) throw new Error(`no leader among the pods (holder ${before})`);
  const stream = startAdmissionStream({ client: admin, namespace: 'default' });
  await sleep(3000);
  const started = performance.now();
  if (how === 'delete') {
    await admin.request({ method: 'DELETE', path: `/api/v1/namespaces/${NS}/pods/${leader.name}` });
  } else {
    process.kill(containerPid(leader.name), 'SIGKILL');
  }
  // Any new identity: the other replica, or (kill -9) the restarted container.
  await until('a new Lease holder', async () => {
    const h = await holder(admin);
    return h !== '' && h !== before ? h : undefined;
  });
  const handoverS = (performance.now() - started) / 1000;
  await twoReady(admin);
  await sleep(3000);
  const result = await stream.stop();
  return {
    handoverS,
    answered: result.answered,
    failed: result.failed.length,
    firstFailure: result.failed[0] ?? '',
  };
}

interface Summary {
  pods: Array<{
    podRef: { name: string; namespace: string };
    containers?: Array<{ memory?: { rssBytes?: number; workingSetBytes?: number } }>;
  }>;
}

async function kubeletMemory(admin: KubeClient): Promise<string[]> {
  const summary = await admin.request<Summary>({
    path: '/api/v1/nodes/node-1/proxy/stats/summary',
  });
  return summary.pods
    .filter((p) => p.podRef.namespace === NS)
    .map((p) => {
      const m = p.containers?.[0]?.memory ?? {};
      const mib = (b: number | undefined): string => ((b ?? 0) / 1024 / 1024).toFixed(0);
      return `${p.podRef.name}: rss ${mib(m.rssBytes)} MiB, working set ${mib(m.workingSetBytes)} MiB`;
    });
}

async function round(): Promise<void> {
  const binaries = await ensureControlPlaneBinaries({ mode: 'workloads', realNodes: true });
  const cluster: LocalCluster = await startLocalCluster({
    mode: 'workloads',
    nodeKind: 'mixed',
    binaries,
  });
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  const admin = new KubeClient(kc);
  try {
    let t = performance.now();
    await pushPlanwrightImage({ registry: cluster.imageRegistry ?? '' });
    const buildS = (performance.now() - t) / 1000;
    t = performance.now();
    const init = await runBuilt(
      join(repositoryRoot(), 'dist', 'main.js'),
      ['init', '--kubeconfig', cluster.kubeconfigPath, '--image', DEFAULT_IMAGE, '--wait'],
      { timeoutMs: 400_000, env: { KUDO_HOME: join(cluster.workDir, 'kudo-home') } },
    );
    if (init.code !== 0) throw new Error(`init failed: ${init.stderr}${init.stdout}`);
    const initS = (performance.now() - t) / 1000;
    await twoReady(admin);
    await sleep(10_000);
    const idle = await kubeletMemory(admin);
    const clean = await disrupt(admin, 'delete');
    const killed = await disrupt(admin, 'kill');
    const after = await kubeletMemory(admin);
    const line = (d: Disruption): string =>
      `handover ${d.handoverS.toFixed(1)} s, admissions ${d.answered} answered / ${d.failed} failed` +
      (d.firstFailure ? ` (first: ${d.firstFailure})` : '');
    process.stdout.write(
      [
        `image build + push ${buildS.toFixed(1)} s; init --wait ${initS.toFixed(1)} s`,
        `leader pod deleted (clean leave): ${line(clean)}`,
        `leader container kill -9:         ${line(killed)}`,
        `kubelet memory, idle: ${idle.join('; ')}`,
        `kubelet memory, after: ${after.join('; ')}`,
        '',
      ].join('\n'),
    );
  } finally {
    admin.close();
    await cluster.stop();
  }
}

for (let i = 0; i < rounds; i++) await round();
