// The manager as users run it: `node dist/main.js start --install` (build first: npm run build)
// as its own process against a fresh local control plane, leader election on. N Instances
// (default 1,000) of a 3-ConfigMap deploy plan, created through the real webhook, until all are
// COMPLETE; then the first idle minute (from 5 s after COMPLETE, as bench/vs-kudo.ts: what the
// burst leaves behind), BENCH_IDLE_S seconds (default 60). Prints: wall time, apiserver requests
// per Instance by verb/resource (the bench's own creates and its LIST + WATCH subtracted), the
// manager's peak RSS (VmHWM) and the render workers' separately, CPU while busy (main process
// per Instance, its garbage collection's share), and when idle: CPU per minute (per thread)
// and API writes.
//
// A/B in one run: several checkouts (BENCH_ROOTS, comma-separated directories with dist/ built;
// default this one) × several node flag sets (BENCH_FLAG_SETS, separated by ';'; default the
// Dockerfile's), each on a fresh control plane, BENCH_ROUNDS rounds (default 1) with the order
// rotated per round; a table of all at the end. The garbage collector's counts and pause
// times come from bench/support/heap-sampler.mjs, preloaded into the manager (GC counts only,
// no profile).
//
// Run: node --import ./scripts/register-ts.mjs bench/manager-process.ts [instances=1000]
// Node flags of the manager: BENCH_NODE_FLAGS (one set; default the Dockerfile's, "" for none)
// or BENCH_FLAG_SETS; extra arguments of `start`: BENCH_MANAGER_ARGS="--no-leader-election".
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { MANAGER_NODE_FLAGS } from '../src/cli/image.ts';
import { KubeClient } from '../src/kube/index.ts';
import { startLocalCluster } from '../src/localcluster/index.ts';
import { repositoryRoot } from '../src/localcluster/paths.ts';
import { pool } from './pool.ts';
import { waitForPlans } from './support/bench-operator.ts';
import { requestCounts } from './support/apiserver-metrics.ts';
import { countsSince } from './support/audit.ts';
import { peakRssOf, rssOf, sampleTree } from './support/process-stats.ts';

const total = Number(process.argv[2] ?? 1_000);
const idleSeconds = Number(process.env['BENCH_IDLE_S'] ?? 60);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 1);
const ns = 'default';
const MiB = 1024 * 1024;
const TICKS = 100; // USER_HZ on Linux
const DOCKERFILE_FLAGS = MANAGER_NODE_FLAGS.join(' ');
const SAMPLER = resolve(repositoryRoot(), 'bench/support/heap-sampler.mjs');

const roots = (process.env['BENCH_ROOTS'] ?? repositoryRoot()).split(',').filter((r) => r !== '');
const flagSets = (
  process.env['BENCH_FLAG_SETS'] ??
  process.env['BENCH_NODE_FLAGS'] ??
  DOCKERFILE_FLAGS
)
  .split(';')
  .map((set) => set.split(' ').filter((f) => f !== ''));

interface Variant {
  readonly root: string;
  readonly flags: readonly string[];
  readonly label: string;
}

interface Result {
  readonly label: string;
  readonly seconds: number;
  readonly requestsPerInstance: number;
  readonly mainMsPerInstance: number;
  readonly treeMsPerInstance: number;
  readonly apiserverMsPerInstance: number;
  readonly gcShare: number;
  readonly scavenges: number;
  readonly markCompacts: number;
  readonly peakMiB: number;
  readonly idleMainS: number;
  readonly idleTreeS: number;
  readonly idleGcMs: number;
  readonly idleMarkCompacts: number;
  /** VmRSS at the end of the first idle minute (what the memory reducer gave back). */
  readonly idleEndMiB: number;
  readonly load: number;
}

/** user + system CPU seconds of a process. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
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

/** GC counts and pause ms since the manager started, at each SIGUSR2 (heap-sampler marks). */
type GcTotals = Record<string, number>;
async function gcMark(pid: number, dir: string): Promise<GcTotals> {
  const file = join(dir, `marks-${pid}.tsv`);
  const count = (): number => readFileSync(file, 'utf8').trim().split('\n').length;
  const before = count();
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 100 && count() === before; i++) await sleep(20);
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  const head = (lines[0] ?? '').split('\t');
  const last = (lines[lines.length - 1] ?? '').split('\t');
  return Object.fromEntries(head.map((h, i) => [h, Number(last[i] ?? 0)]));
}

const gcMs = (a: GcTotals, b: GcTotals): number =>
  ['scavenge_ms', 'markcompact_ms', 'incremental_ms', 'weakcb_ms'].reduce(
    (sum, k) => sum + (b[k] ?? 0) - (a[k] ?? 0),
    0,
  );

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function runVariant(variant: Variant): Promise<Result> {
  const cluster = await startLocalCluster({ onProgress: (l) => console.error(l) });
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  const client = new KubeClient(kc);
  const gcDir = mkdtempSync(join(tmpdir(), 'planwright-gc-'));
  const manager = spawn(
    process.execPath,
    [
      ...variant.flags,
      '--import',
      SAMPLER,
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
      cwd: variant.root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        PLANWRIGHT_LOG_LEVEL: 'warn',
        HEAP_SAMPLER_DIR: gcDir,
        // BENCH_HEAP_PROFILE=1: allocation profiles too, one per window (startup, burst, the
        // 5 s after COMPLETE, the first idle minute, the rest), in the directory printed.
        HEAP_SAMPLER_PROFILE: process.env['BENCH_HEAP_PROFILE'] === '1' ? '1' : '0',
        // BENCH_HEAP_SNAPSHOT=1: a heap snapshot at the same moments (slow; profiling only).
        HEAP_SAMPLER_SNAPSHOT: process.env['BENCH_HEAP_SNAPSHOT'] === '1' ? '1' : '0',
        HEAP_SAMPLER_TICK_MS: '0',
      },
    },
  );
  let log = '';
  manager.stdout.on('data', (c: Buffer) => (log = (log + c.toString()).slice(-20_000)));
  manager.stderr.on('data', (c: Buffer) => (log = (log + c.toString()).slice(-20_000)));
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
                tasks: [
                  { name: 'all', kind: 'Apply', spec: { resources: Object.keys(templates) } },
                ],
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
        await sleep(500);
      }
    }
    await sleep(2_000);
    const startRss = rssOf(pid);
    const before = await requestCounts(cluster, { subresources: true });
    const cpuBefore = cpuSeconds(pid);
    const treeBefore = sampleTree(pid).cpuSeconds;
    const { kubeApiServer, etcd } = cluster.pids;
    const apiCpuBefore = cpuSeconds(kubeApiServer);
    const etcdCpuBefore = cpuSeconds(etcd);
    const workerCpuBefore = new Map(children(pid).map((w) => [w, cpuSeconds(w)] as const));
    const loadBefore = loadavg()[0] ?? 0;
    const gcBefore = await gcMark(pid, gcDir);
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
    const gcBusy = await gcMark(pid, gcDir);
    const cpuBusy = cpuSeconds(pid) - cpuBefore;
    const treeBusy = sampleTree(pid).cpuSeconds - treeBefore;
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
    const seconds = (finished - started) / 1000;
    const requestsPerInstance = (all - benchRequests) / total;
    const busyGcMs = gcMs(gcBefore, gcBusy);
    console.log(`\n== ${variant.label} (GC marks and profiles: ${gcDir})`);
    console.log(`instances: ${total} (3 ConfigMaps each, one Apply step)`);
    console.log(`creates done after: ${((created - started) / 1000).toFixed(1)} s`);
    console.log(`all COMPLETE after: ${seconds.toFixed(1)} s`);
    console.log(
      `requests per Instance by Planwright: ${requestsPerInstance.toFixed(2)} (${all} in all, ${benchRequests} by the bench: creates + LIST/WATCH until COMPLETE)`,
    );
    console.log(
      `manager RSS: ${(startRss / MiB).toFixed(0)} MiB before the Instances, peak (VmHWM) ${(peak / MiB).toFixed(0)} MiB, now ${(now / MiB).toFixed(0)} MiB`,
    );
    console.log(
      `render workers (separate processes): ${workers.size}, peak RSS ${[...workers.values()].map((v) => `${(v / MiB).toFixed(0)} MiB`).join(', ') || '-'}`,
    );
    const perInstance = (s: number): string => `${((s * 1000) / total).toFixed(2)} ms`;
    console.log(
      `CPU per Instance: main process ${perInstance(cpuBusy)} (GC pauses ${((100 * busyGcMs) / 1000 / cpuBusy).toFixed(0)} %: ${(gcBusy['scavenge'] ?? 0) - (gcBefore['scavenge'] ?? 0)} scavenges, ${(gcBusy['markcompact'] ?? 0) - (gcBefore['markcompact'] ?? 0)} mark-compacts), render workers ${perInstance(workerCpuBusy)}, kube-apiserver ${perInstance(apiCpuBusy)}, etcd ${perInstance(etcdCpuBusy)} (load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after)`,
    );
    console.log('by verb/resource (bench creates, LIST and WATCH included):');
    for (const [k, v] of busy) console.log(`  ${k.padEnd(40)} ${v}`);
    clearInterval(sampler);
    let idleMainS = 0;
    let idleTreeS = 0;
    let idleGcMs = 0;
    let idleMarkCompacts = 0;
    let idleEndMiB = now / MiB;
    if (idleSeconds > 0) {
      // The first idle minute starts 5 s after COMPLETE (as in vs-kudo): what the burst leaves.
      await sleep(Math.max(0, 5_000 - (performance.now() - finished)));
      const idleBefore = await requestCounts(cluster, { subresources: true });
      const gcIdleBefore = await gcMark(pid, gcDir);
      const cpuIdle = cpuSeconds(pid);
      const treeIdle = sampleTree(pid).cpuSeconds;
      const threadsBefore = threadCpu(pid);
      await sleep(idleSeconds * 1000);
      const gcIdleAfter = await gcMark(pid, gcDir);
      idleMainS = ((cpuSeconds(pid) - cpuIdle) * 60) / idleSeconds;
      idleTreeS = ((sampleTree(pid).cpuSeconds - treeIdle) * 60) / idleSeconds;
      idleGcMs = gcMs(gcIdleBefore, gcIdleAfter);
      idleMarkCompacts = (gcIdleAfter['markcompact'] ?? 0) - (gcIdleBefore['markcompact'] ?? 0);
      idleEndMiB = rssOf(pid) / MiB;
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
        `first idle ${idleSeconds} s (from 5 s after COMPLETE): main process CPU ${idleMainS.toFixed(2)} s per minute, process tree ${idleTreeS.toFixed(2)} s; GC pauses ${idleGcMs.toFixed(0)} ms (${idleMarkCompacts} mark-compacts); API writes: ${idle.map(([k, v]) => `${k} ${v}`).join(', ') || 'none'} (lease renewals included)`,
      );
      console.log(`idle CPU per minute by thread: ${byThread}`);
    }
    return {
      label: variant.label,
      seconds,
      requestsPerInstance,
      mainMsPerInstance: (cpuBusy * 1000) / total,
      treeMsPerInstance: (treeBusy * 1000) / total,
      apiserverMsPerInstance: (apiCpuBusy * 1000) / total,
      gcShare: busyGcMs / 1000 / cpuBusy,
      scavenges: (gcBusy['scavenge'] ?? 0) - (gcBefore['scavenge'] ?? 0),
      markCompacts: (gcBusy['markcompact'] ?? 0) - (gcBefore['markcompact'] ?? 0),
      peakMiB: peak / MiB,
      idleMainS,
      idleTreeS,
      idleGcMs,
      idleMarkCompacts,
      idleEndMiB,
      load: (loadBefore + loadAfter) / 2,
    };
  } finally {
    manager.kill('SIGTERM');
    await exited;
    client.close();
    await cluster.stop();
  }
}

const variants: Variant[] = [];
for (const root of roots)
  for (const flags of flagSets)
    variants.push({
      root,
      flags,
      label: `${roots.length > 1 ? `${root} ` : ''}${flags.join(' ') || '(no flags)'}`,
    });
const results: Result[] = [];
for (let round = 0; round < rounds; round++) {
  // Rotated per round: no variant always runs first (or last) on a warming machine.
  for (let i = 0; i < variants.length; i++) {
    const v = variants[(i + round) % variants.length] as Variant;
    results.push(await runVariant(v));
  }
}
console.log(
  `\n| variant | COMPLETE s | main ms/Inst | tree ms/Inst | apiserver ms/Inst | GC pauses % of main | scavenges | mark-compacts | main VmHWM MiB | 1st idle min main s | tree s | idle GC ms (MC) | RSS after idle min MiB | load |`,
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of results)
  console.log(
    `| ${r.label} | ${r.seconds.toFixed(1)} | ${r.mainMsPerInstance.toFixed(2)} | ${r.treeMsPerInstance.toFixed(2)} | ${r.apiserverMsPerInstance.toFixed(2)} | ${(100 * r.gcShare).toFixed(0)} | ${r.scavenges} | ${r.markCompacts} | ${r.peakMiB.toFixed(0)} | ${r.idleMainS.toFixed(2)} | ${r.idleTreeS.toFixed(2)} | ${r.idleGcMs.toFixed(0)} (${r.idleMarkCompacts}) | ${r.idleEndMiB.toFixed(0)} | ${r.load.toFixed(1)} |`,
  );
