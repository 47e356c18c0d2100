// What a test started that keeps running (request loops, watches, ledgers) is stopped after it,
// passed or failed: a failed test must not leave loops calling a stopped cluster.
import { afterEach } from '@jest/globals';

export interface Stoppable {
  stop(): Promise<unknown>;
}

/** Registers an afterEach in the calling describe; `track(x)` returns x, stopped after the test. */
export function stoppedAfterEach(): <T extends Stoppable>(started: T) => T {
  let running: Stoppable[] = [];
  afterEach(async () => {
    const stopping = running;
    running = [];
    await Promise.allSettled(stopping.map((r) => r.stop()));
  });
  return (started) => {
    running.push(started);
    return started;
  };
}
