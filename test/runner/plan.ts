// What `npm test` runs, and how wide: the checks, the builds and the jest lanes. Jest's own
// configuration (jest.config.js) defines the projects; this file decides which files run in
// which jest process, and when each process starts.
import type { TestGroup } from '../support/tools.ts';
import type { History } from './history.ts';

/** A jest process of the run: its files, its width, its priority and what it waits for. */
export interface JestLane {
  readonly name: 'unit' | 'integration' | 'e2e' | 'late' | 'serial';
  /** jest projects (jest.config.js) its files may come from. */
  readonly projects: readonly TestGroup[];
  /** Parallel test files, each in a jest worker; integration and e2e workers have a cluster each. */
  readonly workers: number;
  /**
   * The files it runs, in the order planned (longest first); absent for the unit lane, which
   * runs every file of its project.
   */
  readonly files?: readonly string[];
  /** CPU niceness of its jest process and workers (see BACKGROUND_NICENESS). */
  readonly niceness: number;
  /**
   * What it starts after (its builds aside): `unit` waits for the unit lane to finish (its
   * cores are free then), `parallel` for every other lane. A `parallel` lane's jest process
   * starts earlier, when the first cluster lane ends, and sets up its shared clusters while
   * the others finish; its files wait at a gate (test/support/lane-gate.ts) that opens when
   * every other lane has ended.
   */
  readonly after: 'builds' | 'unit' | 'parallel';
  /**
   * The projects whose shared clusters its workers use (all of `projects` when absent): a
   * project whose files in this lane all start clusters of their own gets none started.
   */
  readonly sharedClusters?: readonly TestGroup[];
}

/**
 * CPU niceness of the unit files: they only need CPU, while the integration and e2e files,
 * which wait on API servers, Leases and clocks, run at normal priority beside them. On 2 cores
 * everything at one priority made the waits of the timing tests (webhook deadlines, lease
 * renewals, render deadlines) stretch until they failed; this way the CPU-bound work takes
 * what the waiting work leaves. (Render workers the unit files start set their own niceness.)
 */
export const BACKGROUND_NICENESS = 5;

/**
 * CPU niceness of typecheck, eslint and prettier: the lowest. Nothing waits for them until the
 * run's end, so they only fill the time the tests leave idle — and a render worker at its
 * production niceness (10) still comes before them, which BACKGROUND_NICENESS would not give.
 */
export const FILLER_NICENESS = 19;

/**
 * Files that run after every other lane has finished, one at a time, in this order, and why.
 * Each asserts on what the product reports with margins from its configured durations, so it
 * holds on a loaded machine; it runs alone because what it does to its process tree would
 * disturb others' measurements, not because it needs a quiet machine. Each waits at the lane's
 * gate (`waitForLaneGate`, test/support/lane-gate.ts) from the point where it needs the machine
 * to itself: the first one's set-up before that point (sharding's cluster, image and three
 * replicas) runs while the other lanes end.
 */
export const SERIAL_FILES: readonly {
  readonly file: string;
  readonly why: string;
  /** It starts a cluster of its own and uses no shared one (testCluster() would fail). */
  readonly ownCluster?: true;
}[] = [
  {
    file: 'test/e2e/manifests/sharding.test.ts',
    why:
      'three Planwright pods on its own real node take 600 Instance creates and streams of ' +
      'admissions through pod webhooks with 5 s timeouts; beside the other groups the API ' +
      "server's calls to those pods timed out",
    ownCluster: true,
  },
  {
    file: 'test/integration/kudo/engine/hostile.test.ts',
    why:
      'it measures and prints webhook latency and peak memory of the whole process tree while ' +
      'hostile renders burn their CPU deadlines in workers at niceness 10 (as shipped): beside ' +
      'the other files those workers got under 5 % of a core, so every render met the ' +
      'wall-clock limit and admissions the webhook deadline — a load no user runs beside it',
  },
];

export type Widths = Record<TestGroup | 'late', number>;

/**
 * Default widths for 2 cores. Unit files are CPU-bound (one worker per core, niced).
 * Integration and e2e files mostly wait, but each brings its own cluster and Planwright
 * processes: with 4 + 2 of them beside the unit files, webhook calls (5 s) and render
 * deadlines failed from starvation alone. So 2 integration workers and 1 e2e worker from the
 * start, and one more (`late`, either project) once the unit files are done and their cores
 * free. Override with PLANWRIGHT_TEST_WORKERS, e.g. `unit=1,integration=4,e2e=2,late=2`.
 */
const DEFAULT_WIDTHS: Readonly<Widths> = { unit: 2, integration: 2, e2e: 1, late: 1 };

export function workersFrom(env: NodeJS.ProcessEnv): Widths {
  const workers = { ...DEFAULT_WIDTHS };
  for (const item of (env['PLANWRIGHT_TEST_WORKERS'] ?? '').split(',').filter(Boolean)) {
    const [group, value] = item.split('=');
    const n = Number(value);
    const known =
      group === 'unit' || group === 'integration' || group === 'e2e' || group === 'late';
    if (!known || !(n >= 1)) {
      throw new Error(
        `PLANWRIGHT_TEST_WORKERS: "${item}" is not <unit|integration|e2e|late>=<number ≥ 1>`,
      );
    }
    workers[group] = Math.floor(n);
  }
  return workers;
}

/** A test file of the integration or e2e project. */
export interface TestFile {
  readonly file: string;
  readonly project: TestGroup;
}

/** When a lane is expected to start, when the history has no figure (ms since the run began). */
const DEFAULT_STARTS = { builds: 30_000, image: 90_000, unit: 300_000 };
/** What a file never timed is expected to take. */
const DEFAULT_FILE_MS = 30_000;

interface Slot {
  readonly lane: JestLane['name'];
  readonly projects: readonly TestGroup[];
  finishMs: number;
}

/**
 * Shares the integration and e2e files out among the lanes' workers, longest first, each to
 * the worker expected to be free first among those that may run it (the longest-processing-
 * time rule): the lanes start at different times (the e2e lane after the image is built, the
 * late lane after the unit files), so this balances their ends — which is when the serial
 * files may start. Expected times come from the last runs on this machine (history.ts).
 */
export function planLanes(
  selected: readonly (TestGroup | 'serial')[],
  files: readonly TestFile[],
  widths: Readonly<Widths>,
  history: History,
): JestLane[] {
  const lanes: JestLane[] = [];
  if (selected.includes('unit')) {
    lanes.push({
      name: 'unit',
      projects: ['unit'],
      workers: widths.unit,
      niceness: BACKGROUND_NICENESS,
      after: 'builds',
    });
  }
  const serial = new Set(SERIAL_FILES.map((s) => s.file));
  const start = (key: keyof typeof DEFAULT_STARTS): number =>
    history.starts[key] ?? DEFAULT_STARTS[key];
  const shared = files.filter((f) => selected.includes(f.project) && !serial.has(f.file));
  const templates: Omit<JestLane, 'files'>[] = [
    {
      name: 'integration',
      projects: ['integration'],
      workers: widths.integration,
      niceness: 0,
      after: 'builds',
    },
    { name: 'e2e', projects: ['e2e'], workers: widths.e2e, niceness: 0, after: 'builds' },
    {
      name: 'late',
      projects: ['integration', 'e2e'],
      workers: widths.late,
      niceness: 0,
      after: 'unit',
    },
  ];
  const startOf: Record<string, number> = {
    integration: start('builds'),
    e2e: start('image'),
    late: selected.includes('unit') ? start('unit') : start('image'),
  };
  const slots: Slot[] = templates.flatMap((t) =>
    Array.from({ length: t.workers }, () => ({
      lane: t.name,
      projects: t.projects,
      finishMs: startOf[t.name] ?? 0,
    })),
  );
  const expected = (file: string): number => history.files[file] ?? DEFAULT_FILE_MS;
  const planned = new Map<string, string[]>();
  const byLength = [...shared].sort(
    (a, b) => expected(b.file) - expected(a.file) || a.file.localeCompare(b.file),
  );
  for (const f of byLength) {
    const eligible = slots.filter((s) => s.projects.includes(f.project));
    const slot = eligible.reduce<Slot | undefined>(
      (best, s) => (best === undefined || s.finishMs < best.finishMs ? s : best),
      undefined,
    );
    if (!slot) continue;
    slot.finishMs += expected(f.file);
    const list = planned.get(slot.lane) ?? [];
    list.push(f.file);
    planned.set(slot.lane, list);
  }
  const projectOf = new Map(shared.map((f) => [f.file, f.project]));
  for (const t of templates) {
    const list = planned.get(t.name);
    if (!list?.length) continue;
    // Only the projects of the files it got: a late lane of integration files alone starts
    // no workloads cluster and waits for no image.
    const projects = t.projects.filter((p) => list.some((f) => projectOf.get(f) === p));
    lanes.push({ ...t, projects, files: list });
  }
  if (selected.includes('serial') && SERIAL_FILES.length > 0) {
    const project = new Map(files.map((f) => [f.file, f.project]));
    const projects = (['integration', 'e2e'] as const).filter((p) =>
      SERIAL_FILES.some((s) => project.get(s.file) === p),
    );
    lanes.push({
      name: 'serial',
      projects,
      sharedClusters: projects.filter((p) =>
        SERIAL_FILES.some((s) => project.get(s.file) === p && s.ownCluster !== true),
      ),
      workers: 1,
      niceness: 0,
      files: SERIAL_FILES.map((s) => s.file),
      after: 'parallel',
    });
  }
  return lanes;
}
