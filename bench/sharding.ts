// Sharded reconciling: one replica against three, side by side in one run, each configuration
// on a fresh bare control plane, every replica a `planwright start` process on this machine
// (the Dockerfile's node flags, leader election and the shard ring on, one client-certificate
// user shared by the replicas of a configuration, the bench client another). The first replica
// registers the webhooks (`--install`); the others are replicas of the same installation (same
// namespace) that serve webhooks nobody calls and share the shards.
//
// Per configuration (`<replicas>x<shards>`): the replicas start and share the shards evenly;
// N Instances of the 3-ConfigMap plan are created; measured until all are COMPLETE: wall time,
// the replicas' requests per Instance (audit log), each replica's peak RSS (VmHWM of its main
// process) and the sum, each replica's RSS once it runs its shards and before any Instance
// (its fixed part) and what its peak added to that (the Instances' part, which sharding
// divides), the Instances each replica holds (its `planwright_shard_instances`), and its heap
// in use at the end (`nodejs_heap_size_used_bytes`). Then recovery: a replica that
// does not serve the webhooks is killed with SIGKILL (one replica: the only one, and a new
// process is started in its place, as a Deployment would) and the Instances of its shards (at
// most N/3, the same number in every configuration) get a parameter change at once; measured:
// until the killed replica's shard Leases name live replicas, and until those Instances are all
// COMPLETE again.
//
// Run: node --import ./scripts/register-ts.mjs bench/sharding.ts
//   BENCH_N=10000 (default)  BENCH_CONFIGS=1x1,1x12,3x12 (default)
//   BENCH_BASELINE=<checkout>: first, one replica of an earlier Planwright run from
//   <checkout>/dist/main.js (`npm run build` there first; no --shards), ratios to it
import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../src/kube/index.ts';
import { startLocalCluster, type LocalCluster } from '../src/localcluster/index.ts';
import { ADMIN_USER } from '../src/localcluster/pki.ts';
import { freeLoopbackPort } from '../src/localcluster/ports.ts';
import { shardOf } from '../src/runtime/index.ts';
import { sleep } from '../src/runtime/time.ts';
import { auditLogArgs, AuditTally, countsSince, total } from './support/audit.ts';
import {
  configMapTemplates,
  createBenchOperator,
  createInstances,
  waitForPlans,
} from './support/bench-operator.ts';
import type { LoggedChild } from './support/child.ts';
import { localMetrics, startPlanwrightProcess } from './support/planwright-process.ts';
import { peakRssOf, rssOf } from './support/process-stats.ts';
import { formatTable, mib, ratio } from './support/table.ts';
import { pool } from './pool.ts';

const N = Number(process.env['BENCH_N'] ?? 10_000);
const BASELINE = process.env['BENCH_BASELINE'];

interface Config {
  readonly replicas: number;
  readonly shards: number;
  /** `dist/main.js` of another checkout (the baseline); this one's by default. */
  readonly main?: string;
}

const CONFIGS: Config[] = [
  ...(BASELINE ? [{ replicas: 1, shards: 1, main: join(BASELINE, 'dist', 'main.js') }] : []),
  ...(process.env['BENCH_CONFIGS'] ?? '1x1,1x12,3x12').split(',').map((c) => {
    const [replicas = '1', shards = '1'] = c.split('x');
    return { replicas: Number(replicas), shards: Number(shards) };
  }),
];
const NS = 'default';
const USER = 'planwright-replicas';
const progress = (line: string): void => void process.stderr.write(`[bench sharding] ${line}\n`);

interface Replica {
  readonly child: LoggedChild;
  readonly port: number;
  readonly install: boolean;
}

interface Result {
  readonly name: string;
  readonly seconds: number;
  readonly perInstance: number;
  readonly peakRss: readonly number[];
  /** Each replica's RSS once it runs its shards, before any Instance: its fixed part. */
  readonly idleRss: readonly number[];
  readonly heapUsed: readonly number[];
  readonly instances: readonly number[];
  readonly takeoverMs: number;
  readonly recoverMs: number;
  readonly recovered: number;
}

function metric(text: string, name: string, labels = ''): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)$/.exec(line);
    if (m && m[1] === name && (m[2] ?? '').includes(labels)) sum += Number(m[3]);
  }
  return sum;
}

/** shard → holder of its Lease. */
async function holders(admin: KubeClient): Promise<Map<string, string>> {
  const list = await admin.request<{
    items: Array<{ metadata: { name: string }; spec?: { holderIdentity?: string } }>;
  }>({
    path: `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`,
    query: { labelSelector: 'planwright.dev/shard-ring-role=shard' },
  });
  return new Map(
    list.items.map((l) => [
      l.metadata.name.replace(/^planwright-shard-/, ''),
      l.spec?.holderIdentity ?? '',
    ]),
  );
}

/** The shards each replica reports it runs (`planwright_shard_owned`). */
async function owned(replicas: readonly Replica[]): Promise<string[][]> {
  return Promise.all(
    replicas.map(async (r) => {
      const text = await localMetrics(r.port).catch(() => '');
      return [...text.matchAll(/^planwright_shard_owned\{[^}]*shard="(\d+)"[^}]*\} 1$/gm)].map(
        (m) => m[1] ?? '',
      );
    }),
  );
}

/** One replica of `config` (`install`: it registers the webhooks). */
async function startReplica(
  kubeconfig: string,
  config: Config,
  install: boolean,
): Promise<Replica> {
  const port = await freeLoopbackPort();
  const child = await startPlanwrightProcess({
    kubeconfig,
    webhookPort: port,
    leaderElection: true,
    install,
    ...(config.main ? { main: config.main } : { args: ['--shards', String(config.shards)] }),
  });
  return { child, port, install };
}

async function startReplicas(kubeconfig: string, config: Config): Promise<Replica[]> {
  const replicas: Replica[] = [];
  for (let i = 0; i < config.replicas; i++) {
    replicas.push(await startReplica(kubeconfig, config, i === 0));
  }
  // An earlier version has no shards to wait for.
  if (config.main) return replicas;
  // Every shard run, each replica its even share (the others join a lease duration after start).
  const floor = Math.floor(config.shards / config.replicas);
  for (;;) {
    const byReplica = await owned(replicas);
    const counts = byReplica.map((s) => s.length);
    if (
      counts.reduce((a, b) => a + b, 0) === config.shards &&
      counts.every((c) => c === floor || c === floor + 1)
    )
      return replicas;
    await sleep(500);
  }
}

async function run(config: Config): Promise<Result> {
  const name = config.main ? 'baseline, 1 replica' : `${config.replicas} × ${config.shards}`;
  const workDir = await mkdtemp(join(tmpdir(), 'bench-sharding-'));
  const audit = await auditLogArgs(workDir, [USER, ADMIN_USER]);
  const cluster: LocalCluster = await startLocalCluster({
    mode: 'bare',
    apiServerExtraArgs: audit.args,
    onProgress: progress,
  });
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  const admin = new KubeClient(kc);
  let replicas: Replica[] = [];
  try {
    const user = await cluster.createUser(USER, ['system:masters']);
    replicas = await startReplicas(user.kubeconfigPath, config);
    progress(`${name}: replicas running their shards (load ${loadavg()[0]?.toFixed(1)})`);
    await createBenchOperator(admin, NS, configMapTemplates());
    await sleep(2_000);
    const idleRss = replicas.map((r) => rssOf(r.child.pid));
    const tally = new AuditTally(audit.logPath);
    await tally.refresh();
    const before = tally.snapshot(USER);
    const started = performance.now();
    await createInstances(admin, NS, N);
    await waitForPlans(admin, NS, N);
    const seconds = (performance.now() - started) / 1000;
    await sleep(5_000);
    await tally.refresh();
    const requests = total(countsSince(tally.snapshot(USER), before));
    const texts = await Promise.all(replicas.map((r) => localMetrics(r.port)));
    const result = {
      peakRss: replicas.map((r) => peakRssOf(r.child.pid)),
      idleRss,
      heapUsed: texts.map((t) => metric(t, 'nodejs_heap_size_used_bytes')),
      instances: texts.map((t) => metric(t, 'planwright_shard_instances')),
    };
    progress(
      `${name}: ${N} COMPLETE after ${seconds.toFixed(1)} s, ${(requests / N).toFixed(2)} requests per Instance, peak RSS ${result.peakRss.map((b) => mib(b)).join('/')} MiB (load ${loadavg()[0]?.toFixed(1)})`,
    );
    const recovery = await recover(kc, admin, replicas, config, user.kubeconfigPath);
    replicas = recovery.replicas;
    return { name, seconds, perInstance: requests / N, ...result, ...recovery };
  } finally {
    await Promise.all(replicas.map((r) => r.child.stop()));
    admin.close();
    await cluster.stop();
  }
}

/**
 * SIGKILL of a replica that does not serve the webhooks (the only one when alone: a new one
 * replaces it), a parameter change on the Instances of its shards (at most N/3), then until
 * its shards' Leases name live replicas and until those Instances are COMPLETE again.
 */
async function recover(
  kc: KubeConfig,
  admin: KubeClient,
  replicas: Replica[],
  config: Config,
  kubeconfig: string,
): Promise<{ replicas: Replica[]; takeoverMs: number; recoverMs: number; recovered: number }> {
  const victim = replicas.length > 1 ? replicas[replicas.length - 1]! : replicas[0]!;
  // An earlier version runs everything on its one replica (shard "0" of one).
  const victimShards = config.main ? ['0'] : ((await owned([victim]))[0] ?? []);
  const before = config.main ? await leaderHolder(admin) : await holders(admin);
  const victimIdentity = before.get(victimShards[0] ?? '') ?? '';
  const names = Array.from({ length: N }, (_, i) => `b${i}`)
    .filter((n) => victimShards.includes(shardOf(`${NS}/${n}`, config.shards)))
    .slice(0, Math.floor(N / 3));
  const killedAt = performance.now();
  victim.child.proc.kill('SIGKILL');
  await victim.child.exited;
  // Watched from the kill on: the Leases naming live replicas again.
  let takeoverMs = -1;
  const takeover = (async () => {
    for (;;) {
      // An earlier version holds the leader Lease instead.
      const now = await (config.main ? leaderHolder(admin) : holders(admin)).catch(
        () => new Map<string, string>(),
      );
      if (victimShards.every((s) => (now.get(s) ?? '') !== victimIdentity && now.get(s) !== '')) {
        takeoverMs = performance.now() - killedAt;
        return;
      }
      await sleep(100);
    }
  })();
  let rest = replicas.filter((r) => r !== victim);
  // Alone: a new process in its place, as a Deployment would start one.
  if (rest.length === 0) rest = [await startReplica(kubeconfig, config, true)];
  await pool(names.length, 16, (i) => patchRetrying(admin, names[i] ?? ''));
  await waitForInstances(kc, admin, names);
  await takeover;
  const recoverMs = performance.now() - killedAt;
  progress(
    `recovery: ${victimShards.length} shards taken over after ${takeoverMs.toFixed(0)} ms, ${names.length} Instances COMPLETE again after ${recoverMs.toFixed(0)} ms`,
  );
  return { replicas: rest, takeoverMs, recoverMs, recovered: names.length };
}

/**
 * A parameter change on Instance `name`; a webhook call that timed out (a replica just
 * started, syncing its caches on a loaded machine) is tried again, up to 5 times.
 */
async function patchRetrying(admin: KubeClient, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await admin.request({
        method: 'PATCH',
        path: `/apis/kudo.dev/v1beta1/namespaces/${NS}/instances/${name}`,
        body: { spec: { parameters: { V: 'after-kill' } } },
        contentType: 'application/merge-patch+json',
      });
      return;
    } catch (err) {
      if (attempt >= 5 || !String(err).includes('failed calling webhook')) throw err;
      await sleep(1_000);
    }
  }
}

/** The leader Lease's holder, as "shard 0" (an earlier version without shards). */
async function leaderHolder(admin: KubeClient): Promise<Map<string, string>> {
  const lease = await admin.request<{ spec?: { holderIdentity?: string } }>({
    path: `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/planwright-leader`,
  });
  return new Map([['0', lease.spec?.holderIdentity ?? '']]);
}

/** Until every Instance named has its latest scheduled run COMPLETE. */
async function waitForInstances(
  _kc: KubeConfig,
  admin: KubeClient,
  names: readonly string[],
): Promise<void> {
  const wanted = new Set(names);
  for (;;) {
    const list = await admin.request<{
      items: Array<{
        metadata: { name?: string };
        spec?: { planExecution?: { uid?: string } };
        status?: { planStatus?: Record<string, { uid?: string; status?: string }> };
      }>;
    }>({ path: `/apis/kudo.dev/v1beta1/namespaces/${NS}/instances` });
    const done = list.items.filter((i) => {
      if (!wanted.has(i.metadata.name ?? '')) return false;
      const ps = i.status?.planStatus?.['deploy'];
      return ps?.status === 'COMPLETE' && ps.uid === i.spec?.planExecution?.uid;
    }).length;
    if (done === wanted.size) return;
    await sleep(1_000);
  }
}

const results: Result[] = [];
for (const config of CONFIGS) results.push(await run(config));
const base = results[0];
const each = (r: Result, f: (i: number) => string): string =>
  r.peakRss.map((_, i) => f(i)).join(' / ');
const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
/** What a replica's peak added to what it held before the Instances. */
const grown = (r: Result, i: number): number => (r.peakRss[i] ?? 0) - (r.idleRss[i] ?? 0);
const maxGrown = (r: Result): number => Math.max(...r.peakRss.map((_, i) => grown(r, i)));
process.stdout.write(
  `\nSharding, N=${N} Instances of a 3-ConfigMap plan, replicas × shards (load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')})\n\n`,
);
process.stdout.write(
  formatTable(
    [
      '',
      ...results.map((r) => r.name),
      ...(base ? results.slice(1).map((r) => `${r.name} / ${base.name}`) : []),
    ],
    [
      [
        'time to all COMPLETE (s)',
        ...results.map((r) => r.seconds.toFixed(1)),
        ...results.slice(1).map((r) => ratio(r.seconds, base?.seconds ?? 0)),
      ],
      [
        'requests per Instance (all replicas)',
        ...results.map((r) => r.perInstance.toFixed(2)),
        ...results.slice(1).map((r) => ratio(r.perInstance, base?.perInstance ?? 0)),
      ],
      [
        'peak RSS per replica (MiB)',
        ...results.map((r) => each(r, (i) => mib(r.peakRss[i] ?? 0))),
        ...results
          .slice(1)
          .map((r) => ratio(Math.max(...r.peakRss), Math.max(...(base?.peakRss ?? [0])))),
      ],
      [
        'RSS per replica before the Instances (MiB)',
        ...results.map((r) => each(r, (i) => mib(r.idleRss[i] ?? 0))),
        ...results.slice(1).map(() => '–'),
      ],
      [
        'peak RSS − RSS before, per replica (MiB)',
        ...results.map((r) => each(r, (i) => mib(grown(r, i)))),
        ...results.slice(1).map((r) => ratio(maxGrown(r), base ? maxGrown(base) : 0)),
      ],
      [
        'peak RSS summed (MiB)',
        ...results.map((r) => mib(sum(r.peakRss))),
        ...results.slice(1).map((r) => ratio(sum(r.peakRss), sum(base?.peakRss ?? []))),
      ],
      [
        'heap in use at the end, per replica (MiB)',
        ...results.map((r) => each(r, (i) => mib(r.heapUsed[i] ?? 0))),
        ...results
          .slice(1)
          .map((r) => ratio(Math.max(...r.heapUsed), Math.max(...(base?.heapUsed ?? [0])))),
      ],
      [
        'Instances held per replica',
        ...results.map((r) => each(r, (i) => String(r.instances[i] ?? 0))),
        ...results.slice(1).map(() => '–'),
      ],
      [
        'killed replica: its shards taken over (s)',
        ...results.map((r) => (r.takeoverMs / 1000).toFixed(1)),
        ...results.slice(1).map(() => '–'),
      ],
      [
        'killed replica: its Instances COMPLETE again (s)',
        ...results.map((r) => `${(r.recoverMs / 1000).toFixed(1)} (${r.recovered})`),
        ...results.slice(1).map((r) => ratio(r.recoverMs, base?.recoverMs ?? 0)),
      ],
    ],
  ),
);
