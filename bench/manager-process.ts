// The manager as users run it: `node dist/main.js start --install` (build first: npm run build)
// as its own process against a fresh local control plane, leader election on. N Instances
// (default 1,000) of a 3-ConfigMap deploy plan, created through the real webhook, until all are
// COMPLETE; then idle for BENCH_IDLE_S seconds (default 60). Prints: wall time, apiserver
// requests per Instance by verb/resource (the bench's own creates and its LIST + WATCH subtracted), the
// manager's peak RSS (VmHWM) and the render workers' separately, CPU while busy, and when idle:
// CPU per minute and API writes.
// Run: node --import ./scripts/register-ts.mjs bench/manager-process.ts [instances=1000]
// Node flags of the manager: BENCH_NODE_FLAGS (default the Dockerfile's; "" for none); extra arguments
// of `start`: BENCH_MANAGER_ARGS="--no-leader-election".
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../src/kube/index.ts';
import { startLocalCluster } from '../src/localcluster/index.ts';
import { repositoryRoot } from '../src/localcluster/paths.ts';
import { pool } from './pool.ts';
import { waitForPlans } from './support/bench-operator.ts';
import { requestCounts } from './support/apiserver-metrics.ts';
import { countsSince } from './support/audit.ts';
import { peakRssOf, rssOf } from './support/process-stats.ts';

const total = Number(process.argv[2] ?? 1_000);
const idleSeconds = Number(process.env['BENCH_IDLE_S'] ?? 60);
const ns = 'default';
const MiB = 1024 * 1024;
const TICKS = 100; // USER_HZ on Linux

/** user + system CPU seconds of a process. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** CPU seconds per thread name (threads of one name summed). */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cpu = (Number(fields[11]) + Number(fields[12])) / TICKS;
      out.set(name, (out.get(name) ?? 0) + cpu);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Direct children of a process (the render workers). */
function children(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const cluster = await startLocalCluster({ onProgress: (l) => console.error(l) });
const kc = new KubeConfig();
kc.loadFromFile(cluster.kubeconfigPath);
const client = new KubeClient(kc);
// The Dockerfile's node flags by default.
const flags = (
  process.env['BENCH_NODE_FLAGS'] ??
  '--max-semi-space-size=2 --optimize-for-size --memory-reducer-single-gc'
)
  .split(' ')
  .filter((f) => f !== '');
const manager = spawn(
  process.execPath,
  [
    ...flags,
    'dist/main.js',
    'start',
    '--kubeconfig',
    cluster.kubeconfigPath,
    '--install',
    '--webhook-port',
    '0',
    ...(process.env['BENCH_MANAGER_ARGS'] ?? '').split(' ').filter((a) => a !== ''),
  ],
  {
    cwd: repositoryRoot(),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PLANWRIGHT_LOG_LEVEL: 'warn' },
  },
);
let log = '';
manager.stdout.on('data', (c: Buffer) => (log += c.toString()));
manager.stderr.on('data', (c: Buffer) => (log += c.toString()));
const exited = new Promise<number | null>((r) => manager.once('exit', (code) => r(code)));
const pid = manager.pid ?? 0;
try {
  // Up and leading: the mutating webhook answers (an Instance CREATE would fail otherwise).
  const templates: Record<string, string> = {};
  for (const i of [0, 1, 2])
    templates[`cm${i}.yaml`] =
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-${i}\ndata:\n  v: "{{ .Params.V }}"\n`;
  let ovCreated = false;
  for (let tries = 0; ; tries++) {
    if (manager.exitCode !== null) throw new Error(`the manager exited:\n${log}`);
    try {
      if (!ovCreated)
        await client.request({
          method: 'POST',
          path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/operatorversions`,
          body: {
            apiVersion: 'kudo.dev/v1beta1',
            kind: 'OperatorVersion',
            metadata: { name: 'bench-1.0' },
            spec: {
              operator: { name: 'bench', kind: 'Operator' },
              version: '1.0',
              parameters: [{ name: 'V', default: 'x' }],
              templates,
              tasks: [{ name: 'all', kind: 'Apply', spec: { resources: Object.keys(templates) } }],
              plans: {
                deploy: { phases: [{ name: 'p', steps: [{ name: 's', tasks: ['all'] }] }] },
              },
            },
          },
        });
      ovCreated = true;
      await client.request({
        method: 'POST',
        path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances?dryRun=All`,
        body: {
          apiVersion: 'kudo.dev/v1beta1',
          kind: 'Instance',
          metadata: { name: 'probe' },
          spec: { operatorVersion: { name: 'bench-1.0' } },
        },
      });
      break;
    } catch (err) {
      if (tries > 240) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  await new Promise((r) => setTimeout(r, 2_000));
  const startRss = rssOf(pid);
  const before = await requestCounts(cluster, { subresources: true });
  const cpuBefore = cpuSeconds(pid);
  const { kubeApiServer, etcd } = cluster.pids;
  const apiCpuBefore = cpuSeconds(kubeApiServer);
  const etcdCpuBefore = cpuSeconds(etcd);
  const workerCpuBefore = new Map(children(pid).map((w) => [w, cpuSeconds(w)] as const));
  const loadBefore = loadavg()[0] ?? 0;
  const workers = new Map<number, number>();
  const sampler = setInterval(() => {
    for (const w of children(pid)) {
      const peak = peakRssOf(w);
      if (peak > 0) workers.set(w, Math.max(workers.get(w) ?? 0, peak));
    }
  }, 500);
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
  const waiting = waitForPlans(client, ns, total);
  // The manager dying ends the wait with its log.
  const died = exited.then((code) => {
    throw new Error(`the manager exited (${code}):\n${log}`);
  });
  died.catch(() => undefined); // its exit at the end, after the race, is no failure
  benchRequests += await Promise.race([waiting, died]);
  const finished = performance.now();
  const cpuBusy = cpuSeconds(pid) - cpuBefore;
  const apiCpuBusy = cpuSeconds(kubeApiServer) - apiCpuBefore;
  const etcdCpuBusy = cpuSeconds(etcd) - etcdCpuBefore;
  // Workers started during the run (a replacement) count from zero.
  const workerCpuBusy = children(pid).reduce(
    (sum, w) => sum + cpuSeconds(w) - (workerCpuBefore.get(w) ?? 0),
    0,
  );
  const loadAfter = loadavg()[0] ?? 0;
  const after = await requestCounts(cluster, { subresources: true });
  const busy = countsSince(after, before);
  const all = busy.reduce((n, [, v]) => n + v, 0);
  const peak = peakRssOf(pid);
  const now = rssOf(pid);
  console.log(
    `instances: ${total} (3 ConfigMaps each, one Apply step); manager flags: ${flags.join(' ') || 'none'}`,
  );
  console.log(`creates done after: ${((created - started) / 1000).toFixed(1)} s`);
  console.log(`all COMPLETE after: ${((finished - started) / 1000).toFixed(1)} s`);
  console.log(
    `requests per Instance by Planwright: ${((all - benchRequests) / total).toFixed(2)} (${all} in all, ${benchRequests} by the bench: creates + LIST/WATCH until COMPLETE)`,
  );
  console.log(
    `manager RSS: ${(startRss / MiB).toFixed(0)} MiB before the Instances, peak ${(peak / MiB).toFixed(0)} MiB, now ${(now / MiB).toFixed(0)} MiB`,
  );
  console.log(
    `render workers (separate processes): ${workers.size}, peak RSS ${[...workers.values()].map((v) => `${(v / MiB).toFixed(0)} MiB`).join(', ') || '-'}`,
  );
  console.log(`manager CPU while busy: ${cpuBusy.toFixed(1)} s`);
  const perInstance = (s: number): string => `${((s * 1000) / total).toFixed(2)} ms`;
  console.log(
    `CPU per Instance: manager ${perInstance(cpuBusy)}, render workers ${perInstance(workerCpuBusy)}, kube-apiserver ${perInstance(apiCpuBusy)}, etcd ${perInstance(etcdCpuBusy)} (load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after)`,
  );
  console.log('by verb/resource (bench creates, LIST and WATCH included):');
  for (const [k, v] of busy) console.log(`  ${k.padEnd(40)} ${v}`);
  clearInterval(sampler);
  if (idleSeconds > 0) {
    // Let the last events, drift checks and requeues settle before measuring idle.
    await new Promise((r) => setTimeout(r, 10_000));
    const idleBefore = await requestCounts(cluster, { subresources: true });
    const cpuIdle = cpuSeconds(pid);
    const threadsBefore = threadCpu(pid);
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    const idleCpu = cpuSeconds(pid) - cpuIdle;
    const threadsAfter = threadCpu(pid);
    const byThread = [...threadsAfter]
      .map(([name, v]) => [name, v - (threadsBefore.get(name) ?? 0)] as const)
      .filter(([, v]) => v > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([name, v]) => `${name} ${((v * 60) / idleSeconds).toFixed(2)}`)
      .join(', ');
    const idle = countsSince(
      await requestCounts(cluster, { subresources: true }),
      idleBefore,
    ).filter(([k]) => !k.startsWith('GET ') && !k.startsWith('LIST ') && !k.startsWith('WATCH '));
    console.log(
      `idle ${idleSeconds} s: manager CPU ${((idleCpu * 60) / idleSeconds).toFixed(2)} s per minute; API writes: ${idle.map(([k, v]) => `${k} ${v}`).join(', ') || 'none'} (lease renewals included)`,
    );
    console.log(`idle CPU per minute by thread: ${byThread}`);
    const workerCpu = children(pid).map((w) => cpuSeconds(w));
    console.log(
      `render workers' CPU since they started: ${workerCpu.map((c) => `${c.toFixed(2)} s`).join(', ') || '-'}`,
    );
  }
} finally {
  manager.kill('SIGTERM');
  await exited;
  client.close();
  await cluster.stop();
}
