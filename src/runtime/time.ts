/**
 * The code base's timing helpers: an abortable sleep (resolving, or rejecting, on abort) and a
 * deadline on a promise. Both clear
 * their timer and listener on every path, so nothing keeps the process alive after a stop.
 */

/** Waits `ms`, or less when `signal` aborts first. Never rejects. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** A wait that its signal ended (named `AbortError`, like the platform's own). */
export class SleepAbortedError extends Error {
  override readonly name = 'AbortError';
  constructor(options?: { cause?: unknown }) {
    super('The operation was aborted', options);
  }
}

/**
 * {@link sleep}, but rejecting with a {@link SleepAbortedError} (its cause the signal's
 * reason) when `signal` aborts: for loops that end by throwing once their caller gives up.
 */
export async function sleepOrThrow(ms: number, signal?: AbortSignal): Promise<void> {
  await sleep(ms, signal);
  if (signal?.aborted) throw new SleepAbortedError({ cause: signal.reason });
}

/** `work` did not settle within its deadline. */
export class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
  constructor(
    readonly what: string,
    readonly deadlineMs: number,
  ) {
    super(`${what}: no result within ${deadlineMs / 1000} s`);
  }
}

/**
 * `work`'s result, or a {@link DeadlineError} after `ms`. The work itself is not cancelled:
 * give it a signal of its own (e.g. `AbortSignal.timeout`) when it can be.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(what, ms)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `work`'s outcome, or a rejection with `signal`'s reason when it aborts first. One listener
 * per call, removed when either settles: waiting on many promises under one long-lived signal
 * (a manager's stop) goes through one call over `Promise.all`, so the signal's listener count
 * stays flat however many there are.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Resolves when `signal` aborts (at once if it already has). */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}
