/**
 * Rendezvous (highest-random-weight) hashing: a key goes to the candidate whose hash of
 * (candidate, key) is highest. Every process computes the same answer from the same
 * candidates, with nothing stored; adding a candidate moves only the keys it now wins, and
 * removing one moves only the keys it had.
 *
 * Written here rather than taken from npm: it is a dozen lines, and the packages that offer it
 * are unmaintained. The hash is cyrb53 (public domain): not cryptographic — nothing here is
 * secret, and a key's owner gains nothing by choosing its name — but well mixed and about ten
 * times cheaper than SHA-256 through node:crypto, which matters because the webhook scores
 * every shard for each Instance it creates.
 */

/** The weight of `key` for `candidate`: a 53-bit hash of (candidate NUL key). */
export function rendezvousScore(candidate: string, key: string): number {
  return cyrb53(`${candidate}\0${key}`);
}

/** cyrb53 (bryc, public domain): a 53-bit string hash with good avalanche. */
function cyrb53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * The candidate `key` goes to (undefined when there is none). Ties, which a 53-bit hash makes
 * vanishingly rare, go to the smaller name, so every process still agrees.
 */
export function rendezvous(key: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const candidate of candidates) {
    const score = rendezvousScore(candidate, key);
    if (score > bestScore || (score === bestScore && best !== undefined && candidate < best)) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

/** The names of `count` shards: "0" … "count-1". */
export function shardNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => String(i));
}

/**
 * The shard of `key` among `count` shards. Changing `count` moves only the keys the new
 * shards win (growing) or those of the removed shards (shrinking).
 */
export function shardOf(key: string, count: number): string {
  if (!Number.isInteger(count) || count < 1) {
    throw new RangeError(`shard count must be a positive integer, got ${count}`);
  }
  if (count === 1) return '0';
  return rendezvous(key, shardNames(count)) ?? '0';
}

/** Whether `value` names one of `count` shards (a label a person or an older count wrote may not). */
export function isShardName(value: string | undefined, count: number): value is string {
  if (value === undefined || !/^(0|[1-9][0-9]{0,5})$/.test(value)) return false;
  return Number(value) < count;
}
