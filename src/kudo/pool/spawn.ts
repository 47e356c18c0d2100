/**
 * Starting a render worker process, from compiled JavaScript (`dist/`, production) or from
 * the TypeScript sources (jest, `node --import ./scripts/register-ts.mjs`).
 *
 * Processes, not worker threads: V8 enforces a worker thread's heap limit only on a
 * best-effort basis — one large array growing in a worker aborts the whole process
 * ("Reached heap limit", nodejs/node#47224), and a template can make exactly that
 * (`append` in a long `range`). A child process that runs out of memory dies alone.
 *
 * Built, this module is part of a chunk of the bundle (scripts/build.mjs) and the child runs
 * the bundle's worker entry, `dist/kudo/pool/worker.js`. Run from sources, this module is a
 * `.ts` file: the child gets `--import scripts/register-ts.mjs`, the loader the repository's
 * scripts and test children use, and runs `worker.ts`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installationRoot } from '../../installation.ts';

/**
 * Render workers run at a lower CPU priority than the process that serves the webhooks and
 * renews the Lease: on a busy node a template burning its whole deadline must not slow them.
 * (The admission worker does not: it answers a webhook within that webhook's wall-clock
 * deadline, and at niceness 10 a busy node starved it ~10× — RenderPoolOptions.niceness.)
 */
export const WORKER_NICENESS = 10;

const here = import.meta.url;
const fromSources = here.endsWith('.ts');

/**
 * Resident memory a worker has beyond a built one's, MiB: run from sources, its TypeScript
 * loader is a thread of its own (a second V8 isolate with the compiler loaded). Counted in
 * the pool's memory budget so that tests run against the budget the built worker has.
 */
export const LOADER_OVERHEAD_MB = fromSources ? 96 : 0;

/**
 * V8's young-generation semi-space of a worker, MiB. New space is three of them, resident
 * while a render allocates: 2 MiB keeps a heavy render (2,000 objects from one template) at
 * ~74 MiB peak where 16 MiB took ~108 MiB, for ~7 % more CPU (bench/README.md, "Lean").
 */
export const WORKER_SEMI_SPACE_MB = 2;

export interface WorkerLimits {
  /** V8 old-generation heap (`--max-old-space-size`). */
  readonly maxHeapMb: number;
  /** CPU niceness (`setpriority`); default {@link WORKER_NICENESS}. */
  readonly niceness?: number;
}

export function spawnRenderWorker(limits: WorkerLimits, name: string): ChildProcess {
  const child = forkWorker(limits, name);
  const niceness = limits.niceness ?? WORKER_NICENESS;
  if (child.pid !== undefined && niceness !== 0) {
    try {
      setPriority(child.pid, niceness);
    } catch {
      // Not permitted here (some sandboxes): the worker runs at normal priority.
    }
  }
  return child;
}

/**
 * The worker's entry, found once. Built, a chunk's place in dist/ is the bundler's choice, so
 * the entry is named from the installation's root rather than relative to this module.
 */
const WORKER_ENTRY = fromSources
  ? fileURLToPath(new URL('./worker.ts', here))
  : join(installationRoot(), 'dist', 'kudo', 'pool', 'worker.js');

function forkWorker(limits: WorkerLimits, name: string): ChildProcess {
  const loader = fromSources
    ? ['--import', new URL('../../../scripts/register-ts.mjs', here).href]
    : [];
  return fork(WORKER_ENTRY, [name], {
    execArgv: [
      ...loader,
      `--max-old-space-size=${limits.maxHeapMb}`,
      `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`,
    ],
    serialization: 'advanced',
    // stderr is kept: V8 explains there why a worker died ("heap out of memory").
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
}
