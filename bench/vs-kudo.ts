// Planwright against KUDO 0.19's manager, side by side on the same workload, each on a fresh
// local control plane, one bench client creating and polling for both:
//  * configmaps: N Instances of a deploy plan applying 3 ConfigMaps (N=100 and N=1000);
//  * deployments (workloads mode, kwok nodes): BENCH_WAIT_N Instances applying one Deployment
//    with minReadySeconds, so each plan waits and KUDO's status rewriting while it waits shows.
// For each: time until all COMPLETE, the manager's requests per Instance (from the apiserver's
// audit log: every manager has its own client-certificate user, apart from the bench client's),
// peak RSS of the manager's process tree (the sum of its processes' VmRSS, sampled every
// 250 ms from the burst's start until 5 s after COMPLETE) next to the main process's own
// VmHWM (the kernel's peak, since its start), CPU of the tree (/proc), then an idle window:
// API writes and CPU per minute. Both run without leader election (KUDO 0.19's manager has
// none by default). Idle is measured twice: the first minute after the workload settled
// (what a burst leaves behind: Planwright's idle render workers exit, garbage collection) and
// a later minute (steady state), each with wakeups (voluntary context switches of all
// threads: every time a thread sleeps again after waking). BENCH_IDLE_TRACE=1 prints the
// tree's CPU and wakeups every 5 s of both windows.
//
// KUDO's manager is built from bench/kudo/go.mod once (≈ 2.5 min cold on 2 cores, cached under
// ~/.cache/planwright/kudo) and runs out-of-cluster with KUBECONFIG and KUDO_CERT_DIR. Its
// webhook server listens on port 443 (no setting in KUDO's main) and metrics on :8080: run the
// bench as root (fine on a bench machine; not something the product ever needs).
// Planwright runs as users run it: `node dist/main.js start` (tsc build, made if stale) with
// the Dockerfile's node flags (BENCH_NODE_FLAGS to change them, "" for none).
//
// Run: node --import ./scripts/register-ts.mjs bench/vs-kudo.ts [N=100]
//   BENCH_WORKLOADS=configmaps,deployments (default both)  BENCH_WAIT_N=50
//   BENCH_MIN_READY_S=30  BENCH_IDLE_S=60 (each idle window)  BENCH_STEADY_GAP_S=0 (between
//   the two windows)  BENCH_IDLE_TRACE=1  BENCH_ONLY=planwright|kudo
//   BENCH_LOG_FILE=<path> (each manager's log tail to <path>.<user>; with
//   BENCH_NODE_FLAGS="... --trace-gc" it shows Planwright's garbage collections)
//   BENCH_N=10000 BENCH_ONLY=planwright BENCH_WORKLOADS=configmaps  (Planwright at scale)
//   BENCH_BASELINE=<checkout>: an earlier Planwright too, run from <checkout>/dist/main.js
//   (`npm run build` there first), before this one in every workload; ratios are to it
//   BENCH_PROFILE_DIR=/tmp/p: a CPU profile of kube-apiserver over the first BENCH_PROFILE_S
//   (10) seconds of the burst, summarised there by `go tool pprof -top` (the apiserver runs
//   with --profiling=true then; off otherwise). For the manager add `--cpu-prof
//   --cpu-prof-dir=<dir>` to BENCH_NODE_FLAGS.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import tls from 'node:tls';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { installCrds } from '../src/cli/install.ts';
import { KubeClient } from '../src/kube/index.ts';
import { startLocalCluster, type ClusterMode } from '../src/localcluster/index.ts';
import { ADMIN_USER } from '../src/localcluster/pki.ts';
import { freeLoopbackPort } from '../src/localcluster/ports.ts';
import { sleep } from '../src/runtime/time.ts';
import { SHARED_DIR } from '../test/support/shared.ts';
import { auditLogArgs, AuditTally, countsSince, total } from './support/audit.ts';
import {
  configMapTemplates,
  createBenchOperator,
  createInstances,
  deploymentTemplates,
  waitForPlans,
} from './support/bench-operator.ts';
import {
  ensureKudoManager,
  KUDO_VERSION,
  KUDO_WEBHOOK_PORT,
  startKudoManager,
} from './support/kudo-manager.ts';
import { startPlanwrightProcess } from './support/planwright-process.ts';
import { peakRssOf, TreeSampler } from './support/process-stats.ts';
import { apiServerCpuProfile, pprofTop } from './support/pprof.ts';
import { cpuSecondsOf } from './support/process-stats.ts';
import { formatTable, mib, ratio } from './support/table.ts';

const N = Number(process.env['BENCH_N'] ?? process.argv[2] ?? 100);
const WAIT_N = Number(process.env['BENCH_WAIT_N'] ?? 50);
const MIN_READY_S = Number(process.env['BENCH_MIN_READY_S'] ?? 30);
const IDLE_S = Number(process.env['BENCH_IDLE_S'] ?? 60);
const STEADY_GAP_S = Number(process.env['BENCH_STEADY_GAP_S'] ?? 0);
const IDLE_TRACE = process.env['BENCH_IDLE_TRACE'] === '1';
/** After all COMPLETE, before the idle window: trailing status writes belong to the workload. */
const SETTLE_S = 5;
const NS = 'default';
const workloads = (process.env['BENCH_WORKLOADS'] ?? 'configmaps,deployments').split(',');
const only = process.env['BENCH_ONLY'];
const profileDir = process.env['BENCH_PROFILE_DIR'];
const PROFILE_S = Number(process.env['BENCH_PROFILE_S'] ?? 10);
const baseline = process.env['BENCH_BASELINE'];
const progress = (line: string): void => console.error(line);

interface Contestant {
  readonly name: string;
  /** The manager's client-certificate user (system:masters, so RBAC does not differ). */
  readonly user: string;
  start(kubeconfig: string, workDir: string, admin: KubeClient): Promise<RunningManager>;
}

interface RunningManager {
  readonly pid: number;
  log(): string;
  stop(): Promise<void>;
}

const planwright: Contestant = {
  name: 'Planwright',
  // Its admission webhook lets its own service account write what users may not.
  user: `system:serviceaccount:${NS}:planwright`,
  async start(kubeconfig) {
    return startPlanwrightProcess({ kubeconfig, webhookPort: await freeLoopbackPort() });
  },
};

/** Planwright as built in another checkout (an earlier commit), for before/after in one run. */
const planwrightAt = (checkout: string): Contestant => ({
  name: 'Planwright (baseline)',
  user: planwright.user,
  async start(kubeconfig) {
    return startPlanwrightProcess({
      kubeconfig,
      webhookPort: await freeLoopbackPort(),
      main: join(checkout, 'dist', 'main.js'),
    });
  },
});

const kudo = (binary: string): Contestant => ({
  name: `KUDO ${KUDO_VERSION.replace(/^v/, '').replace(/\.0$/, '')}`,
  user: 'kudo-manager',
  async start(kubeconfig, workDir, admin) {
    if (await tlsAnswers(KUDO_WEBHOOK_PORT))
      throw new Error(
        `Port ${KUDO_WEBHOOK_PORT} is taken before KUDO's manager starts (a manager left over ` +
          `from an interrupted run?): find it with \`ss -ltnp 'sport = :${KUDO_WEBHOOK_PORT}'\` ` +
          'and stop it, then run the bench again.',
      );
    await installCrds(admin, undefined, join(SHARED_DIR, 'kudo-reference', 'crds'));
    const k = await startKudoManager({ binary, kubeconfig, workDir });
    try {
      await admin.request({
        method: 'POST',
        path: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
        body: k.webhookConfiguration,
      });
      // Ready: the webhook server answers TLS. KUDO sets no logger for controller-runtime, so
      // nothing says when the caches have synced: Instances created before are reconciled
      // anyway (the informers list them), and a few seconds more make it fair.
      const deadline = Date.now() + 120_000;
      while (!(await tlsAnswers(KUDO_WEBHOOK_PORT))) {
        if (k.proc.exitCode !== null)
          throw new Error(`KUDO's manager exited (${k.proc.exitCode}):\n${k.log()}`);
        if (Date.now() > deadline) throw new Error(`KUDO's manager not ready:\n${k.log()}`);
        await sleep(250);
      }
      await sleep(3_000);
    } catch (err) {
      await k.stop();
      throw err;
    }
    return k;
  },
});

/** Whether a TLS server on 127.0.0.1:`port` completes a handshake. */
function tlsAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      socket.end();
      resolve(true);
    });
    socket.setTimeout(2_000, () => socket.destroy());
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(false));
  });
}

interface Workload {
  readonly name: string;
  readonly mode: ClusterMode;
  readonly instances: number;
  readonly templates: Record<string, string>;
  readonly describe: string;
}

interface Result {
  /** The bench client's creates (each through the manager's admission webhook). */
  readonly createSeconds: number;
  readonly seconds: number;
  readonly requests: Array<[string, number]>;
  /** From its start until the first Instance (Planwright's include its CRD and webhook install). */
  readonly startupRequests: number;
  readonly peakRss: number;
  /** Processes in the tree when its RSS peaked (Planwright: main + render/admission workers). */
  readonly processesAtPeak: number;
  /** VmHWM of the main process alone (the tree also holds Planwright's render workers). */
  readonly mainPeakRss: number;
  readonly cpuSeconds: number;
  /**
   * The tree's CPU from all COMPLETE to the end of the first idle window (the settling
   * seconds included): what the burst leaves behind, wherever it falls.
   */
  readonly afterCompleteCpuSeconds: number;
  /** The main process alone (the rest of the tree: Planwright's render and admission workers). */
  readonly mainCpuSeconds: number;
  /** kube-apiserver's and etcd's CPU over the same span (the bench client's share included). */
  readonly apiServerCpuSeconds: number;
  readonly etcdCpuSeconds: number;
  /** This process (the bench client: creates, LIST + WATCH until COMPLETE) over the same span. */
  readonly clientCpuSeconds: number;
  /** The first idle window (right after settling) and a later one. */
  readonly idle: IdleWindow;
  readonly steady: IdleWindow;
  readonly benchRequests: number;
  /** Load average (1 min) at the end of the run. */
  readonly load: number;
}

interface IdleWindow {
  readonly writes: Array<[string, number]>;
  readonly cpuSeconds: number;
  readonly mainCpuSeconds: number;
  readonly wakeups: number;
  readonly mainWakeups: number;
}

/** Measures an idle window of IDLE_S on the manager's tree (and its writes, from the audit log). */
async function idleWindow(
  label: string,
  sampler: TreeSampler,
  tally: AuditTally,
  user: string,
): Promise<IdleWindow> {
  await tally.refresh();
  const writesBefore = tally.snapshot(user);
  const begin = sampler.sample();
  const wakeupsBefore = sampler.wakeups;
  const mainWakeupsBefore = sampler.mainWakeups;
  progress(`${label}: idle for ${IDLE_S} s`);
  for (let t = 0; t < IDLE_S; t += 5) {
    const before = sampler.sample();
    const w = sampler.wakeups;
    await sleep(Math.min(5, IDLE_S - t) * 1000);
    const after = sampler.sample();
    if (IDLE_TRACE)
      progress(
        `  +${String(t + 5).padStart(3)} s  CPU ${((after.cpuSeconds - before.cpuSeconds) * 1000).toFixed(0).padStart(4)} ms ` +
          `(main ${((after.mainCpuSeconds - before.mainCpuSeconds) * 1000).toFixed(0).padStart(4)})  ` +
          `wakeups ${String(sampler.wakeups - w).padStart(5)}  processes ${after.processes}`,
      );
  }
  const end = sampler.sample();
  await tally.refresh();
  return {
    writes: countsSince(tally.snapshot(user), writesBefore).filter(
      ([k]) => total([[k, 1]], true) > 0,
    ),
    cpuSeconds: end.cpuSeconds - begin.cpuSeconds,
    mainCpuSeconds: end.mainCpuSeconds - begin.mainCpuSeconds,
    wakeups: sampler.wakeups - wakeupsBefore,
    mainWakeups: sampler.mainWakeups - mainWakeupsBefore,
  };
}

async function run(contestant: Contestant, workload: Workload): Promise<Result> {
  const workDir = await mkdtemp(join(tmpdir(), 'bench-vs-kudo-'));
  const audit = await auditLogArgs(workDir, [contestant.user, ADMIN_USER]);
  const cluster = await startLocalCluster({
    mode: workload.mode,
    apiServerExtraArgs: audit.args,
    onProgress: progress,
    ...(profileDir ? { profiling: true } : {}),
  });
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  const admin = new KubeClient(kc);
  let manager: RunningManager | undefined;
  let sampler: TreeSampler | undefined;
  try {
    const user = await cluster.createUser(contestant.user, ['system:masters']);
    manager = await contestant.start(user.kubeconfigPath, workDir, admin);
    sampler = new TreeSampler(manager.pid);
    // The first calls of a freshly registered webhook can time out on a loaded machine.
    for (let attempt = 1; ; attempt++) {
      try {
        await createBenchOperator(admin, NS, workload.templates);
        break;
      } catch (err) {
        if (attempt >= 5 || !String(err).includes('failed calling webhook')) throw err;
        progress(`${contestant.name}: creating the bench operator failed (${String(err)}); again`);
        await admin
          .request({
            method: 'DELETE',
            path: `/apis/kudo.dev/v1beta1/namespaces/${NS}/operators/bench`,
          })
          .catch(() => undefined);
        await sleep(2_000);
      }
    }
    // Let the webhook registrations and the OperatorVersion reach every cache before timing.
    await sleep(2_000);
    const tally = new AuditTally(audit.logPath);
    await tally.refresh();
    const before = tally.snapshot(contestant.user);
    const benchBefore = tally.snapshot(ADMIN_USER);
    sampler.resetPeak();
    const cpuBefore = sampler.sample().cpuSeconds;
    const mainCpuBefore = cpuSecondsOf(manager.pid);
    const apiCpuBefore = cpuSecondsOf(cluster.pids.kubeApiServer);
    const etcdCpuBefore = cpuSecondsOf(cluster.pids.etcd);
    const clientCpuBefore = process.cpuUsage();
    progress(`${contestant.name}: creating ${workload.instances} Instances (${workload.name})`);
    const profile = profileDir
      ? apiServerCpuProfile(
          kc,
          PROFILE_S,
          join(profileDir, `apiserver-${contestant.user.replace(/\W+/g, '-')}.pprof`),
        )
      : undefined;
    const started = performance.now();
    await createInstances(admin, NS, workload.instances);
    const createSeconds = (performance.now() - started) / 1000;
    await waitForPlans(admin, NS, workload.instances);
    const seconds = (performance.now() - started) / 1000;
    progress(`${contestant.name}: all COMPLETE after ${seconds.toFixed(1)} s`);
    const cpuAtComplete = sampler.sample().cpuSeconds;
    await sleep(SETTLE_S * 1000);
    await tally.refresh();
    const after = tally.snapshot(contestant.user);
    const cpuAfter = sampler.sample().cpuSeconds;
    const mainCpuSeconds = cpuSecondsOf(manager.pid) - mainCpuBefore;
    const apiServerCpuSeconds = cpuSecondsOf(cluster.pids.kubeApiServer) - apiCpuBefore;
    const etcdCpuSeconds = cpuSecondsOf(cluster.pids.etcd) - etcdCpuBefore;
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const clientCpuSeconds = (clientCpu.user + clientCpu.system) / 1e6;
    if (profile) {
      const path = await profile;
      const top = await pprofTop(cluster.binaries.kubeApiServer, path);
      await writeFile(`${path}.txt`, top);
      progress(`${contestant.name}: kube-apiserver profile ${path} (top: ${path}.txt)`);
    }
    const peakRss = sampler.peakRss;
    const processesAtPeak = sampler.processesAtPeak;
    const mainPeakRss = peakRssOf(manager.pid);
    const idle = await idleWindow(
      `${contestant.name}: first minute after settling`,
      sampler,
      tally,
      contestant.user,
    );
    const afterCompleteCpuSeconds = sampler.sample().cpuSeconds - cpuAtComplete;
    await sleep(STEADY_GAP_S * 1000);
    const steady = await idleWindow(
      `${contestant.name}: a later minute`,
      sampler,
      tally,
      contestant.user,
    );
    return {
      createSeconds,
      seconds,
      requests: countsSince(after, before),
      startupRequests: total(before),
      peakRss,
      processesAtPeak,
      mainPeakRss,
      cpuSeconds: cpuAfter - cpuBefore,
      afterCompleteCpuSeconds,
      mainCpuSeconds,
      apiServerCpuSeconds,
      etcdCpuSeconds,
      clientCpuSeconds,
      idle,
      steady,
      benchRequests: total(countsSince(tally.snapshot(ADMIN_USER), benchBefore)),
      load: loadavg()[0] ?? 0,
    };
  } catch (err) {
    if (manager) console.error(`${contestant.name} log (tail):\n${manager.log().slice(-5_000)}`);
    throw err;
  } finally {
    if (process.env['BENCH_LOG_FILE'] && manager)
      await writeFile(
        `${process.env['BENCH_LOG_FILE']}.${contestant.user.replace(/\W/g, '_')}`,
        manager.log(),
      );
    sampler?.stop();
    await manager?.stop();
    admin.close();
    await cluster.stop();
    await rm(workDir, { recursive: true, force: true });
  }
}

function report(workload: Workload, results: ReadonlyArray<[Contestant, Result]>): void {
  const n = workload.instances;
  const perMinute = IDLE_S / 60;
  const rows: Row[] = [
    ['all COMPLETE after', (r) => r.seconds, (v) => `${v.toFixed(1)} s`],
    ['  creates done after (webhook)', (r) => r.createSeconds, (v) => `${v.toFixed(1)} s`],
    ['manager requests per Instance', (r) => total(r.requests) / n, (v) => v.toFixed(2)],
    ['  of which writes', (r) => total(r.requests, true) / n, (v) => v.toFixed(2)],
    ['manager requests at startup', (r) => r.startupRequests, (v) => v.toFixed(0)],
    ['manager peak RSS (process tree, sampled)', (r) => r.peakRss, (v) => `${mib(v)} MiB`],
    ['  processes at that peak', (r) => r.processesAtPeak, (v) => v.toFixed(0)],
    ['  main process alone (VmHWM)', (r) => r.mainPeakRss, (v) => `${mib(v)} MiB`],
    ['manager CPU', (r) => r.cpuSeconds, (v) => `${v.toFixed(1)} s`],
    ['  per Instance', (r) => (r.cpuSeconds * 1000) / n, (v) => `${v.toFixed(1)} ms`],
    [
      '  main process per Instance',
      (r) => (r.mainCpuSeconds * 1000) / n,
      (v) => `${v.toFixed(1)} ms`,
    ],
    [
      'kube-apiserver CPU per Instance',
      (r) => (r.apiServerCpuSeconds * 1000) / n,
      (v) => `${v.toFixed(1)} ms`,
    ],
    ['etcd CPU per Instance', (r) => (r.etcdCpuSeconds * 1000) / n, (v) => `${v.toFixed(1)} ms`],
    [
      'bench client CPU per Instance',
      (r) => (r.clientCpuSeconds * 1000) / n,
      (v) => `${v.toFixed(1)} ms`,
    ],
    [
      `CPU in the ${SETTLE_S + IDLE_S} s after COMPLETE`,
      (r) => r.afterCompleteCpuSeconds,
      (v) => `${v.toFixed(2)} s`,
    ],
    ...idleRows('idle, first minute after settling', (r) => r.idle, perMinute),
    ...idleRows(
      `idle, a later minute (${SETTLE_S + IDLE_S + STEADY_GAP_S} s after COMPLETE)`,
      (r) => r.steady,
      perMinute,
    ),
    ['load average (1 min) at the end', (r) => r.load, (v) => v.toFixed(2)],
  ];
  const header = [`${workload.name}, N=${n}`, ...results.map(([c]) => c.name)];
  // Every other contestant against the first.
  for (const [c] of results.slice(1)) header.push(`${c.name} / ${results[0]?.[0].name}`);
  const body = rows.map(([label, get, fmt]) => {
    const values = results.map(([, r]) => get(r));
    const cells = [label, ...values.map(fmt)];
    for (const v of values.slice(1)) cells.push(ratio(v, values[0] ?? 0));
    return cells;
  });
  console.log(`\n${workload.describe}`);
  console.log(formatTable(header, body));
  for (const [c, r] of results) {
    console.log(
      `${c.name} requests by verb/resource (${n} Instances; the bench client made ${r.benchRequests}: creates + LIST/WATCH until COMPLETE):`,
    );
    for (const [k, v] of r.requests) console.log(`  ${k.padEnd(44)} ${v}`);
    for (const w of [r.idle, r.steady])
      if (w.writes.length > 0)
        console.log(`  idle writes: ${w.writes.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  }
}

type Row = [string, (r: Result) => number, (v: number) => string];

function idleRows(title: string, window: (r: Result) => IdleWindow, perMinute: number): Row[] {
  const seconds = (v: number): string => `${v.toFixed(2)} s`;
  return [
    [`${title}: API writes/min`, (r) => total(window(r).writes) / perMinute, (v) => v.toFixed(1)],
    [`  CPU/min (process tree)`, (r) => window(r).cpuSeconds / perMinute, seconds],
    [`  CPU/min (main process)`, (r) => window(r).mainCpuSeconds / perMinute, seconds],
    [`  wakeups/min (process tree)`, (r) => window(r).wakeups / perMinute, (v) => v.toFixed(0)],
    [`  wakeups/min (main process)`, (r) => window(r).mainWakeups / perMinute, (v) => v.toFixed(0)],
  ];
}

const WORKLOADS: Record<string, Workload> = {
  configmaps: {
    name: 'configmaps',
    mode: 'bare',
    instances: N,
    templates: configMapTemplates(),
    describe: `${N} Instances of a deploy plan applying 3 ConfigMaps (bare control plane):`,
  },
  deployments: {
    name: 'deployments',
    mode: 'workloads',
    instances: WAIT_N,
    templates: deploymentTemplates(MIN_READY_S),
    describe:
      `${WAIT_N} Instances of a deploy plan applying a Deployment (1 replica, minReadySeconds ` +
      `${MIN_READY_S}: each plan waits; workloads mode, kwok nodes):`,
  },
};

for (const w of workloads) {
  if (!(w in WORKLOADS))
    throw new Error(
      `BENCH_WORKLOADS: unknown workload "${w}"; use ${Object.keys(WORKLOADS).join(', ')}`,
    );
}
const contestants: Contestant[] = [];
if (baseline !== undefined && only !== 'kudo') contestants.push(planwrightAt(baseline));
if (only !== 'kudo') contestants.push(planwright);
if (only !== 'planwright') {
  if (process.getuid?.() !== 0)
    throw new Error(
      `KUDO's manager listens on port ${KUDO_WEBHOOK_PORT}: run the bench as root, or with ` +
        'BENCH_ONLY=planwright.',
    );
  contestants.push(kudo(await ensureKudoManager({ onProgress: progress })));
}
for (const name of workloads) {
  const workload = WORKLOADS[name] as Workload;
  const results: Array<[Contestant, Result]> = [];
  for (const c of contestants) results.push([c, await run(c, workload)]);
  report(workload, results);
}
