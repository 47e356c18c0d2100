import { describe, expect, it } from '@jest/globals';
import type { Plan, PlanStatus } from '../../../../src/kudo/api/types.ts';
import {
  executePass,
  freshPlanStatus,
  type StepOutcome,
} from '../../../../src/kudo/engine/index.ts';

const now = new Date('2030-01-01T00:00:00Z');

function plan(strategy: string, phaseStrategy: string): Plan {
  return {
    strategy,
    phases: [
      {
        name: 'a',
        strategy: phaseStrategy,
        steps: [
          { name: 'a1', tasks: [] },
          { name: 'a2', tasks: [] },
        ],
      },
      { name: 'b', steps: [{ name: 'b1', tasks: [] }] },
    ],
  };
}

/** A step runner driven by a table of outcomes; records the steps it ran. */
function runner(outcomes: Record<string, StepOutcome>) {
  const ran: string[] = [];
  const run = (_p: unknown, step: { name?: string }): Promise<StepOutcome> => {
    ran.push(step.name ?? '');
    return Promise.resolve(outcomes[step.name ?? ''] ?? { state: 'done' });
  };
  return { ran, run };
}

describe('executePass', () => {
  it('runs a serial plan to COMPLETE in one pass when every step is done', async () => {
    const status = freshPlanStatus('deploy', plan('serial', 'serial'), 'u1', now);
    const { ran, run } = runner({});
    await executePass(status, plan('serial', 'serial'), run, { now });
    expect(ran).toEqual(['a1', 'a2', 'b1']);
    expect(status.status).toBe('COMPLETE');
    expect(status.phases?.map((p) => p.status)).toEqual(['COMPLETE', 'COMPLETE']);
  });

  it('serial phase stops at the first unfinished step; the plan reports why', async () => {
    const p = plan('serial', 'serial');
    const status = freshPlanStatus('deploy', p, 'u1', now);
    const { ran, run } = runner({ a1: { state: 'waiting', message: 'Deployment x 0/1 ready' } });
    await executePass(status, p, run, { now });
    expect(ran).toEqual(['a1']);
    expect(status.status).toBe('IN_PROGRESS');
    expect(status.message).toBe('a: a1: Deployment x 0/1 ready');
    expect(status.phases?.[0]?.steps?.[1]?.status).toBe('PENDING');
  });

  it('parallel phase runs every step; parallel plan runs every phase', async () => {
    const p = plan('parallel', 'parallel');
    const status = freshPlanStatus('deploy', p, 'u1', now);
    const { ran, run } = runner({ a1: { state: 'waiting', message: 'w' } });
    await executePass(status, p, run, { now });
    expect(ran.sort()).toEqual(['a1', 'a2', 'b1']);
    expect(status.phases?.[1]?.status).toBe('COMPLETE');
    expect(status.status).toBe('IN_PROGRESS');
  });

  it('skips COMPLETE steps on the next pass (idempotent)', async () => {
    const p = plan('serial', 'serial');
    const status = freshPlanStatus('deploy', p, 'u1', now);
    await executePass(status, p, runner({ a2: { state: 'waiting', message: 'w' } }).run, { now });
    const second = runner({});
    await executePass(status, p, second.run, { now });
    expect(second.ran).toEqual(['a2', 'b1']);
    expect(status.status).toBe('COMPLETE');
  });

  it('a fatal step makes the plan FATAL_ERROR and terminal', async () => {
    const p = plan('serial', 'serial');
    const status = freshPlanStatus('deploy', p, 'u1', now);
    await executePass(
      status,
      p,
      runner({ a1: { state: 'fatal', message: 'template t.yaml line 3: boom' } }).run,
      { now },
    );
    expect(status.status).toBe('FATAL_ERROR');
    expect(status.message).toContain('template t.yaml line 3');
    const again = runner({});
    await executePass(status, p, again.run, { now });
    expect(again.ran).toEqual([]);
  });

  it('an error keeps the plan IN_PROGRESS with the step in ERROR, until the retry limit', async () => {
    const p = plan('serial', 'serial');
    const status: PlanStatus = freshPlanStatus('deploy', p, 'u1', now);
    const failing = runner({ a1: { state: 'error', message: '503 ServiceUnavailable' } });
    await executePass(status, p, failing.run, { now, stepRetryLimit: 1 });
    expect(status.status).toBe('IN_PROGRESS');
    expect(status.phases?.[0]?.steps?.[0]?.status).toBe('ERROR');
    await executePass(status, p, failing.run, { now, stepRetryLimit: 1 });
    expect(status.status).toBe('FATAL_ERROR');
    expect(status.message).toContain('gave up after 1 retries');
  });

  it('a step past its timeout becomes FATAL_ERROR', async () => {
    const p = plan('serial', 'serial');
    const status = freshPlanStatus('deploy', p, 'u1', now);
    const waiting = runner({ a1: { state: 'waiting', message: 'no kubelet' } });
    await executePass(status, p, waiting.run, { now, stepTimeoutMs: 60_000 });
    expect(status.status).toBe('IN_PROGRESS');
    await executePass(status, p, waiting.run, {
      now: new Date(now.getTime() + 61_000),
      stepTimeoutMs: 60_000,
    });
    expect(status.status).toBe('FATAL_ERROR');
    expect(status.message).toContain('step timeout');
  });

  it('a plan without phases is COMPLETE at once (KUDO test operators use `deploy: {}`)', async () => {
    const status = freshPlanStatus('deploy', {}, 'u1', now);
    await executePass(status, {}, runner({}).run, { now });
    expect(status.status).toBe('COMPLETE');
  });
});
