// Planwright as two replicas on a real node (mixed cluster, the image built here and installed
// with `planwright init --image … --wait`), under a steady stream of Instance writes (two
// loops, one dry-run CREATE at a time each, 50 ms apart): the Lease handover and the
// admission requests that failed when the leader leaves cleanly (its pod deleted: preStop,
// SIGTERM, Lease released) and when its container is killed (kill -9: the Lease expires);
// the replicas' memory as the kubelet measures it (stats/summary). Run as root, after
// `npm run build`:
//   node --import ./scripts/register-ts.mjs bench/in-cluster.ts [rounds=1]
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
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

/**
 * The replicas' memory as the kubelet reports it: working set from /metrics/resource (what
 * the metrics API and eviction use), RSS from /metrics/cadvisor. (stats/summary answers 500
 * on this machine: the kubelet finds no filesystem info for the root device.)
 */
async function kubeletMemory(cluster: LocalCluster): Promise<string[]> {
  const text = async (path: string): Promise<string> =>
    promisify(execFile)(
      cluster.binaries.kubectl,
      ['--kubeconfig', cluster.kubeconfigPath, 'get', '--raw', `/api/v1/nodes/node-1/proxy${path}`],
      { maxBuffer: 64 * 1024 * 1024 },
    ).then(
      (r) => r.stdout,
      (err: unknown) => `# ${(err as Error).message}`,
    );
  const samples = (body: string, metric: string): Map<string, number> => {
    const out = new Map<string, number>();
    for (const line of body.split('\n')) {
      if (!line.startsWith(`${metric}{`) || !line.includes(`namespace="${NS}"`)) continue;
      if (!line.includes('container="planwright"')) continue;
      const pod = /pod="([^"]+)"/.exec(line)?.[1] ?? '';
      const value = Number(
        line
          .slice(line.lastIndexOf('}') + 1)
          .trim()
          .split(' ')[0],
      );
      out.set(pod, value);
    }
    return out;
  };
  const ws = samples(await text('/metrics/resource'), 'container_memory_working_set_bytes');
  const rss = samples(await text('/metrics/cadvisor'), 'container_memory_rss');
  const mib = (b: number | undefined): string =>
    b === undefined ? '?' : (b / 1024 / 1024).toFixed(0);
  return [...new Set([...ws.keys(), ...rss.keys()])].map(
    (pod) => `${pod}: working set ${mib(ws.get(pod))} MiB, rss ${mib(rss.get(pod))} MiB`,
  );
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
    const idle = await kubeletMemory(cluster);
    const clean = await disrupt(admin, 'delete');
    const killed = await disrupt(admin, 'kill');
    const after = await kubeletMemory(cluster);
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
