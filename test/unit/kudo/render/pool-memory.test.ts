// A render worker's resident memory stays within its budget (heap limit + the overhead the
// memory budget counts), whatever the template does: the hostile templates that grow the heap,
// build a huge string (which V8 allocates outside the heap limit once something reads it) or
// double one, run in a real worker, and the worker's peak resident memory (VmHWM, read while
// the job runs) is compared with the budget. Each fails naming the template and the limit.
import { afterAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { pino } from 'pino';
import { MAX_TEMPLATE_OUTPUT_CHARS } from '../../../../src/kudo/render/index.ts';
import { WORKER_OVERHEAD_MB } from '../../../../src/kudo/render/memory-budget.ts';
import { RenderLimitError, RenderPool } from '../../../../src/kudo/pool/index.ts';
import { LOADER_OVERHEAD_MB } from '../../../../src/kudo/pool/spawn.ts';
import { applyStepsOperatorVersion } from '../../../support/kudo-objects.ts';
import { job } from './jobs.ts';
import { TEST_PRIORITY } from './jobs.ts';

const HEAP_MB = 128;
/** The pool's default budget for a worker run from sources (as jest runs it). */
const BUDGET_MB = HEAP_MB + WORKER_OVERHEAD_MB + LOADER_OVERHEAD_MB;
const logger = pino({ level: 'silent' });
const OK = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}\n';

// The hostile integration test's templates (test/integration/kudo/engine/hostile.test.ts).
const GROW = `{{ $x := list }}{{ range until 1000 }}{{ $x = append $x (until 1000000) }}{{ end }}`;
/** Grows its heap in small steps (0.1 M numbers at a time), as most templates that run away do. */
const GROW_STEADY = `{{ $x := list }}{{ range until 10000 }}{{ $x = append $x (until 100000) }}{{ end }}`;
const REPEAT = `{{ repeat 60000000 "xxxxxxxx" }}`;
const REPEAT_HASHED = `{{ repeat 60000000 "xxxxxxxx" | sha256sum }}`;
const DOUBLED = `{{ $s := "xxxxxxxx" }}{{ range until 27 }}{{ $s = print $s $s }}{{ end }}{{ $s | sha256sum }}`;

async function childPids(): Promise<number[]> {
  const text = await readFile(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8');
  return text.split(' ').filter(Boolean).map(Number);
}

/** Peak resident memory of `pid` (VmHWM), MiB; 0 once it is gone. */
async function peakMb(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/**
 * Runs `work` on a fresh worker of `pool` and follows the worker's VmHWM until the job ends
 * (the kernel's own peak, so nothing between two reads is missed; only what the worker
 * allocates in the last few ms before it is killed can be).
 */
async function measured<T>(
  pool: RenderPool,
  work: () => Promise<T>,
): Promise<{ outcome: T | Error; peak: number }> {
  const before = await childPids();
  await pool.warm();
  const [pid] = (await childPids()).filter((c) => !before.includes(c));
  if (pid === undefined) throw new Error('no worker process found');
  let peak = await peakMb(pid);
  let done = false;
  const follow = (async () => {
    while (!done) {
      peak = Math.max(peak, await peakMb(pid));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  let outcome: T | Error;
  try {
    outcome = await work();
  } catch (err) {
    outcome = err as Error;
  }
  done = true;
  await follow;
  return { outcome, peak };
}

describe('render worker memory budget', () => {
  const pools: RenderPool[] = [];
  const pool = (maxRssMb?: number): RenderPool => {
    const p = new RenderPool({
      ...TEST_PRIORITY,
      name: 'memory',
      size: 1,
      deadlineMs: 60_000,
      maxHeapMb: HEAP_MB,
      ...(maxRssMb !== undefined ? { maxRssMb } : {}),
      logger,
    });
    pools.push(p);
    return p;
  };
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.stop()));
  });

  it.each([
    ['grow.yaml', GROW, /grow\.yaml: ran out of memory/],
    [
      'repeat.yaml',
      REPEAT,
      /repeat\.yaml.*its result has 480000000 characters, more than the limit of 4194304/,
    ],
    [
      'hashed.yaml',
      REPEAT_HASHED,
      /hashed\.yaml.*error calling repeat: its result has 480000000 characters/,
    ],
    [
      'doubled.yaml',
      DOUBLED,
      /doubled\.yaml.*error calling print: its result has 8388608 characters/,
    ],
  ])(
    '%s fails naming itself and the limit, its worker within budget',
    async (name, text, message) => {
      const p = pool();
      const { outcome, peak } = await measured(p, () =>
        p.render(job(name, text, [], MAX_TEMPLATE_OUTPUT_CHARS)),
      );
      expect(outcome).toBeInstanceOf(Error);
      expect((outcome as Error).message).toMatch(message);
      if (outcome instanceof RenderLimitError) {
        expect(outcome.message).toContain(`the limit is ${HEAP_MB} MiB`);
      }
      expect(peak).toBeLessThanOrEqual(BUDGET_MB);
      // The pool still serves.
      await expect(p.render(job('ok.yaml', OK))).resolves.toBeDefined();
    },
  );

  it('package verification of a string-building template stays within budget', async () => {
    const p = pool();
    const ov = applyStepsOperatorVersion('rep', { 'repeat.yaml': `${REPEAT}\nkind: ConfigMap\n` });
    const { outcome, peak } = await measured(p, () => p.verify(ov, undefined));
    if (outcome instanceof Error) throw outcome;
    expect(outcome.errors.join('\n')).toMatch(
      /repeat\.yaml.*its result has 480000000 characters, more than the limit of 4194304/,
    );
    expect(peak).toBeLessThanOrEqual(BUDGET_MB);
  });

  it('kills a worker past its resident memory budget and names the template and limit', async () => {
    // A budget below what GROW reaches before its heap limit: only the watchdog stops it.
    const idle = await (async () => {
      const probe = pool();
      const { peak } = await measured(probe, () => probe.render(job('ok.yaml', OK)));
      return Math.ceil(peak);
    })();
    const budget = idle + 24;
    const p = pool(budget);
    const { outcome, peak } = await measured(p, () => p.render(job('grow.yaml', GROW_STEADY)));
    expect(outcome).toBeInstanceOf(RenderLimitError);
    expect((outcome as RenderLimitError).limit).toBe('memory');
    const message = (outcome as Error).message;
    expect(message).toMatch(
      new RegExp(
        `^template grow\\.yaml: ran out of memory: used (\\d+) MiB( and was growing by \\d+ MiB between two reads)? \\(the limit is ${HEAP_MB} MiB of heap and ${budget} MiB in all per render worker\\)$`,
      ),
    );
    // Stopped before its budget as the watchdog read it: past the headroom, or earlier if
    // growing as fast again before the next read would have passed it.
    expect(Number(/used (\d+) MiB/.exec(message)?.[1])).toBeLessThanOrEqual(budget);
    // The kernel's own peak too (without the watchdog it would reach its heap limit, far above).
    expect(peak).toBeLessThanOrEqual(budget);
    await expect(p.render(job('ok.yaml', OK))).resolves.toBeDefined();
  });
});
