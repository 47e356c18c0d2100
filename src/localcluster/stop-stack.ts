/**
 * What a start has brought up so far, as the stops to run when it goes down: each step pushes
 * its own stop (Go's `defer`), and `stopAll` runs them newest first. Hand-written because
 * Node 20 has no AsyncDisposableStack.
 *
 * The first stop that fails ends the run and propagates: what lies below it (the work folder
 * and the cluster's record at the bottom) stays, so the record still names everything for the
 * next start's reaper (registry.ts) rather than being removed over parts still running.
 */
export class StopStack {
  private readonly stops: Array<() => Promise<unknown>> = [];

  defer(stop: () => Promise<unknown>): void {
    this.stops.push(stop);
  }

  /** Runs the stops newest first; each runs once, however often this is called. */
  async stopAll(): Promise<void> {
    for (let stop = this.stops.pop(); stop; stop = this.stops.pop()) await stop();
  }
}
