// `planwright start`'s tuning flags as commander parses them: Go durations for the Lease
// timings and the render timeout, whole numbers for the render workers and their heap, each
// malformed value refused naming the flag, and the relations between the Lease timings
// (controller-runtime's rules) checked with the flags named.
import { describe, expect, it } from '@jest/globals';
import { leaseTimings } from '../../../src/cli/commands/start.ts';
import { LEASE_DEFAULTS } from '../../../src/cli/start-flags.ts';
import { cliFailure as failure, parseStartFlags as parse } from './start-parse.ts';

describe('leader election timings', () => {
  it('none given: client-go’s defaults', () => {
    expect(leaseTimings(parse([]))).toEqual(LEASE_DEFAULTS);
  });

  it('Go durations, the others at client-go’s defaults', () => {
    expect(
      leaseTimings(
        parse(['--leader-elect-lease-duration', '4s', '--leader-elect-renew-deadline', '3000ms']),
      ),
    ).toEqual({ leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 2_000 });
    expect(
      leaseTimings(
        parse([
          '--leader-elect-lease-duration',
          '1m30s',
          '--leader-elect-renew-deadline',
          '1m',
          '--leader-elect-retry-period',
          '500ms',
        ]),
      ),
    ).toEqual({ leaseDurationMs: 90_000, renewDeadlineMs: 60_000, retryPeriodMs: 500 });
    expect(LEASE_DEFAULTS).toEqual({
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
  });

  it.each([
    ['--leader-elect-lease-duration', '15'],
    ['--leader-elect-renew-deadline', 'ten seconds'],
    ['--leader-elect-retry-period', '-2s'],
    ['--leader-elect-retry-period', '0s'],
  ])('%s %s: refused naming the flag and the syntax', (flag, value) => {
    expect(failure(() => parse([flag, value]))).toBe(
      `${flag} ${JSON.stringify(value)}: ${value === '-2s' || value === '0s' ? 'needs a duration of at least 1ms' : 'not a duration'}; e.g. ${flag} 15s (units: ms, s, m, h)`,
    );
  });

  it('a renew deadline not under the lease duration is refused, naming both flags', () => {
    const message = failure(() => leaseTimings(parse(['--leader-elect-renew-deadline', '15s'])));
    expect(message).toMatch(
      /^--leader-elect-renew-deadline \(15000ms\) must be less than --leader-elect-lease-duration \(15000ms\)/,
    );
    expect(failure(() => leaseTimings(parse(['--leader-elect-lease-duration', '5s'])))).toContain(
      '--leader-elect-renew-deadline (10000ms) must be less than',
    );
  });

  it('a retry period whose jittered wait does not fit in the renew deadline is refused', () => {
    expect(failure(() => leaseTimings(parse(['--leader-elect-retry-period', '9s'])))).toMatch(
      /^--leader-elect-retry-period \(9000ms\) must be less than --leader-elect-renew-deadline \(10000ms\) \/ 1\.2/,
    );
    // Just under: accepted.
    expect(leaseTimings(parse(['--leader-elect-retry-period', '8s']))?.retryPeriodMs).toBe(8_000);
  });

  it('with --no-leader-election there is nothing to time', () => {
    expect(
      failure(() =>
        leaseTimings(parse(['--no-leader-election', '--leader-elect-lease-duration', '20s'])),
      ),
    ).toMatch(/^--leader-elect-lease-duration and --no-leader-election exclude each other/);
  });
});

describe('render limits', () => {
  it('none given: undefined (the App’s defaults)', () => {
    const flags = parse([]);
    expect([flags.renderWorkers, flags.renderTimeout, flags.renderWorkerHeap]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('each flag read as the App takes it (durations in ms)', () => {
    const flags = parse([
      '--render-workers',
      '2',
      '--render-timeout',
      '5s',
      '--render-worker-heap',
      '128',
    ]);
    expect([flags.renderWorkers, flags.renderTimeout, flags.renderWorkerHeap]).toEqual([
      2, 5_000, 128,
    ]);
    expect(parse(['--render-timeout', '1m']).renderTimeout).toBe(60_000);
  });

  it.each([
    ['--render-workers', '0', 'needs a whole number of at least 1, e.g. --render-workers 2'],
    ['--render-workers', '1.5', 'needs a whole number of at least 1, e.g. --render-workers 2'],
    [
      '--render-worker-heap',
      '32',
      'needs a whole number of at least 64, e.g. --render-worker-heap 512',
    ],
    [
      '--render-worker-heap',
      '256Mi',
      'needs a whole number of at least 64, e.g. --render-worker-heap 512',
    ],
    ['--render-timeout', '10', 'not a duration; e.g. --render-timeout 15s (units: ms, s, m, h)'],
  ])('%s %s: refused naming the flag', (flag, value, what) => {
    expect(failure(() => parse([flag, value]))).toBe(`${flag} ${JSON.stringify(value)}: ${what}`);
  });
});
