// The code base's one sleep: resolving on abort (long-running loops check their signal) or
// rejecting on abort (the CLI's waits end by throwing, reported as "interrupted").
import { getEventListeners } from 'node:events';
import { describe, expect, it } from '@jest/globals';
import {
  DeadlineError,
  SleepAbortedError,
  sleep,
  sleepOrThrow,
  untilAborted,
  withDeadline,
} from '../../../src/runtime/time.ts';

describe('sleep', () => {
  it('resolves when its signal aborts, at once if it already has', async () => {
    const stop = new AbortController();
    const slept = sleep(60_000, stop.signal);
    stop.abort(new Error('SIGINT received'));
    await expect(slept).resolves.toBeUndefined();
    await expect(sleep(60_000, stop.signal)).resolves.toBeUndefined();
  });
});

describe('sleepOrThrow', () => {
  it('resolves after its time when nothing aborts', async () => {
    await expect(sleepOrThrow(5, new AbortController().signal)).resolves.toBeUndefined();
    await expect(sleepOrThrow(5)).resolves.toBeUndefined();
  });

  it('rejects with an AbortError carrying the reason when its signal aborts', async () => {
    const stop = new AbortController();
    const reason = new Error('SIGINT received');
    const slept = sleepOrThrow(60_000, stop.signal);
    stop.abort(reason);
    const err = await slept.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SleepAbortedError);
    expect(err).toMatchObject({ name: 'AbortError', cause: reason });
    await expect(sleepOrThrow(60_000, stop.signal)).rejects.toBeInstanceOf(SleepAbortedError);
  });
});

describe('withDeadline', () => {
  it('gives the result in time, or a DeadlineError naming the work and the deadline', async () => {
    await expect(withDeadline(Promise.resolve(7), 1_000, 'x')).resolves.toBe(7);
    const never = new Promise<never>(() => undefined);
    await expect(withDeadline(never, 10, 'GET /version')).rejects.toThrow(
      new DeadlineError('GET /version', 10),
    );
    await expect(withDeadline(never, 10, 'GET /version')).rejects.toThrow(
      'GET /version: no result within 0.01 s',
    );
  });
});

describe('untilAborted', () => {
  it('leaves no listener on a long-lived signal however many waits settle under it', async () => {
    const stop = new AbortController();
    for (let i = 0; i < 50; i++) {
      await expect(untilAborted(Promise.resolve(i), stop.signal)).resolves.toBe(i);
      await expect(untilAborted(Promise.reject(new Error('no')), stop.signal)).rejects.toThrow(
        'no',
      );
    }
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });

  it('rejects with the reason when the signal aborts first, at once if it already has', async () => {
    const stop = new AbortController();
    const waiting = untilAborted(new Promise<never>(() => undefined), stop.signal);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    stop.abort(new Error('stopping'));
    await expect(waiting).rejects.toThrow('stopping');
    await expect(untilAborted(Promise.resolve(1), stop.signal)).rejects.toThrow('stopping');
  });
});
