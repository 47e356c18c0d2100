// What starting Planwright costs: CPU seconds of the short processes users and tests start
// again and again (a `kubectl kudo` command, `planwright start` up to its controllers), and
// the manager's resident memory once idle, for this checkout's dist/ beside a baseline
// checkout's dist/ in the same run, on one bare local control plane. The two are
// interleaved (A B, B A, …) so that drift of the machine falls on both alike; each figure is
// the median of BENCH_ROUNDS.
//
// Run: npm run build && node --import ./scripts/register-ts.mjs bench/startup.ts <baseline>
//   <baseline>: another checkout with `npm install && npm run build` done (e.g. a `git
//   worktree` of the commit to compare with); BENCH_ROUNDS (default 7)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureBuiltCli, DIST } from '../test/integration/cli/built-cli.ts';
import { KUDO_PACKAGES_DIR } from '../test/support/shared.ts';
import { startLocalCluster } from '../src/localcluster/index.ts';
import { freeLoopbackPort } from '../src/localcluster/ports.ts';
import { sleep } from '../src/runtime/time.ts';
import { startPlanwrightProcess } from './support/planwright-process.ts';
import { cpuSecondsOf, reapedChildrenCpuSeconds, rssOf } from './support/process-stats.ts';
import { formatTable, mib, ratio } from './support/table.ts';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 7);
const baselineRoot = process.argv[2];
if (baselineRoot === undefined || !existsSync(join(baselineRoot, 'dist', 'main.js'))) {
  console.error(
    'usage: bench/startup.ts <baseline checkout>: a checkout with `npm run build` done there ' +
      `(${baselineRoot === undefined ? 'none given' : `${baselineRoot}/dist/main.js is missing`})`,
  );
  process.exit(2);
}
await ensureBuiltCli();

interface Side {
  readonly name: string;
  readonly dist: string;
}
const SIDES: readonly Side[] = [
  { name: 'this checkout', dist: DIST },
  { name: 'baseline', dist: join(resolve(baselineRoot), 'dist') },
];

const ZOOKEEPER = join(KUDO_PACKAGES_DIR, 'zookeeper');
/** `kubectl kudo` commands, each repeatable against the same cluster. */
const COMMANDS: readonly (readonly string[])[] = [
  ['version'],
  ['package', 'list', 'parameters', ZOOKEEPER],
  ['get', 'instances'],
  ['plan', 'status', '--instance', 'absent'],
  ['init', '--crd-only'],
];

const cluster = await startLocalCluster({ mode: 'bare', onProgress: (l) => console.error(l) });
/** figure name → side name → samples */
const samples = new Map<string, Map<string, number[]>>();
const record = (figure: string, side: Side, value: number): void => {
  const bySide = samples.get(figure) ?? new Map<string, number[]>();
  samples.set(figure, bySide);
  bySide.set(side.name, [...(bySide.get(side.name) ?? []), value]);
};

/** CPU seconds of one `kubectl-kudo` run (spawnSync reaps it: its CPU lands in ours). */
function cliCpu(side: Side, args: readonly string[]): number {
  const before = reapedChildrenCpuSeconds();
  const run = spawnSync(
    process.execPath,
    [join(side.dist, 'cli', 'kubectl-kudo.js'), ...args, '--kubeconfig', cluster.kubeconfigPath],
    { encoding: 'utf8' },
  );
  if (run.status === null || run.error) throw new Error(`${args.join(' ')}: ${run.stderr}`);
  return reapedChildrenCpuSeconds() - before;
}

async function startFigures(side: Side): Promise<void> {
  const started = Date.now();
  const manager = await startPlanwrightProcess({
    kubeconfig: cluster.kubeconfigPath,
    webhookPort: await freeLoopbackPort(),
    main: join(side.dist, 'main.js'),
  });
  try {
    record('`planwright start --install`: CPU-s to ready', side, cpuSecondsOf(manager.pid));
    record('`planwright start --install`: s to ready (wall)', side, (Date.now() - started) / 1e3);
    await sleep(5_000);
    record('`planwright start`: resident MiB, 5 s idle', side, Number(mib(rssOf(manager.pid))));
  } finally {
    await manager.stop();
  }
}

try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
    for (const side of order) {
      for (const args of COMMANDS)
        record(`\`kubectl kudo ${args[0]} ${args[1] ?? ''}\`: CPU-s`, side, cliCpu(side, args));
      await startFigures(side);
    }
    console.error(`round ${round + 1} of ${ROUNDS} done`);
  }
} finally {
  await cluster.stop();
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};
const rows = [...samples].map(([figure, bySide]) => {
  const [a, b] = SIDES.map((s) => median(bySide.get(s.name) ?? []));
  return [figure, (a ?? NaN).toFixed(2), (b ?? NaN).toFixed(2), ratio(a ?? 0, b ?? 0)];
});
console.log(formatTable(['figure (median)', SIDES[0]!.name, SIDES[1]!.name, 'ratio'], rows));
