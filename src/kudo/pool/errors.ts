/** Errors of the render pool, each naming what was rendered and the limit it hit. */

export type RenderLimit = 'deadline' | 'memory' | 'crash';

/**
 * A job ended by the pool: it ran past its deadline, its worker ran out of memory, or its
 * worker died. Rendering the same job again ends the same way, so callers treat it as
 * final (FATAL_ERROR for a plan, a denial for admission).
 */
export class RenderLimitError extends Error {
  override readonly name = 'RenderLimitError';
  constructor(
    /** `template <name>` or `parameter value`. */
    readonly subject: string,
    readonly limit: RenderLimit,
    detail: string,
  ) {
    super(`${subject}: ${detail}`);
  }
}

/** The pool is stopping or stopped; the job did not run. Retry after restart. */
export class RenderPoolStoppedError extends Error {
  override readonly name = 'RenderPoolStoppedError';
  constructor() {
    super('the render pool is stopped');
  }
}

/** Too many jobs are waiting; the job did not run. Transient: retry later. */
export class RenderPoolBusyError extends Error {
  override readonly name = 'RenderPoolBusyError';
  constructor(readonly queued: number) {
    super(`the render pool has ${queued} jobs waiting (its limit); try again shortly`);
  }
}
