/**
 * `planwright start`'s tuning flags: the leader-election timings (controller-runtime's
 * `--leader-elect-*` names and defaults) and the limits of the render workers. Each value is
 * parsed by commander as it is read; the relations between values are checked once all are.
 */
import { Option } from 'commander';
import { parseGoDuration, ParseDurationError } from '../gotemplate/index.ts';
import { RENDER_WORKER_HEAP_MB } from '../kudo/render/index.ts';
import { CliError } from './errors.ts';

/** client-go's defaults (leaderelection.LeaderElectionConfig), in ms. */
export const LEASE_DEFAULTS = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
} as const;

/** client-go waits up to 1.2 × the retry period between tries (its JitterFactor). */
const RETRY_JITTER = 1.2;

/** The render deadline's default (CPU time of one template render), ms. */
export const RENDER_TIMEOUT_DEFAULT_MS = 10_000;

/** Below this a worker cannot even load the template engine. */
const MIN_HEAP_MB = 64;

export interface TuningFlags {
  readonly leaderElectLeaseDuration?: number;
  readonly leaderElectRenewDeadline?: number;
  readonly leaderElectRetryPeriod?: number;
  readonly leaderElection?: boolean;
  readonly renderWorkers?: number;
  readonly renderTimeout?: number;
  readonly renderWorkerHeap?: number;
}

export interface LeaseTimings {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

export interface RenderLimits {
  readonly workers?: number;
  readonly deadlineMs?: number;
  readonly maxHeapMb?: number;
}

/** A Go duration (`15s`, `500ms`, `1m30s`) above zero, in whole ms. */
export function durationMs(flag: string, value: string): number {
  const example = `e.g. ${flag} 15s (units: ms, s, m, h)`;
  let ns: bigint;
  try {
    ns = parseGoDuration(value);
  } catch (err) {
    if (!(err instanceof ParseDurationError)) throw err;
    throw new CliError(`${flag} ${JSON.stringify(value)}: not a duration; ${example}`);
  }
  const ms = Number(ns / 1_000_000n);
  if (ms < 1) {
    throw new CliError(
      `${flag} ${JSON.stringify(value)}: needs a duration of at least 1ms; ${example}`,
    );
  }
  return ms;
}

function wholeNumber(flag: string, value: string, min: number, example: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || !Number.isSafeInteger(n)) {
    throw new CliError(
      `${flag} ${JSON.stringify(value)}: needs a whole number of at least ${min}, e.g. ${flag} ${example}`,
    );
  }
  return n;
}

/** The tuning flags (docs/replicas.md, docs/limits.md). */
export function tuningOptions(): Option[] {
  const duration = (flag: string) => (value: string) => durationMs(flag, value);
  return [
    new Option(
      '--leader-elect-lease-duration <duration>',
      'how long a non-leader waits after the last renewal before it takes the Lease over ' +
        '(default 15s)',
    ).argParser(duration('--leader-elect-lease-duration')),
    new Option(
      '--leader-elect-renew-deadline <duration>',
      'how long the leader keeps trying to renew before it steps down; less than the lease ' +
        'duration (default 10s)',
    ).argParser(duration('--leader-elect-renew-deadline')),
    new Option(
      '--leader-elect-retry-period <duration>',
      'wait between tries to acquire or renew the Lease; 1.2 × it less than the renew ' +
        'deadline (default 2s)',
    ).argParser(duration('--leader-elect-retry-period')),
    new Option(
      '--render-workers <n>',
      'template renders in parallel, each in a worker process (default: one per CPU, 1 to 4, ' +
        "as many as fit under the container's memory limit)",
    ).argParser((v: string) => wholeNumber('--render-workers', v, 1, '2')),
    new Option(
      '--render-timeout <duration>',
      'CPU time one template render may use before its step ends FATAL_ERROR; on a busy ' +
        'machine 10 × as much wall-clock time (default 10s)',
    ).argParser(duration('--render-timeout')),
    new Option(
      '--render-worker-heap <MiB>',
      `heap of each render worker; a render that needs more ends FATAL_ERROR (default ${RENDER_WORKER_HEAP_MB})`,
    ).argParser((v: string) => wholeNumber('--render-worker-heap', v, MIN_HEAP_MB, '512')),
  ];
}

/**
 * The Lease timings the flags give, with client-go's defaults for the others; undefined when
 * no flag sets one. Refused: a renew deadline not under the lease duration (a leader would
 * still renew after others may take over) and a retry period whose jittered wait does not fit
 * in the renew deadline (the leader would step down without a second try).
 */
export function leaseTimings(flags: TuningFlags): LeaseTimings | undefined {
  const given = [
    flags.leaderElectLeaseDuration !== undefined ? '--leader-elect-lease-duration' : '',
    flags.leaderElectRenewDeadline !== undefined ? '--leader-elect-renew-deadline' : '',
    flags.leaderElectRetryPeriod !== undefined ? '--leader-elect-retry-period' : '',
  ].filter((f) => f !== '');
  if (given.length === 0) return undefined;
  if (flags.leaderElection === false) {
    throw new CliError(
      `${given.join(', ')} and --no-leader-election exclude each other: without leader ` +
        'election there is no Lease to time',
    );
  }
  const timings: LeaseTimings = {
    leaseDurationMs: flags.leaderElectLeaseDuration ?? LEASE_DEFAULTS.leaseDurationMs,
    renewDeadlineMs: flags.leaderElectRenewDeadline ?? LEASE_DEFAULTS.renewDeadlineMs,
    retryPeriodMs: flags.leaderElectRetryPeriod ?? LEASE_DEFAULTS.retryPeriodMs,
  };
  const show = (ms: number): string => `${ms}ms`;
  if (!(timings.renewDeadlineMs < timings.leaseDurationMs)) {
    throw new CliError(
      `--leader-elect-renew-deadline (${show(timings.renewDeadlineMs)}) must be less than ` +
        `--leader-elect-lease-duration (${show(timings.leaseDurationMs)}): a leader must step ` +
        'down before another replica may take the Lease; shorten the first or lengthen the second',
    );
  }
  if (!(RETRY_JITTER * timings.retryPeriodMs < timings.renewDeadlineMs)) {
    throw new CliError(
      `--leader-elect-retry-period (${show(timings.retryPeriodMs)}) must be less than ` +
        `--leader-elect-renew-deadline (${show(timings.renewDeadlineMs)}) / ${RETRY_JITTER}: ` +
        'the leader retries a failed renewal after up to 1.2 retry periods; shorten the ' +
        'retry period or lengthen the renew deadline',
    );
  }
  return timings;
}

/** The render limits the flags give; undefined when none is set (the defaults apply). */
export function renderLimits(flags: TuningFlags): RenderLimits | undefined {
  if (
    flags.renderWorkers === undefined &&
    flags.renderTimeout === undefined &&
    flags.renderWorkerHeap === undefined
  ) {
    return undefined;
  }
  return {
    ...(flags.renderWorkers !== undefined ? { workers: flags.renderWorkers } : {}),
    ...(flags.renderTimeout !== undefined ? { deadlineMs: flags.renderTimeout } : {}),
    ...(flags.renderWorkerHeap !== undefined ? { maxHeapMb: flags.renderWorkerHeap } : {}),
  };
}
