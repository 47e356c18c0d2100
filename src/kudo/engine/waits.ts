import { ItemExponentialBackoff } from '../../runtime/index.ts';

export interface WaitBackoffOptions {
  readonly minMs: number;
  readonly maxMs: number;
}

/**
 * How long to wait before looking at an Instance again while its plan waits or errs: a real
 * backoff (doubling from `minMs` to `maxMs`), reset whenever the plan makes progress or a new
 * run starts. Events from owned objects wake the Instance earlier. In memory only: a restart
 * starts again from `minMs`, which is harmless.
 */
export class WaitBackoff {
  /** The run each key's failure count belongs to: another run starts from `minMs`. */
  private readonly runs = new Map<string, string>();
  private readonly backoff: ItemExponentialBackoff<string>;

  constructor(options: WaitBackoffOptions) {
    this.backoff = new ItemExponentialBackoff({ baseMs: options.minMs, maxMs: options.maxMs });
  }

  /** The delay for `key` waiting on run `run`; `progressed` resets it. */
  next(key: string, run: string, progressed: boolean): number {
    if (this.runs.get(key) !== run || progressed) this.backoff.forget(key);
    this.runs.set(key, run);
    return this.backoff.when(key);
  }

  forget(key: string): void {
    this.runs.delete(key);
    this.backoff.forget(key);
  }
}

/**
 * How the waits of one plan pass get noticed. When every task that waits is woken by a watch
 * event of what it waits for (an applied object of a watched kind), the engine needs no timer:
 * the event re-queues the Instance and the next pass reads the cache (level-triggered). Any
 * other wait (a kind not watched, a remote cluster, a Pipe, a prune) or an error keeps the
 * backoff timer.
 */
export class PassWaits {
  private waits = 0;
  private polled = 0;

  /** A task is not done; `onEvent`: a watch event wakes the Instance when that changes. */
  wait(onEvent: boolean): void {
    this.waits += 1;
    if (!onEvent) this.polled += 1;
  }

  /** The pass waited, and only for things whose watch events wake the Instance. */
  get eventDriven(): boolean {
    return this.waits > 0 && this.polled === 0;
  }
}
