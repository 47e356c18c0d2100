/**
 * How long to wait before looking at an Instance again while its plan waits or errs: a real
 * backoff (doubling from `minMs` to `maxMs`), reset whenever the plan makes progress or a new
 * run starts. Events from owned objects wake the Instance earlier. In memory only: a restart
 * starts again from `minMs`, which is harmless.
 */
export interface WaitBackoffOptions {
  readonly minMs: number;
  readonly maxMs: number;
}

export class WaitBackoff {
  private readonly attempts = new Map<string, { run: string; n: number }>();
  constructor(private readonly options: WaitBackoffOptions) {}

  /** The delay for `key` waiting on run `run`; `progressed` resets it. */
  next(key: string, run: string, progressed: boolean): number {
    const known = this.attempts.get(key);
    const n = !known || known.run !== run || progressed ? 0 : known.n + 1;
    this.attempts.set(key, { run, n });
    return Math.min(this.options.maxMs, this.options.minMs * 2 ** Math.min(n, 30));
  }

  forget(key: string): void {
    this.attempts.delete(key);
  }
}
