/** Errors of the controller runtime. */

/**
 * Thrown from `reconcile` when retrying cannot help (invalid spec, missing dependency that a
 * person must fix). Counted, logged, and not retried until the next event for the key.
 *
 * See examples/api/runtime.ts.
 */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** This process held the leader lease and lost it: the term ends, the manager rejoins the election. */
export class LeaderElectionLostError extends Error {
  override readonly name = 'LeaderElectionLostError';
  constructor(
    readonly lease: string,
    readonly identity: string,
    detail: string,
  ) {
    super(`lost leader lease ${lease} held as ${identity}: ${detail}`);
  }
}

/** Settings that contradict each other or are missing; thrown at construction. */
export class RuntimeConfigError extends Error {
  override readonly name = 'RuntimeConfigError';
  constructor(
    message: string,
    readonly setting: string,
  ) {
    super(`${setting}: ${message}`);
  }
}

/** The work queue was shut down; nothing more can be added or taken. */
export class QueueShutDownError extends Error {
  override readonly name = 'QueueShutDownError';
  constructor(readonly queue: string) {
    super(`work queue ${queue} is shut down`);
  }
}
