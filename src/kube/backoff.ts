/**
 * Backoff policies. Both are pure bookkeeping (no timers): callers sleep on their own signal.
 *
 * See examples/api/runtime.ts.
 */

/**
 * `baseMs × factor^attempt`, capped at `maxMs` (attempt 0 gives `baseMs`). The exponent is
 * capped too, so a long failure streak never overflows to Infinity or NaN.
 */
export function exponentialDelayMs(
  baseMs: number,
  maxMs: number,
  attempt: number,
  factor = 2,
): number {
  return Math.min(maxMs, baseMs * factor ** Math.min(attempt, 60));
}

export interface JitteredBackoffOptions {
  readonly initialMs?: number;
  readonly maxMs?: number;
  readonly factor?: number;
  /** Fraction of the delay added at random (0.5 → delay × [1, 1.5)). */
  readonly jitter?: number;
  /** After this long without failures the next failure starts from `initialMs` again. */
  readonly resetAfterMs?: number;
  readonly now?: () => number;
  readonly random?: () => number;
}

/** Exponential backoff with jitter and reset after a healthy period (client-go's watch backoff). */
export class JitteredBackoff {
  private attempt = 0;
  private lastFailure = -Infinity;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly resetAfterMs: number;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(options: JitteredBackoffOptions = {}) {
    this.initialMs = options.initialMs ?? 800;
    this.maxMs = options.maxMs ?? 30_000;
    this.factor = options.factor ?? 2;
    this.jitter = options.jitter ?? 0.5;
    this.resetAfterMs = options.resetAfterMs ?? 120_000;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  /** The delay before the next attempt, after a failure. */
  next(): number {
    const now = this.now();
    if (now - this.lastFailure > this.resetAfterMs) this.attempt = 0;
    this.lastFailure = now;
    const base = exponentialDelayMs(this.initialMs, this.maxMs, this.attempt, this.factor);
    this.attempt += 1;
    return Math.min(this.maxMs, base * (1 + this.jitter * this.random()));
  }

  /** Forget past failures now. */
  reset(): void {
    this.attempt = 0;
    this.lastFailure = -Infinity;
  }
}

export interface ItemBackoffOptions {
  readonly baseMs?: number;
  readonly maxMs?: number;
}

/** Per-key exponential failure backoff: 5 ms doubling to a cap (default 1000 s). */
export class ItemExponentialBackoff<K> {
  private readonly failures = new Map<K, number>();
  readonly baseMs: number;
  readonly maxMs: number;

  constructor(options: ItemBackoffOptions = {}) {
    this.baseMs = options.baseMs ?? 5;
    this.maxMs = options.maxMs ?? 1_000_000;
  }

  /** Records one more failure of `key` and returns how long to wait before retrying it. */
  when(key: K): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return exponentialDelayMs(this.baseMs, this.maxMs, n);
  }

  /** How many times `key` failed since it last succeeded. */
  retries(key: K): number {
    return this.failures.get(key) ?? 0;
  }

  forget(key: K): void {
    this.failures.delete(key);
  }
}

export interface BucketRateLimiterOptions {
  /** Sustained rate, tokens per second (client-go's default: 10). */
  readonly qps: number;
  /** Bucket size (client-go's default: 100). */
  readonly burst: number;
  readonly now?: () => number;
}

/**
 * An overall token bucket: `reserve()` takes a token and returns how long to wait for it.
 * Combined with the per-key backoff it bounds the retry rate of a whole queue.
 */
export class BucketRateLimiter {
  private tokens: number;
  private last: number;
  private readonly now: () => number;

  constructor(private readonly options: BucketRateLimiterOptions) {
    if (!(options.qps > 0) || !(options.burst >= 1)) {
      throw new Error(
        `rate limit needs qps > 0 and burst ≥ 1, got qps=${options.qps} burst=${options.burst}`,
      );
    }
    this.now = options.now ?? (() => performance.now());
    this.tokens = options.burst;
    this.last = this.now();
  }

  /** Takes one token (possibly borrowing from the future); returns the wait in ms. */
  reserve(): number {
    const now = this.now();
    this.tokens = Math.min(
      this.options.burst,
      this.tokens + ((now - this.last) / 1000) * this.options.qps,
    );
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.options.qps) * 1000;
  }
}
