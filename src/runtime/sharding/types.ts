/**
 * What sharded work looks like to the runtime. The objects of a kind are split into S shards
 * by a label (its value a shard name, "0" … "S-1"); each shard is run by one replica at a
 * time, for a *term*: from when the replica took the shard until it hands it over or loses
 * it. A {@link ShardRunnable} is started once per term of each shard its replica runs.
 */

/**
 * Long-running work of one shard (a controller over the shard's objects). `start(shard,
 * signal)` runs one term of `shard` and resolves once everything it started has stopped.
 * The signal's reason says how the term ends:
 * * {@link ShardHandoffError}: a graceful end (the shard moves to another replica, or this
 *   one stops): take no new work, let what runs finish, then resolve — the shard is handed
 *   over only after that;
 * * a `LeaderElectionLostError`: this replica can no longer prove it owns the shard; stop at
 *   once.
 */
export interface ShardRunnable {
  readonly name: string;
  start(shard: string, signal: AbortSignal): Promise<void>;
}

/** A replica's view of the shards: which it runs, and whether anyone runs a given one. */
export interface ShardView {
  /** Every shard, "0" … "S-1". */
  readonly shards: readonly string[];
  /** True while this replica runs `shard`. */
  runs(shard: string): boolean;
  /**
   * True while some live replica (this one included) holds `shard`, as far as this replica
   * knows. Shards beyond this replica's count may still be held by a replica started with a
   * larger one.
   */
  isHeld(shard: string): boolean;
  /** Called after every change of what this replica runs or knows held; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

/** The graceful end of a shard's term: drain, then the shard is handed over. */
export class ShardHandoffError extends Error {
  override readonly name = 'ShardHandoffError';
  constructor(
    readonly shard: string,
    readonly to: string | undefined,
    detail: string,
  ) {
    super(`shard ${shard}: ${detail}`);
  }
}

/** Runs the shards of one replica: its {@link ShardRunnable}s for each shard term. */
export interface ShardSet extends ShardView {
  /** Registers work to run for each term of each shard; before `run`. */
  register(runnable: ShardRunnable): void;
  readonly hasRunnables: boolean;
  /**
   * Runs shard terms until `signal` aborts, then ends them gracefully (drained, handed over)
   * and resolves.
   */
  run(signal: AbortSignal): Promise<void>;
}
