// The code base's one sleep: resolving on abort (long-running loops check their signal) or
// rejecting on abort (the CLI's waits end by throwing, reported as "interrupted").
import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from '@jest/globals';
import {
  deadlineSignal,
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

describe('deadlineSignal', () => {
  it('aborts with a TimeoutError after its time, and leaves nothing on the parent', async () => {
    const parent = new AbortController();
    const deadline = deadlineSignal(20, parent.signal);
    expect(deadline.signal.aborted).toBe(false);
    await new Promise((resolve) => deadline.signal.addEventListener('abort', resolve));
    expect((deadline.signal.reason as DOMException).name).toBe('TimeoutError');
    deadline.clear();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });

  it("aborts with the parent's reason when the parent aborts first, at once if it has", () => {
    const parent = new AbortController();
    const deadline = deadlineSignal(60_000, parent.signal);
    parent.abort(new Error('stopping'));
    expect((deadline.signal.reason as Error).message).toBe('stopping');
    deadline.clear();
    expect((deadlineSignal(60_000, parent.signal).signal.reason as Error).message).toBe('stopping');
  });

  it('once cleared, neither the timer nor the parent aborts it', async () => {
    const parent = new AbortController();
    const deadline = deadlineSignal(10, parent.signal);
    deadline.clear();
    await sleep(50);
    parent.abort();
    expect(deadline.signal.aborted).toBe(false);
  });

  // What AbortSignal.any([parent, AbortSignal.timeout(ms)]) does not guarantee on Node 20
  // (nodejs/node#57736): the deadline fires even when nothing but a listener refers to it and
  // the garbage collector runs in between.
  it('fires after a garbage collection with only its listener holding it', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const fired = new Promise<string>((resolve) => {
      deadlineSignal(200, new AbortController().signal).signal.addEventListener('abort', (e) =>
        resolve(((e.target as AbortSignal).reason as DOMException).name),
      );
    });
    // The platform's composite is collected when the collection comes after its timer was
    // armed (20 ms here); then it never fires.
    await sleep(20);
    gc();
    await expect(fired).resolves.toBe('TimeoutError');
  });
});
