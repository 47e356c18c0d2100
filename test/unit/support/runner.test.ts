// The test runner's own logic (test/runner): how it shares files out among its jest lanes,
// which files run alone, what it remembers between runs, and what it reads back from jest.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repositoryRoot } from '../../../src/localcluster/paths.ts';
import {
  emptyHistory,
  readHistory,
  updatedHistory,
  writeHistory,
  type History,
} from '../../runner/history.ts';
import {
  BACKGROUND_NICENESS,
  FILLER_NICENESS,
  planLanes,
  SERIAL_FILES,
  workersFrom,
  type TestFile,
} from '../../runner/plan.ts';
import { formatFailures, formatFiles, formatSteps, readJestResult } from '../../runner/report.ts';

describe('workersFrom', () => {
  it('takes the defaults, and PLANWRIGHT_TEST_WORKERS overrides some lanes', () => {
    const defaults = workersFrom({});
    expect(defaults.unit).toBeGreaterThanOrEqual(1);
    expect(workersFrom({ PLANWRIGHT_TEST_WORKERS: 'integration=6,late=2' })).toEqual({
      ...defaults,
      integration: 6,
      late: 2,
    });
  });

  it('refuses what it cannot read, naming the item', () => {
    expect(() => workersFrom({ PLANWRIGHT_TEST_WORKERS: 'unit=0' })).toThrow('"unit=0"');
    expect(() => workersFrom({ PLANWRIGHT_TEST_WORKERS: 'lint=2' })).toThrow('"lint=2"');
  });
});

const ALL = ['unit', 'integration', 'e2e', 'serial'] as const;
const widths = { unit: 2, integration: 2, e2e: 1, late: 1 };

function historyOf(files: Record<string, number>, starts: History['starts'] = {}): History {
  const history = emptyHistory();
  Object.assign(history.files, files);
  Object.assign(history.starts, starts);
  return history;
}

describe('planLanes', () => {
  const files: TestFile[] = [
    { file: 'test/integration/a.test.ts', project: 'integration' },
    { file: 'test/integration/b.test.ts', project: 'integration' },
    { file: 'test/integration/c.test.ts', project: 'integration' },
    { file: 'test/e2e/x.test.ts', project: 'e2e' },
    { file: 'test/e2e/y.test.ts', project: 'e2e' },
    ...SERIAL_FILES.map((s) => ({
      file: s.file,
      project: s.file.split('/')[1] as 'integration' | 'e2e',
    })),
  ];

  it('runs every file once: the serial files last and alone, the rest in the lanes that may take them', () => {
    const lanes = planLanes(ALL, files, widths, emptyHistory());
    const planned = lanes.flatMap((l) => l.files ?? []);
    expect([...planned].sort()).toEqual(files.map((f) => f.file).sort());
    const serial = lanes.find((l) => l.name === 'serial');
    expect(serial).toMatchObject({ workers: 1, after: 'parallel' });
    expect(serial?.files).toEqual(SERIAL_FILES.map((s) => s.file));
    for (const lane of lanes) {
      for (const file of lane.files ?? []) {
        const project = files.find((f) => f.file === file)?.project;
        expect({ file, lane: lane.name, allowed: lane.projects.includes(project!) }).toEqual({
          file,
          lane: lane.name,
          allowed: true,
        });
      }
    }
    for (const { file } of SERIAL_FILES)
      expect(existsSync(join(repositoryRoot(), file))).toBe(true);
  });

  it('has every serial file wait at the lane gate (the runner starts the lane early)', () => {
    for (const { file } of SERIAL_FILES) {
      const text = readFileSync(join(repositoryRoot(), file), 'utf8');
      expect({ file, waits: /\bwaitForLaneGate\(/.test(text) }).toEqual({ file, waits: true });
    }
  });

  it('starts the serial lane shared clusters only for the projects of files that use them', () => {
    const serial = planLanes(ALL, files, widths, emptyHistory()).find((l) => l.name === 'serial');
    const projectOf = (file: string): string => file.split('/')[1]!;
    expect(serial?.projects).toEqual(
      ['integration', 'e2e'].filter((p) => SERIAL_FILES.some((s) => projectOf(s.file) === p)),
    );
    expect(serial?.sharedClusters).toEqual(
      ['integration', 'e2e'].filter((p) =>
        SERIAL_FILES.some((s) => projectOf(s.file) === p && s.ownCluster !== true),
      ),
    );
    // Today: hostile.test.ts uses its worker's bare cluster, sharding.test.ts starts its own.
    expect(serial?.sharedClusters).toEqual(['integration']);
  });

  it('shares files out longest first to the worker free first, counting when each lane starts', () => {
    const history = historyOf(
      {
        'test/integration/a.test.ts': 400_000,
        'test/integration/b.test.ts': 100_000,
        'test/integration/c.test.ts': 90_000,
        'test/e2e/x.test.ts': 300_000,
        'test/e2e/y.test.ts': 200_000,
      },
      { builds: 10_000, image: 50_000, unit: 100_000 },
    );
    const lanes = planLanes(['unit', 'integration', 'e2e'], files, widths, history);
    const of = (name: string) => lanes.find((l) => l.name === name)?.files;
    // a (400 s) and b take the two integration workers; x the e2e worker (free at 50 s); y
    // (200 s) the late worker, free at 100 s, before the e2e worker (350 s); c the integration
    // worker that finishes b at 110 s.
    expect(of('integration')).toEqual([
      'test/integration/a.test.ts',
      'test/integration/b.test.ts',
      'test/integration/c.test.ts',
    ]);
    expect(of('e2e')).toEqual(['test/e2e/x.test.ts']);
    expect(of('late')).toEqual(['test/e2e/y.test.ts']);
    expect(lanes.find((l) => l.name === 'late')?.after).toBe('unit');
    // Only the projects of its files: no bare cluster for a late lane of e2e files alone.
    expect(lanes.find((l) => l.name === 'late')?.projects).toEqual(['e2e']);
    expect(lanes.some((l) => l.name === 'serial')).toBe(false);
  });

  it('runs the CPU-bound work below the waiting work, the checks lowest of all', () => {
    const lanes = planLanes(ALL, files, widths, emptyHistory());
    expect(lanes.map((l) => [l.name, l.niceness])).toEqual(
      lanes.map((l) => [l.name, l.name === 'unit' ? BACKGROUND_NICENESS : 0]),
    );
    expect(BACKGROUND_NICENESS).toBeGreaterThan(0);
    expect(FILLER_NICENESS).toBeGreaterThan(BACKGROUND_NICENESS);
  });
});

describe('the history', () => {
  it("keeps a file's last figure when it failed this time (how long it took to fail is no plan)", () => {
    const next = updatedHistory(
      historyOf({ b: 5_000, c: 9_000 }),
      [
        { file: 'b', group: 'e2e', ms: 256_000, ok: false },
        { file: 'c', group: 'e2e', ms: 8_000, ok: true },
        { file: 'd', group: 'e2e', ms: 1_000, ok: false },
      ],
      {},
    );
    expect({ ...next.files }).toEqual({ b: 5_000, c: 8_000 });
  });

  it('keeps what this run measured over what the last one did, and survives a bad file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'runner-history-'));
    try {
      const file = join(dir, 'history.json');
      expect(await readHistory(file)).toEqual(emptyHistory());
      await writeFile(file, '{"files": {"a": "slow", "b": 5, "__proto__": 7}, "starts": 3}');
      const read = await readHistory(file);
      expect(Object.getPrototypeOf(read.files)).toBeNull();
      // A path named __proto__ is a key like any other, not the map's prototype.
      expect(Object.entries(read.files)).toEqual([
        ['b', 5],
        ['__proto__', 7],
      ]);
      const next = updatedHistory(
        historyOf({ b: 5, c: 9 }, { unit: 1 }),
        [{ file: 'b', group: 'integration', ms: 7.4, ok: true }],
        { image: 2 },
      );
      await writeHistory(next, file);
      const again = await readHistory(file);
      expect({ ...again.files }).toEqual({ b: 7, c: 9 });
      expect(again.starts).toEqual({ unit: 1, image: 2 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the planned order', () => {
  it('sorts a lane as planned, files it does not name after the named ones', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'runner-order-'));
    const saved = process.env['PLANWRIGHT_TEST_ORDER'];
    try {
      const order = join(dir, 'order.json');
      await writeFile(order, JSON.stringify(['/r/b.test.ts', '/r/a.test.ts']));
      process.env['PLANWRIGHT_TEST_ORDER'] = order;
      const { default: PlannedOrder } = await import('../../runner/sequencer.js');
      const sorted = new PlannedOrder().sort([
        { path: '/r/c.test.ts' },
        { path: '/r/a.test.ts' },
        { path: '/r/b.test.ts' },
      ]);
      expect(sorted.map((t) => t.path)).toEqual(['/r/b.test.ts', '/r/a.test.ts', '/r/c.test.ts']);
    } finally {
      if (saved === undefined) delete process.env['PLANWRIGHT_TEST_ORDER'];
      else process.env['PLANWRIGHT_TEST_ORDER'] = saved;
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the report', () => {
  it("reads counts and per-file wall times from jest's JSON, a file that did not run as a failure", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'runner-test-'));
    try {
      const file = join(dir, 'jest.json');
      await writeFile(
        file,
        JSON.stringify({
          numPassedTests: 5,
          numFailedTests: 1,
          numPendingTests: 1,
          numTodoTests: 0,
          numRuntimeErrorTestSuites: 1,
          testResults: [
            { name: '/repo/test/a.test.ts', startTime: 1_000, endTime: 3_500, status: 'passed' },
            {
              name: '/repo/test/b.test.ts',
              startTime: 1_000,
              endTime: 9_000,
              status: 'failed',
              assertionResults: [
                { fullName: 'b works', status: 'passed' },
                {
                  fullName: 'b waits › for the plan',
                  status: 'failed',
                  failureMessages: [
                    '\u001b[31mError: timed out\u001b[39m\n\n    at wait (b.ts:1)\n',
                  ],
                },
              ],
            },
            {
              name: '/repo/test/c.test.ts',
              startTime: 1_000,
              endTime: 1_100,
              status: 'failed',
              message: 'Cannot find module ./gone',
              assertionResults: [],
            },
          ],
        }),
      );
      const result = await readJestResult(file, 'integration', '/repo');
      expect(result?.counts).toEqual({ passed: 5, failed: 2, skipped: 1 });
      expect(result?.files).toEqual([
        { file: 'test/a.test.ts', group: 'integration', ms: 2_500, ok: true },
        { file: 'test/b.test.ts', group: 'integration', ms: 8_000, ok: false },
        { file: 'test/c.test.ts', group: 'integration', ms: 100, ok: false },
      ]);
      // The failures close the report, colours stripped, so a log cut to its tail names them.
      expect(formatFailures(result?.failures ?? []).split('\n')).toEqual([
        '',
        'failed (2):',
        '✗ test/b.test.ts › b waits › for the plan',
        '    Error: timed out',
        '        at wait (b.ts:1)',
        '✗ test/c.test.ts (the file failed to run)',
        '    Cannot find module ./gone',
      ]);
      expect(formatFailures([])).toBe('');
      const table = formatFiles(result?.files ?? []).split('\n');
      // Slowest first, a failed file marked.
      expect(table[2]).toMatch(/^\s+8\.0 s {2}✗ integration test\/b\.test\.ts$/);
      expect(table[3]).toMatch(/^\s+2\.5 s {4}integration test\/a\.test\.ts$/);
      expect(await readJestResult(join(dir, 'missing.json'), 'unit', '/repo')).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('lists the steps in the order they started, with their span', () => {
    const text = formatSteps([
      { name: 'jest unit', startMs: 5_000, endMs: 65_000, ok: true },
      { name: 'typecheck', startMs: 0, endMs: 40_000, ok: false },
    ]);
    expect(text.split('\n').slice(2)).toEqual([
      '   40.0 s  ✗ typecheck  (0 → 40 s)',
      '   60.0 s    jest unit  (5 → 65 s)',
    ]);
  });
});

describe('npm test without the shared data', () => {
  it('stops at once with one line naming the folder and what to do', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', './scripts/register-ts.mjs', 'test/runner/main.ts'],
      {
        cwd: repositoryRoot(),
        encoding: 'utf8',
        env: { ...process.env, PLANWRIGHT_SHARED_DIR: '/nonexistent-shared' },
        timeout: 60_000,
      },
    );
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      expect.stringContaining(
        '/nonexistent-shared (the folder "shared" beside the clone), but there is no such folder',
      ),
    ]);
  });
});
