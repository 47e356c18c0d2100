// What `npm test` runs, and how wide: the checks, the builds and the jest groups. Jest's own
// configuration (jest.config.js) defines the projects; this file decides which run together.
import type { TestGroup } from '../support/tools.ts';

export interface JestGroup {
  readonly name: TestGroup | 'serial';
  /** jest projects (jest.config.js) whose files the group runs. */
  readonly projects: readonly string[];
  /** Parallel test files, each in a jest worker; integration and e2e workers have a cluster each. */
  readonly workers: number;
  /** Only these files (the serial group), or every file of the projects but the serial ones. */
  readonly files?: readonly string[];
  /** Files of its projects it leaves to the serial group. */
  readonly exclude?: readonly string[];
  /** CPU niceness of its jest process and workers (see BACKGROUND_NICENESS). */
  readonly niceness: number;
}

/**
 * CPU niceness of the work that only needs CPU — the checks and the unit files — while the
 * integration and e2e files, which wait on API servers, Leases and clocks, run at normal
 * priority beside it. On 2 cores everything at one priority made the waits of the timing
 * tests (webhook deadlines, lease renewals, render deadlines) stretch until they failed; this
 * way the CPU-bound work takes what the waiting work leaves. (Render workers the unit files
 * start set their own niceness, 10, as in production.)
 */
export const BACKGROUND_NICENESS = 5;

/**
 * Files that run after every other group has finished, one at a time, and why. Each asserts
 * on what the product reports with margins from its configured durations, so it holds on a
 * loaded machine; it runs alone because what it does to its process tree would disturb others'
 * measurements, not because it needs a quiet machine.
 */
export const SERIAL_FILES: readonly { readonly file: string; readonly why: string }[] = [
  {
    file: 'test/integration/kudo/engine/hostile.test.ts',
    why:
      'it measures and prints webhook latency and peak memory of the whole process tree while ' +
      'hostile renders burn their CPU deadlines in workers at niceness 10 (as shipped): beside ' +
      'the other files those workers got under 5 % of a core, so every render met the ' +
      'wall-clock limit and admissions the webhook deadline — a load no user runs beside it',
  },
  {
    file: 'test/e2e/manifests/sharding.test.ts',
    why:
      'three Planwright pods on its own real node take 600 Instance creates and streams of ' +
      'admissions through pod webhooks with 5 s timeouts; beside the other groups the API ' +
      "server's calls to those pods timed out",
  },
];

/**
 * Default widths for 2 cores: unit files are CPU-bound (one worker per core, niced);
 * integration and e2e files mostly wait, but each brings its own cluster and Planwright
 * processes: with 4 + 2 of them beside the unit files, webhook calls (5 s) and render
 * deadlines failed from starvation alone, so 2 + 1. Override with PLANWRIGHT_TEST_WORKERS,
 * e.g. `unit=1,integration=4,e2e=2`, on a larger machine.
 */
const DEFAULT_WORKERS: Readonly<Record<TestGroup, number>> = { unit: 2, integration: 2, e2e: 1 };

export function workersFrom(env: NodeJS.ProcessEnv): Record<TestGroup, number> {
  const workers = { ...DEFAULT_WORKERS };
  for (const item of (env['PLANWRIGHT_TEST_WORKERS'] ?? '').split(',').filter(Boolean)) {
    const [group, value] = item.split('=');
    const n = Number(value);
    if (!(group === 'unit' || group === 'integration' || group === 'e2e') || !(n >= 1)) {
      throw new Error(
        `PLANWRIGHT_TEST_WORKERS: "${item}" is not <unit|integration|e2e>=<number ≥ 1>`,
      );
    }
    workers[group] = Math.floor(n);
  }
  return workers;
}

export function jestGroups(workers: Readonly<Record<TestGroup, number>>): JestGroup[] {
  const groups: JestGroup[] = [
    { name: 'unit', projects: ['unit'], workers: workers.unit, niceness: BACKGROUND_NICENESS },
    {
      name: 'integration',
      projects: ['integration'],
      workers: workers.integration,
      niceness: 0,
      exclude: SERIAL_FILES.map((f) => f.file),
    },
    {
      name: 'e2e',
      projects: ['e2e'],
      workers: workers.e2e,
      niceness: 0,
      exclude: SERIAL_FILES.map((f) => f.file),
    },
  ];
  if (SERIAL_FILES.length > 0) {
    groups.push({
      name: 'serial',
      projects: ['integration', 'e2e'],
      workers: 1,
      niceness: 0,
      files: SERIAL_FILES.map((s) => s.file),
    });
  }
  return groups;
}
