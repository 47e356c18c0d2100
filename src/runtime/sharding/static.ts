/**
 * Every shard on this replica, with no Lease (`--no-leader-election`: one replica, tests):
 * each shard's term starts at once and ends when the replica stops.
 */
import type { Logger } from 'pino';
import { RuntimeConfigError } from '../errors.ts';
import { aborted } from '../time.ts';
import { shardNames } from './rendezvous.ts';
import { ShardTerms } from './terms.ts';
import { ShardHandoffError, type ShardRunnable, type ShardSet } from './types.ts';

export interface StaticShardsOptions {
  readonly shards: number;
  readonly logger: Logger;
  readonly onFailure?: (runnable: string, error: unknown) => void;
}

export class StaticShards implements ShardSet {
  readonly shards: readonly string[];
  private readonly terms: ShardTerms;
  private readonly listeners = new Set<() => void>();

  constructor(options: StaticShardsOptions) {
    if (!Number.isInteger(options.shards) || options.shards < 1) {
      throw new RuntimeConfigError(
        `must be a whole number of at least 1, got ${options.shards}`,
        'sharding.shards',
      );
    }
    this.shards = shardNames(options.shards);
    this.terms = new ShardTerms({
      logger: options.logger,
      onEnd: () => this.changed(),
      onFailure: options.onFailure,
    });
  }

  register(runnable: ShardRunnable): void {
    this.terms.register(runnable);
  }

  get hasRunnables(): boolean {
    return this.terms.hasRunnables;
  }

  runs(shard: string): boolean {
    return this.terms.runs(shard);
  }

  isHeld(shard: string): boolean {
    return this.runs(shard);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  async run(signal: AbortSignal): Promise<void> {
    for (const shard of this.shards) this.terms.start(shard);
    this.changed();
    await aborted(signal);
    await this.terms.stopAll(new ShardHandoffError('*', undefined, 'this replica stops'));
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
