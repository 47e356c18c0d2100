/**
 * Which live member should run which shard: balanced (every member runs ⌊S/R⌋ or ⌈S/R⌉ of
 * the S shards), sticky (a member keeps the shards it runs while that keeps the balance),
 * and otherwise rendezvous-hashed, so that every replica computes the same assignment from
 * the same view of the Leases, with no coordinator.
 *
 * Under churn only what must move moves: when a member leaves, its shards go to the others
 * (nobody else's move); when one joins, it takes its quota from the members above theirs.
 * Once the moves are done the assignment is a fixed point: computed again from the new
 * holders, it is the same.
 */
import { rendezvousScore } from './rendezvous.ts';

export interface AssignmentInput {
  /** Every shard, e.g. "0" … "S-1". */
  readonly shards: readonly string[];
  /** The live members (order does not matter). */
  readonly members: readonly string[];
  /** Who runs each shard now; holders that are not live members are ignored. */
  readonly holders: ReadonlyMap<string, string>;
}

/** shard → member; empty without members. */
export function assignShards(input: AssignmentInput): Map<string, string> {
  const members = [...new Set(input.members)].sort();
  const result = new Map<string, string>();
  if (members.length === 0) return result;
  const held = new Map<string, string[]>(members.map((m) => [m, []]));
  for (const shard of input.shards) {
    const holder = input.holders.get(shard);
    if (holder !== undefined) held.get(holder)?.push(shard);
  }
  const quota = quotas(input.shards.length, members, held);
  const count = new Map<string, number>(members.map((m) => [m, 0]));
  // Sticky: each member keeps up to its quota of what it runs, its best-scored shards first.
  for (const member of members) {
    const mine = (held.get(member) ?? []).sort(
      (a, b) => rendezvousScore(member, b) - rendezvousScore(member, a) || compare(a, b),
    );
    for (const shard of mine.slice(0, quota.get(member) ?? 0)) {
      result.set(shard, member);
      count.set(member, (count.get(member) ?? 0) + 1);
    }
  }
  // The rest by rendezvous: best (shard, member) pairs first, within each member's quota.
  const pairs: Array<{ shard: string; member: string; score: number }> = [];
  for (const shard of input.shards) {
    if (result.has(shard)) continue;
    for (const member of members) {
      pairs.push({ shard, member, score: rendezvousScore(member, shard) });
    }
  }
  pairs.sort(
    (a, b) => b.score - a.score || compare(a.shard, b.shard) || compare(a.member, b.member),
  );
  for (const { shard, member } of pairs) {
    if (result.has(shard) || (count.get(member) ?? 0) >= (quota.get(member) ?? 0)) continue;
    result.set(shard, member);
    count.set(member, (count.get(member) ?? 0) + 1);
  }
  return result;
}

/**
 * ⌊S/R⌋ each, and one more for the S mod R members that run the most shards now (ties by a
 * hash of the member's name, then the name), so that members already above the floor keep
 * their extra shard instead of passing it around.
 */
function quotas(
  shardCount: number,
  members: readonly string[],
  held: ReadonlyMap<string, readonly string[]>,
): Map<string, number> {
  const base = Math.floor(shardCount / members.length);
  const extra = shardCount % members.length;
  const order = [...members].sort(
    (a, b) =>
      (held.get(b)?.length ?? 0) - (held.get(a)?.length ?? 0) ||
      rendezvousScore(b, 'quota') - rendezvousScore(a, 'quota') ||
      compare(a, b),
  );
  return new Map(order.map((m, i) => [m, base + (i < extra ? 1 : 0)]));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
