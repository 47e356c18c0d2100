// The per-cluster gate: a failure to reach a cluster pauses it with a doubling, capped retry
// time; requests in the pause fail at once naming cluster, error and retry time; an answer
// (even an API error) reopens it.
import { describe, expect, it } from '@jest/globals';
import {
  ApiError,
  ClusterGate,
  ClusterUnavailableError,
  isUnreachable,
} from '../../../src/kube/index.ts';

function gate(clock: { now: number }): ClusterGate {
  return new ClusterGate('secret:ns/t/value', 'https://10.0.0.1:6443', {
    minMs: 1_000,
    maxMs: 8_000,
    now: () => clock.now,
    random: () => 0,
  });
}

const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:6443'), {
  code: 'ECONNREFUSED',
});

describe('ClusterGate', () => {
  it('pauses a cluster that does not answer, doubling up to the cap', () => {
    const clock = { now: 0 };
    const g = gate(clock);
    expect(() => g.check()).not.toThrow();
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const err = g.failed(refused);
      waits.push(err.retryAt.getTime() - clock.now);
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 8_000]);
  });

  it('adds up to 20 % jitter, never past the cap', () => {
    const clock = { now: 0 };
    const g = new ClusterGate('secret:ns/t/value', 'https://10.0.0.1:6443', {
      minMs: 1_000,
      maxMs: 8_000,
      now: () => clock.now,
      random: () => 0.5,
    });
    const waits = Array.from({ length: 5 }, () => g.failed(refused).retryAt.getTime() - clock.now);
    expect(waits).toEqual([1_100, 2_200, 4_400, 8_000, 8_000]);
    // A long quiet failure streak does not start over by time alone: only a success resets.
    clock.now += 3_600_000;
    expect(g.failed(refused).retryAt.getTime() - clock.now).toBe(8_000);
    g.succeeded();
    expect(g.failed(refused).retryAt.getTime() - clock.now).toBe(1_100);
  });

  it('refuses in the pause with cluster, server, reason and next retry', () => {
    const clock = { now: Date.parse('2026-01-01T00:00:00Z') };
    const g = gate(clock);
    g.failed(refused);
    let error: unknown;
    try {
      g.check();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ClusterUnavailableError);
    expect((error as Error).message).toBe(
      'cluster secret:ns/t/value (https://10.0.0.1:6443) is unreachable: connect ECONNREFUSED 10.0.0.1:6443; next retry at 2026-01-01T00:00:01.000Z',
    );
    clock.now += 1_000;
    expect(() => g.check()).not.toThrow();
    expect(g.down).toBe(false);
  });

  it('reopens on success', () => {
    const clock = { now: 0 };
    const g = gate(clock);
    g.failed(refused);
    g.failed(refused);
    g.succeeded();
    expect(() => g.check()).not.toThrow();
    expect(g.failed(refused).retryAt.getTime()).toBe(1_000);
  });

  it('counts network errors and 502/503/504 as unreachable, not refusals', () => {
    expect(isUnreachable(refused)).toBe(true);
    expect(isUnreachable(new ApiError(503, 'ServiceUnavailable', 'x', 'GET', '/'))).toBe(true);
    expect(isUnreachable(new ApiError(403, 'Forbidden', 'x', 'GET', '/'))).toBe(false);
    expect(isUnreachable(new ApiError(404, 'NotFound', 'x', 'GET', '/'))).toBe(false);
  });
});
