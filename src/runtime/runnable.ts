/**
 * The one lifetime shape of every long-running part (controller-runtime's `Runnable`):
 * `start(signal)` runs until `signal` aborts and resolves once everything it started has
 * stopped. Rejecting (or resolving before the signal aborts) is an unrecoverable error: the
 * {@link Manager} stops the whole process with a non-zero exit code.
 *
 * `needLeaderElection` decides where it runs: `false` on every replica from the start (the
 * webhook server, TLS rotation, render pools), `true` only on the leader, once per term of
 * leadership (cluster-wide controllers). Controllers of objects split into shards are
 * `ShardRunnable`s instead (sharding/types.ts): once per term of each shard a replica
 * runs. A leader runnable's signal aborts with a
 * {@link LeaderElectionLostError} reason when the term is lost: stop at once, keep nothing
 * running; any other reason is a graceful stop.
 */
export interface Runnable {
  /** For logs and error messages. */
  readonly name: string;
  readonly needLeaderElection: boolean;
  start(signal: AbortSignal): Promise<void>;
}

/** A runnable from a function, e.g. `runnable('admission-pool', false, (s) => pool.run(s))`. */
export function runnable(
  name: string,
  needLeaderElection: boolean,
  start: (signal: AbortSignal) => Promise<void>,
): Runnable {
  return { name, needLeaderElection, start };
}
