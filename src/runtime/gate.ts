/**
 * Whether this replica may take part in running controllers at all — the leader election and
 * the shard ring — as opposed to serving webhooks only. An installation decides it (e.g. "the
 * cluster's webhook registration names us"); the manager asks before each time it joins.
 */
export interface ParticipationGate {
  /**
   * Resolves once this replica may take part, with a signal that aborts when it may no longer;
   * undefined when `signal` aborted first.
   */
  admit(signal: AbortSignal): Promise<AbortSignal | undefined>;
}
