// The test runner's own logic (test/runner): how wide each group runs, which files run alone,
// and what it reads back from jest to print where the time went.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repositoryRoot } from '../../../src/localcluster/paths.ts';
import { BACKGROUND_NICENESS, jestGroups, SERIAL_FILES, workersFrom } from '../../runner/plan.ts';
import { formatFiles, formatSteps, readJestResult } from '../../runner/report.ts';

describe('workersFrom', () => {
  it('takes the defaults, and PLANWRIGHT_TEST_WORKERS overrides some groups', () => {
    const defaults = workersFrom({});
    expect(defaults.unit).toBeGreaterThanOrEqual(1);
    expect(workersFrom({ PLANWRIGHT_TEST_WORKERS: 'integration=6,e2e=1' })).toEqual({
      ...defaults,
      integration: 6,
      e2e: 1,
    });
  });

  it('refuses what it cannot read, naming the item', () => {
    expect(() => workersFrom({ PLANWRIGHT_TEST_WORKERS: 'unit=0' })).toThrow('"unit=0"');
    expect(() => workersFrom({ PLANWRIGHT_TEST_WORKERS: 'lint=2' })).toThrow('"lint=2"');
  });
});

describe('jestGroups', () => {
  it('runs unit, integration and e2e each in its own jest project, the serial files last', () => {
    const groups = jestGroups({ unit: 2, integration: 4, e2e: 2 });
    expect(groups.slice(0, 3).map((g) => [g.name, g.projects, g.workers])).toEqual([
      ['unit', ['unit'], 2],
      ['integration', ['integration'], 4],
      ['e2e', ['e2e'], 2],
    ]);
    const serial = groups.find((g) => g.name === 'serial');
    expect(serial?.files ?? []).toEqual(SERIAL_FILES.map((s) => s.file));
    if (serial) expect(serial.workers).toBe(1);
    // Each serial file runs once: the parallel groups of its project leave it out.
    for (const { file } of SERIAL_FILES) {
      const project = file.split('/')[1] ?? '';
      const parallel = groups.find((g) => g.name === project);
      expect({ file, excluded: parallel?.exclude }).toEqual({
        file,
        excluded: expect.arrayContaining([file]),
      });
      expect(existsSync(join(repositoryRoot(), file))).toBe(true);
    }
  });

  it('runs the CPU-bound work below the waiting work', () => {
    const groups = jestGroups({ unit: 2, integration: 3, e2e: 2 });
    expect(groups.map((g) => [g.name, g.niceness])).toEqual(
      groups.map((g) => [g.name, g.name === 'unit' ? BACKGROUND_NICENESS : 0]),
    );
    expect(BACKGROUND_NICENESS).toBeGreaterThan(0);
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
            { name: '/repo/test/b.test.ts', startTime: 1_000, endTime: 9_000, status: 'failed' },
          ],
        }),
      );
      const result = await readJestResult(file, 'integration', '/repo');
      expect(result?.counts).toEqual({ passed: 5, failed: 2, skipped: 1 });
      expect(result?.files).toEqual([
        { file: 'test/a.test.ts', group: 'integration', ms: 2_500, ok: true },
        { file: 'test/b.test.ts', group: 'integration', ms: 8_000, ok: false },
      ]);
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
