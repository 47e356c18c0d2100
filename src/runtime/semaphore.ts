/**
 * A counting semaphore with a FIFO wait list: several controllers (one per shard a replica
 * runs) share one limit on reconciles in flight, so a replica runs as many at once whatever
 * number of shards it holds.
 */
export class Semaphore {
  private available: number;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly permits: number) {
    if (!Number.isInteger(permits) || permits < 1) {
      throw new RangeError(`a semaphore needs at least 1 permit, got ${permits}`);
    }
    this.available = permits;
  }

  /** Permits free now. */
  get free(): number {
    return this.available;
  }

  /**
   * Resolves with the release function once a permit is free (in the order asked), or
   * undefined when `signal` aborts first.
   */
  acquire(signal: AbortSignal): Promise<(() => void) | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    if (this.available > 0) {
      this.available -= 1;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      const grant = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(this.releaser());
      };
      const onAbort = (): void => {
        const at = this.waiting.indexOf(grant);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(undefined);
      };
      this.waiting.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.available += 1;
    };
  }
}
