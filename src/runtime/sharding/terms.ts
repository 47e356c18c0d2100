/**
 * The terms of the shards one replica runs: each term starts every registered
 * {@link ShardRunnable} for its shard and ends when its signal is aborted (the reason says
 * graceful or hard, see types.ts) and all of them have returned. Used by the shard ring and
 * by the fixed set of shards of a replica without leases.
 */
import type { Logger } from 'pino';
import type { ShardRunnable } from './types.ts';

export interface ShardTermsOptions {
  readonly logger: Logger;
  /** After a term ended (and before its shard may start again). */
  readonly onEnd: () => void;
  /** A runnable failed or returned before its term ended: unrecoverable for the process. */
  readonly onFailure?: (runnable: string, error: unknown) => void;
  /** Metric hook: this replica runs `shard` (true) or no longer (false). */
  readonly owned?: (shard: string, running: boolean) => void;
}

interface Term {
  readonly abort: AbortController;
  readonly done: Promise<void>;
  readonly since: number;
  stopping: boolean;
}

export class ShardTerms {
  private readonly runnables: ShardRunnable[] = [];
  private readonly terms = new Map<string, Term>();

  constructor(private readonly options: ShardTermsOptions) {}

  register(runnable: ShardRunnable): void {
    this.runnables.push(runnable);
  }

  get hasRunnables(): boolean {
    return this.runnables.length > 0;
  }

  /** A term of `shard` exists (running or ending). */
  has(shard: string): boolean {
    return this.terms.has(shard);
  }

  /** A term of `shard` runs and is not ending. */
  runs(shard: string): boolean {
    const term = this.terms.get(shard);
    return term !== undefined && !term.stopping;
  }

  /** How long the current term of `shard` has run (0 without one). */
  heldFor(shard: string, now: number): number {
    const term = this.terms.get(shard);
    return term ? now - term.since : 0;
  }

  /** Shards with a running (not ending) term. */
  running(): string[] {
    return [...this.terms].filter(([, t]) => !t.stopping).map(([s]) => s);
  }

  start(shard: string): void {
    if (this.terms.has(shard)) return;
    const abort = new AbortController();
    const done = Promise.all(this.runnables.map((r) => this.runOne(r, shard, abort.signal)));
    const term: Term = {
      abort,
      done: done.then(() => undefined),
      since: Date.now(),
      stopping: false,
    };
    this.terms.set(shard, term);
    this.options.owned?.(shard, true);
    this.options.logger.info({ shard }, 'shard term started');
    void term.done.then(() => {
      if (this.terms.get(shard) === term) this.terms.delete(shard);
      this.options.owned?.(shard, false);
      this.options.logger.info({ shard }, 'shard term ended');
      this.options.onEnd();
    });
  }

  /** Ends the term of `shard` with `reason` and waits until it has ended. */
  async stop(shard: string, reason: unknown): Promise<void> {
    const term = this.terms.get(shard);
    if (!term) return;
    term.stopping = true;
    term.abort.abort(reason);
    await term.done;
  }

  /** Ends every term with `reason` and waits for all. */
  async stopAll(reason: unknown): Promise<void> {
    await Promise.all([...this.terms.keys()].map((shard) => this.stop(shard, reason)));
  }

  private async runOne(runnable: ShardRunnable, shard: string, signal: AbortSignal): Promise<void> {
    let failure: unknown;
    try {
      await runnable.start(shard, signal);
      if (!signal.aborted) failure = new Error(`${runnable.name} stopped on its own`);
    } catch (err) {
      if (signal.aborted) {
        this.options.logger.warn({ err, runnable: runnable.name, shard }, 'failed while stopping');
        return;
      }
      failure = err;
    }
    if (failure === undefined) return;
    this.options.logger.error(
      { err: failure, runnable: runnable.name, shard },
      'shard work failed',
    );
    this.options.onFailure?.(runnable.name, failure);
  }
}
