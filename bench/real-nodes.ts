// Real nodes against kwok nodes, alternating in one run: start→ready of a workloads cluster,
// a busybox pod to Running (real: pulled from the local registry and started by runc), stop,
// and the RSS of every component (the registry, containerd, kubelet and the containerd shims
// of the running pod included).
// Run as root: node --import ./scripts/register-ts.mjs bench/real-nodes.ts [rounds=2]
import { readdirSync, readFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import {
  ensureControlPlaneBinaries,
  startLocalCluster,
  type LocalCluster,
  type NodeKind,
} from '../src/localcluster/index.ts';

const rounds = Number(process.argv[2] ?? 2);

function rssMiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** containerd's shims of this cluster (their command line names its socket): count and RSS. */
function shims(workDir: string): { count: number; rss: number } {
  let count = 0;
  let rss = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmdline.includes('containerd-shim') && cmdline.includes(workDir)) {
      count += 1;
      rss += rssMiB(Number(entry));
    }
  }
  return { count, rss };
}

async function podRunning(cluster: LocalCluster): Promise<number> {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const started = performance.now();
  await core.createNamespacedPod({
    namespace: 'default',
    body: {
      metadata: { name: 'bench' },
      spec: {
        terminationGracePeriodSeconds: 0,
        containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }],
      },
    },
  });
  for (;;) {
    const pod = await core.readNamespacedPod({ namespace: 'default', name: 'bench' });
    if (pod.status?.phase === 'Running') return (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Sample {
  readonly kind: NodeKind;
  readonly ready: number;
  readonly pod: number;
  readonly stop: number;
  readonly rss: Record<string, number>;
}

async function sample(kind: NodeKind): Promise<Sample> {
  const binaries = await ensureControlPlaneBinaries({ mode: 'workloads' });
  const started = performance.now();
  const cluster = await startLocalCluster({ mode: 'workloads', nodeKind: kind, binaries });
  const ready = (performance.now() - started) / 1000;
  try {
    if (cluster.nodeKind !== kind)
      throw new Error(`asked for ${kind} nodes, got ${cluster.nodeKind ?? '?'}`);
    const pod = await podRunning(cluster);
    const shim = shims(cluster.workDir);
    const rss = {
      ...Object.fromEntries(Object.entries(cluster.pids).map(([name, pid]) => [name, rssMiB(pid)])),
      ...(shim.count > 0 ? { [`shims (${shim.count})`]: shim.rss } : {}),
    };
    const stopStarted = performance.now();
    await cluster.stop();
    return { kind, ready, pod, stop: (performance.now() - stopStarted) / 1000, rss };
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}

const samples: Sample[] = [];
for (let round = 0; round < rounds; round++) {
  const order: NodeKind[] = round % 2 === 0 ? ['kwok', 'real'] : ['real', 'kwok'];
  for (const kind of order) {
    const s = await sample(kind);
    samples.push(s);
    const rss = Object.entries(s.rss)
      .map(([n, v]) => `${n} ${v.toFixed(0)}`)
      .join(', ');
    console.log(
      `round ${round + 1} ${kind}: ready ${s.ready.toFixed(1)} s, pod Running ${s.pod.toFixed(2)} s, ` +
        `stop ${s.stop.toFixed(1)} s; RSS MiB: ${rss}`,
    );
  }
}
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`load average ${load}`);
