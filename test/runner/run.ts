// The runner's work (main.ts checks the shared data first, then hands over here).
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheRoot, repositoryRoot } from '../../src/localcluster/paths.ts';
import { ensureBuiltCli } from '../integration/cli/built-cli.ts';
import { TEST_IMAGE_DIR_ENV, writeTestImage } from '../support/planwright-image.ts';
import { TEST_TOOLS, type TestGroup } from '../support/tools.ts';
import { BACKGROUND_NICENESS, jestGroups, workersFrom, type JestGroup } from './plan.ts';
import { run, stopChildren } from './process.ts';
import {
  formatFiles,
  formatSteps,
  readJestResult,
  type Counts,
  type FileTime,
  type StepTime,
} from './report.ts';

const root = repositoryRoot();
const started = Date.now();
const steps: StepTime[] = [];
const files: FileTime[] = [];
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
const background = { niceness: BACKGROUND_NICENESS };

/**
 * Typecheck, lint and format check, beside the rest. tsc and prettier keep what they learnt in
 * the cache folder, per checkout: tsc's incremental state follows every file's dependencies, and
 * prettier's cache is keyed by each file's content and prettier's own options, so neither can
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
      node(
        'typecheck',
        [
          'node_modules/typescript/bin/tsc',
          '-p',
          'tsconfig.json',
          '--noEmit',
          '--incremental',
          '--tsBuildInfoFile',
          join(cache, 'typecheck.tsbuildinfo'),
        ],
        background,
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

/**
 * Builds the Go tools: each lane in order, the lanes side by side. A group may start once every
 * tool it or an earlier group needs is built.
 */
function buildTools(last: TestGroup): Record<TestGroup, Promise<unknown>> {
  const order: readonly TestGroup[] = ['unit', 'integration', 'e2e'];
  const lanes = new Map<string, Promise<unknown>>();
  const built: Record<TestGroup, Promise<unknown>[]> = { unit: [], integration: [], e2e: [] };
  // Only what the selected groups, or a group before them, need (e2e's tools take longest).
  const wanted = TEST_TOOLS.filter((t) => order.indexOf(t.neededBy) <= order.indexOf(last));
  for (const tool of wanted) {
    const done = (lanes.get(tool.lane) ?? Promise.resolve()).then(() =>
      step(`build ${tool.name}`, async () => {
        await tool.ensure((line) => void process.stdout.write(`[build ${tool.name}] ${line}\n`));
        return true;
      }),
    );
    lanes.set(tool.lane, done);
    built[tool.neededBy].push(done);
  }
  const unit = Promise.all(built.unit);
  const integration = Promise.all([unit, ...built.integration]);
  return { unit, integration, e2e: Promise.all([integration, ...built.e2e]) };
}

async function jest(group: JestGroup, runDir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const output = join(runDir, `jest-${group.name}.json`);
  const args = [
    '--experimental-vm-modules',
    '--no-warnings=ExperimentalWarning',
    'node_modules/jest/bin/jest.js',
    '--selectProjects',
    ...group.projects,
    '--maxWorkers',
    String(group.workers),
    '--json',
    '--outputFile',
    output,
    // Transforms are keyed by content: a warm machine compiles only what changed.
    '--cacheDirectory',
    join(cacheRoot(), 'jest'),
  ];
  if (group.files) args.push('--runTestsByPath', ...group.files);
  if (group.exclude?.length) {
    // Replaces jest's default ignore list, so node_modules goes back in.
    args.push('--testPathIgnorePatterns', '/node_modules/', ...group.exclude.map(escapeRegExp));
  }
  await step(
    `jest ${group.name} (${group.workers} worker${group.workers > 1 ? 's' : ''})`,
    async () => {
      const ok = await node(group.name, args, { env, niceness: group.niceness });
      const result = await readJestResult(output, group.name, root);
      if (!result) return false;
      counts.passed += result.counts.passed;
      counts.failed += result.counts.failed;
      counts.skipped += result.counts.skipped;
      files.push(...result.files);
      return ok;
    },
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Runs what `argv` selects (see main.ts) and exits with the outcome. */
export async function runTests(argv: readonly string[]): Promise<never> {
  const groups = jestGroups(workersFrom(process.env));
  const wanted = argv.filter((a) => !a.startsWith('--'));
  const unknown = wanted.filter((w) => !groups.some((g) => g.name === w));
  if (unknown.length > 0) {
    process.stderr.write(
      `npm test: no group ${unknown.join(', ')} (groups: ${groups.map((g) => g.name).join(', ')})\n`,
    );
    process.exit(2);
  }
  const selected = groups.filter((g) => wanted.length === 0 || wanted.includes(g.name));
  stopOnSignals();
  const runDir = await mkdtemp(join(tmpdir(), 'planwright-test-run-'));
  const env: NodeJS.ProcessEnv = { ...process.env, [TEST_IMAGE_DIR_ENV]: join(runDir, 'image') };

  const checked = argv.includes('--no-checks') ? Promise.resolve() : checks();
  // The tests' own build of dist/ (`tsc -p tsconfig.build.json`, stamped): they find it fresh.
  const built = step('build (npm run build)', async () => {
    await ensureBuiltCli();
    return true;
  });
  const tools = buildTools(
    selected.some((g) => g.projects.includes('e2e'))
      ? 'e2e'
      : selected.some((g) => g.projects.includes('integration'))
        ? 'integration'
        : 'unit',
  );
  const needsImage = selected.some((g) => g.projects.includes('e2e'));
  const image = needsImage
    ? built.then(() =>
        step('build Planwright image', async () => {
          await writeTestImage(join(runDir, 'image'));
          return true;
        }),
      )
    : Promise.resolve();
  const after: Record<JestGroup['name'], Promise<unknown>> = {
    unit: tools.unit,
    integration: Promise.all([built, tools.integration]),
    e2e: Promise.all([built, tools.e2e, image]),
    serial: Promise.resolve(),
  };
  const parallel = selected.filter((g) => g.name !== 'serial');
  await Promise.all(parallel.map((g) => after[g.name].then(() => jest(g, runDir, env))));
  const serial = selected.find((g) => g.name === 'serial');
  if (serial) await Promise.all([built, tools.e2e, image]).then(() => jest(serial, runDir, env));
  await checked;
  await rm(runDir, { recursive: true, force: true });

  process.stdout.write(`${formatSteps(steps)}\n${formatFiles(files)}\n`);
  const total = ((Date.now() - started) / 1000).toFixed(0);
  process.stdout.write(
    `\nnpm test: ${total} s; ${failures === 0 ? 'every step passed' : `${failures} step(s) failed`}\n` +
      `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`,
  );
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
