// The runner's work (main.ts checks the shared data first, then hands over here).
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { cacheRoot, repositoryRoot } from '../../src/localcluster/paths.ts';
import { ensureBuiltCli } from '../integration/cli/built-cli.ts';
import { LANE_GATE_ENV, SHARED_CLUSTERS_ENV } from '../support/lane-gate.ts';
import { TEST_IMAGE_DIR_ENV, writeTestImage } from '../support/planwright-image.ts';
import { TEST_TOOLS, type TestGroup } from '../support/tools.ts';
import { loadHistory, updatedHistory, writeHistory, type History } from './history.ts';
import { FILLER_NICENESS, planLanes, workersFrom, type JestLane, type TestFile } from './plan.ts';
import { run, stopChildren } from './process.ts';
import {
  formatFailures,
  formatFiles,
  formatSteps,
  readJestResult,
  type Counts,
  type Failure,
  type FileTime,
  type StepTime,
} from './report.ts';

const root = repositoryRoot();
const started = Date.now();
const steps: StepTime[] = [];
const files: FileTime[] = [];
const failedTests: Failure[] = [];
const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
let failures = 0;

/** Runs `work` as a named step: timed, and a failure counted (never thrown). */
async function step(name: string, work: () => Promise<boolean>): Promise<boolean> {
  const startMs = Date.now() - started;
  let ok = false;
  try {
    ok = await work();
  } catch (err) {
    process.stdout.write(`[${name}] ${err instanceof Error ? err.message : String(err)}\n`);
  }
  steps.push({ name, startMs, endMs: Date.now() - started, ok });
  if (!ok) failures++;
  return ok;
}

const node = (
  prefix: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; niceness?: number } = {},
): Promise<boolean> =>
  run(prefix, process.execPath, args, { cwd: root, ...options }).then((c) => c === 0);
const background = { niceness: FILLER_NICENESS };

/**
 * tsc's incremental state, inside the checkout: tsc names the files in it relative to where it
 * lies, so the same state serves every clone (a fresh clone at another path included), and each
 * file's entry carries a hash of its text, so a changed file, and every file that depends on it,
 * is checked again.
 */
const TYPECHECK_STATE = join(root, 'node_modules', '.cache', 'planwright', 'typecheck.tsbuildinfo');

/**
 * Runs `work` with `local` seeded from `shared` (the last state any checkout left) when it has
 * none, then leaves its state there for the next checkout (written whole, then renamed).
 */
async function withSharedFile(
  shared: string,
  local: string,
  work: () => Promise<boolean>,
): Promise<boolean> {
  await mkdir(dirname(local), { recursive: true });
  if (!existsSync(local)) await copyFile(shared, local).catch(() => undefined);
  const ok = await work();
  const partial = `${shared}.${process.pid}.partial`;
  await mkdir(dirname(shared), { recursive: true });
  await copyFile(local, partial)
    .then(() => rename(partial, shared))
    .catch(() => rm(partial, { force: true }).catch(() => undefined));
  return ok;
}

/**
 * Typecheck, lint and format check, beside the tests' last part (see runTests). tsc and prettier
 * keep what they learnt: tsc's incremental state follows every file's dependencies (shared by
 * all checkouts, see TYPECHECK_STATE), and prettier's cache (per checkout: it names files by
 * absolute path) is keyed by each file's content and prettier's own options, so neither can
 * pass a file it did not check as it is now. ESLint keeps none: its type-aware rules read other
 * files' types, which its cache does not follow.
 */
function checks(): Promise<unknown> {
  const cache = join(
    cacheRoot(),
    'checks',
    createHash('sha256').update(root).digest('hex').slice(0, 12),
  );
  return Promise.all([
    step('typecheck', () =>
      withSharedFile(join(cacheRoot(), 'checks', 'typecheck.tsbuildinfo'), TYPECHECK_STATE, () =>
        node(
          'typecheck',
          [
            'node_modules/typescript/bin/tsc',
            '-p',
            'tsconfig.json',
            '--noEmit',
            '--incremental',
            '--tsBuildInfoFile',
            TYPECHECK_STATE,
          ],
          background,
        ),
      ),
    ),
    step('eslint', () => node('eslint', ['node_modules/eslint/bin/eslint.js', '.'], background)),
    step('prettier', () =>
      node(
        'prettier',
        [
          'node_modules/prettier/bin/prettier.cjs',
          '--check',
          '--log-level',
          'warn',
          '--cache',
          '--cache-strategy',
          'content',
          '--cache-location',
          join(cache, 'prettier'),
          '**/*.{ts,js,mjs,cjs}',
        ],
        background,
      ),
    ),
  ]);
}

/** When each group may start, and whether any tool had to be made (a cold machine). */
type ToolBuilds = Record<TestGroup, Promise<unknown>> & { readonly madeAny: () => boolean };

/**
 * Builds the Go tools: each lane in order, the lanes side by side. A group may start once every
 * tool it or an earlier group needs is built.
 */
function buildTools(last: TestGroup): ToolBuilds {
  const order: readonly TestGroup[] = ['unit', 'integration', 'e2e'];
  const lanes = new Map<string, Promise<unknown>>();
  const built: Record<TestGroup, Promise<unknown>[]> = { unit: [], integration: [], e2e: [] };
  // Only what the selected groups, or a group before them, need (e2e's tools take longest).
  const wanted = TEST_TOOLS.filter((t) => order.indexOf(t.neededBy) <= order.indexOf(last));
  let madeAny = false;
  for (const tool of wanted) {
    const done = (lanes.get(tool.lane) ?? Promise.resolve()).then(() =>
      step(`build ${tool.name}`, async () => {
        // A tool found in the cache says nothing; one being built or fetched reports progress
        // (buildGoBinary's "building … (first run only)", downloads, waiting on a build's lock).
        await tool.ensure((line) => {
          madeAny = true;
          process.stdout.write(`[build ${tool.name}] ${line}\n`);
        });
        return true;
      }),
    );
    lanes.set(tool.lane, done);
    built[tool.neededBy].push(done);
  }
  const unit = Promise.all(built.unit);
  const integration = Promise.all([unit, ...built.integration]);
  return {
    unit,
    integration,
    e2e: Promise.all([integration, ...built.e2e]),
    madeAny: () => madeAny,
  };
}

async function jest(lane: JestLane, runDir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const output = join(runDir, `jest-${lane.name}.json`);
  const args = [
    '--experimental-vm-modules',
    '--no-warnings=ExperimentalWarning',
    'node_modules/jest/bin/jest.js',
    '--selectProjects',
    ...lane.projects,
    '--maxWorkers',
    String(lane.workers),
    '--json',
    '--outputFile',
    output,
    // Transforms are keyed by content: a warm machine compiles only what changed.
    '--cacheDirectory',
    join(cacheRoot(), 'jest'),
  ];
  let laneEnv = env;
  if (lane.files) {
    const order = join(runDir, `order-${lane.name}.json`);
    await writeFile(order, JSON.stringify(lane.files));
    args.push('--testSequencer', join(root, 'test/runner/sequencer.js'));
    args.push('--runTestsByPath', ...lane.files);
    laneEnv = { ...env, PLANWRIGHT_TEST_ORDER: order };
  }
  const width = `${lane.workers} worker${lane.workers > 1 ? 's' : ''}`;
  const count = lane.files ? `, ${lane.files.length} files` : '';
  await step(`jest ${lane.name} (${width}${count})`, async () => {
    const ok = await node(lane.name, args, { env: laneEnv, niceness: lane.niceness });
    const result = await readJestResult(output, lane.name, root);
    if (!result) return false;
    counts.passed += result.counts.passed;
    counts.failed += result.counts.failed;
    counts.skipped += result.counts.skipped;
    files.push(...result.files);
    failedTests.push(...result.failures);
    return ok;
  });
}

/** The test files of a jest project, relative to the repository, as jest itself finds them. */
async function listFiles(project: TestGroup): Promise<TestFile[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--experimental-vm-modules',
      '--no-warnings=ExperimentalWarning',
      'node_modules/jest/bin/jest.js',
      '--selectProjects',
      project,
      '--listTests',
      '--json',
    ],
    { cwd: root, maxBuffer: 8 * 1024 * 1024 },
  );
  const paths = JSON.parse(stdout.slice(stdout.indexOf('['))) as string[];
  return paths
    .map((p) => ({ file: relative(root, p), project }))
    .sort((a, b) => a.file.localeCompare(b.file));
}

const GROUPS = ['unit', 'integration', 'e2e', 'serial'] as const;
type Group = (typeof GROUPS)[number];

/** Runs what `argv` selects (see main.ts) and exits with the outcome. */
export async function runTests(argv: readonly string[]): Promise<never> {
  const widths = workersFrom(process.env);
  const wanted = argv.filter((a) => !a.startsWith('--'));
  const unknown = wanted.filter((w) => !(GROUPS as readonly string[]).includes(w));
  if (unknown.length > 0) {
    process.stderr.write(
      `npm test: no group ${unknown.join(', ')} (groups: ${GROUPS.join(', ')})\n`,
    );
    process.exit(2);
  }
  const selected: Group[] = wanted.length === 0 ? [...GROUPS] : (wanted as Group[]);
  stopOnSignals();
  const runDir = await mkdtemp(join(tmpdir(), 'planwright-test-run-'));
  const env: NodeJS.ProcessEnv = { ...process.env, [TEST_IMAGE_DIR_ENV]: join(runDir, 'image') };

  const history = await loadHistory();
  const projects = (['integration', 'e2e'] as const).filter(
    (p) => selected.includes(p) || selected.includes('serial'),
  );
  const lanes = planLanes(
    selected,
    (await Promise.all(projects.map(listFiles))).flat(),
    widths,
    history,
  );
  for (const lane of lanes) {
    if (lane.files) process.stdout.write(`[plan] ${lane.name}: ${lane.files.join(' ')}\n`);
  }
  const uses = (p: TestGroup): boolean => lanes.some((l) => l.projects.includes(p));
  // The tests' own build of dist/ (see ensureBuiltCli): they find it fresh.
  const built = step('build (esbuild)', async () => {
    await ensureBuiltCli();
    return true;
  });
  const tools = buildTools(uses('e2e') ? 'e2e' : uses('integration') ? 'integration' : 'unit');
  const image = uses('e2e')
    ? built.then(() =>
        step('build Planwright image', async () => {
          await writeTestImage(join(runDir, 'image'));
          return true;
        }),
      )
    : Promise.resolve(true);
  const starts: History['starts'] = {};
  const mark = (key: keyof History['starts']) => () => {
    starts[key] = Date.now() - started;
  };
  const builds = Promise.all([built, tools.integration]).then(mark('builds'));
  const e2eReady = Promise.all([built, tools.e2e, image]).then(mark('image'));
  const ready = (lane: JestLane): Promise<unknown> =>
    lane.projects.includes('e2e')
      ? e2eReady
      : lane.projects.includes('integration')
        ? builds
        : tools.unit;
  const unitLane = lanes.find((l) => l.name === 'unit');
  const unitDone = unitLane
    ? ready(unitLane)
        .then(() => jest(unitLane, runDir, env))
        .then(mark('unit'))
    : Promise.resolve();
  const parallel = lanes
    .filter((l) => l.after !== 'parallel' && l !== unitLane)
    .map((l) =>
      Promise.all([ready(l), l.after === 'unit' ? unitDone : undefined]).then(() =>
        jest(l, runDir, env),
      ),
    );
  // The checks only need CPU and nothing waits for them, so they fill what the tests leave
  // idle: they start once the first lane of cluster tests has ended (until then both cores are
  // busy: started at once, they lengthened those lanes by about their own CPU time), and run
  // beside the rest of the lanes and the serial files at the lowest priority.
  const firstLaneEnded = Promise.race(parallel.length > 0 ? parallel : [unitDone]);
  const checked = argv.includes('--no-checks') ? Promise.resolve() : firstLaneEnded.then(checks);
  // The serial files need the machine to themselves, but their jest process and shared
  // clusters do not: it starts with the checks and sets up while the other lanes end, then
  // waits at the gate (test/support/lane-gate.ts) that opens once they all have.
  const gate = join(runDir, 'serial-gate');
  const serial = (async () => {
    await firstLaneEnded;
    for (const lane of lanes.filter((l) => l.after === 'parallel')) {
      await ready(lane);
      const shared = lane.sharedClusters?.join(',');
      await jest(lane, runDir, {
        ...env,
        [LANE_GATE_ENV]: gate,
        ...(shared === undefined ? {} : { [SHARED_CLUSTERS_ENV]: shared }),
      });
    }
  })();
  try {
    await Promise.all([unitDone, ...parallel]);
  } finally {
    await writeFile(gate, `${new Date().toISOString()}\n`);
  }
  await serial;
  await checked;
  await rm(runDir, { recursive: true, force: true });

  process.stdout.write(
    `${formatSteps(steps)}\n${formatFiles(files)}\n${formatFailures(failedTests)}\n`,
  );
  const total = ((Date.now() - started) / 1000).toFixed(0);
  process.stdout.write(
    `\nnpm test: ${total} s; ${failures === 0 ? 'every step passed' : `${failures} step(s) failed`}\n` +
      `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`,
  );
  // The next run plans its lanes from these figures; the starts only from a whole run that
  // found its tools built: a cold run's starts measure its Go builds (the lanes started at
  // ~1,100 s), and planned from them a warm run would give the lane that starts after the unit
  // files as much work as the ones that start at once.
  const measuredStarts = wanted.length === 0 && !tools.madeAny() ? starts : {};
  await writeHistory(updatedHistory(history, files, measuredStarts)).catch(() => undefined);
  process.exit(failures === 0 && counts.failed === 0 ? 0 : 1);
}

function stopOnSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopChildren();
      process.exit(130);
    });
  }
}
