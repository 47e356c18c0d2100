/**
 * A work queue of keys with client-go semantics: adding a key that is already waiting does
 * nothing; a key is handed to at most one worker at a time, and adds while it is processed
 * re-queue it once `done` is called; delayed adds keep the earliest requested time; failures
 * back off per key (5 ms doubling to 1000 s) until `forget`.
 *
 * See examples/api/runtime.ts.
 */
import type { BucketRateLimiter } from './backoff.ts';
import { ItemExponentialBackoff } from './backoff.ts';
import type { RuntimeMetrics } from './metrics.ts';

export interface WorkQueueOptions {
  readonly name: string;
  readonly metrics?: RuntimeMetrics;
  readonly backoff?: ItemExponentialBackoff<string>;
  /** Optional overall limit on retries (rate-limited adds) of the whole queue. */
  readonly overallRateLimit?: BucketRateLimiter;
  readonly now?: () => number;
}

interface Delayed {
  readonly at: number;
  readonly timer: NodeJS.Timeout;
}

export class WorkQueue {
  private items: string[] = [];
  private head = 0;
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly delayed = new Map<string, Delayed>();
  private readonly addedAt = new Map<string, number>();
  private readonly startedAt = new Map<string, number>();
  private waiters: ((key: string | undefined) => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  private shuttingDown = false;
  private readonly backoff: ItemExponentialBackoff<string>;
  private readonly now: () => number;
  private readonly labels: { name: string; controller: string };

  constructor(private readonly options: WorkQueueOptions) {
    this.backoff = options.backoff ?? new ItemExponentialBackoff();
    this.now = options.now ?? (() => performance.now());
    this.labels = { name: options.name, controller: options.name };
  }

  /** Keys waiting (not counting delayed or in-flight ones). */
  get length(): number {
    return this.items.length - this.head;
  }

  get inFlight(): number {
    return this.processing.size;
  }

  /** Keys scheduled for later. */
  get pendingDelayed(): number {
    return this.delayed.size;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  add(key: string): void {
    if (this.shuttingDown) return;
    const later = this.delayed.get(key);
    if (later) {
      clearTimeout(later.timer);
      this.delayed.delete(key);
    }
    if (this.dirty.has(key)) return;
    this.options.metrics?.queueAdds.inc(this.labels);
    this.dirty.add(key);
    this.addedAt.set(key, this.now());
    if (this.processing.has(key)) return; // re-queued by done()
    this.push(key);
  }

  /** Adds after `delayMs`; if the key is already scheduled, the earlier time wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const at = this.now() + delayMs;
    const existing = this.delayed.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    this.delayed.set(key, { at, timer });
  }

  /** Adds after the key's next backoff delay (or the overall limit's, if longer); returns it. */
  addRateLimited(key: string): number {
    const delay = Math.max(this.backoff.when(key), this.options.overallRateLimit?.reserve() ?? 0);
    this.options.metrics?.queueRetries.inc(this.labels);
    this.addAfter(key, delay);
    return delay;
  }

  /** Clears the key's failure backoff (call on success). */
  forget(key: string): void {
    this.backoff.forget(key);
  }

  /** Failures of `key` since its last `forget`. */
  retries(key: string): number {
    return this.backoff.retries(key);
  }

  /**
   * The next key, marked as processing until `done(key)`. Resolves `undefined` when the queue
   * shuts down or `signal` aborts.
   */
  get(signal?: AbortSignal): Promise<string | undefined> {
    if (this.shuttingDown || signal?.aborted) return Promise.resolve(undefined);
    if (this.length > 0) return Promise.resolve(this.take());
    return new Promise((resolve) => {
      const waiter = (key: string | undefined): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(key);
      };
      const onAbort = (): void => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Marks the key finished; if it was added meanwhile it goes back in the queue. */
  done(key: string): void {
    if (!this.processing.delete(key)) return;
    const started = this.startedAt.get(key);
    this.startedAt.delete(key);
    if (started !== undefined)
      this.options.metrics?.workDuration.observe(this.labels, (this.now() - started) / 1000);
    if (this.dirty.has(key) && !this.shuttingDown) this.push(key);
    if (this.processing.size === 0) {
      const idle = this.idleWaiters;
      this.idleWaiters = [];
      for (const fn of idle) fn();
    }
  }

  /** Stops handing out keys and accepting adds; cancels delayed adds. Idempotent. */
  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const d of this.delayed.values()) clearTimeout(d.timer);
    this.delayed.clear();
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(undefined);
  }

  /**
   * Shuts down, then waits for in-flight keys to be `done`, at most `timeoutMs`.
   * Resolves true when drained, false on timeout.
   */
  async shutDownWithDrain(timeoutMs: number): Promise<boolean> {
    this.shutDown();
    if (this.processing.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const drained = new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true)));
    const timeout = new Promise<boolean>(
      (resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)),
    );
    try {
      return await Promise.race([drained, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private push(key: string): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      waiter(this.takeKey(key));
      return;
    }
    this.items.push(key);
    this.options.metrics?.queueDepth.set(this.labels, this.length);
  }

  private take(): string {
    const key = this.items[this.head] as string;
    this.head += 1;
    // Compact now and then so the array does not grow without bound.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    this.options.metrics?.queueDepth.set(this.labels, this.length);
    return this.takeKey(key);
  }

  private takeKey(key: string): string {
    this.processing.add(key);
    this.dirty.delete(key);
    const added = this.addedAt.get(key);
    this.addedAt.delete(key);
    const now = this.now();
    if (added !== undefined)
      this.options.metrics?.queueDuration.observe(this.labels, (now - added) / 1000);
    this.startedAt.set(key, now);
    return key;
  }
}
