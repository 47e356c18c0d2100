import { describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BucketRateLimiter,
  ItemExponentialBackoff,
  JitteredBackoff,
} from '../../../src/runtime/backoff.ts';
import { WorkQueue } from '../../../src/runtime/workqueue.ts';

describe('WorkQueue', () => {
  it('deduplicates keys that are waiting', async () => {
    const q = new WorkQueue({ name: 't' });
    q.add('a');
    q.add('a');
    q.add('b');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    q.shutDown();
  });

  it('never hands a key to two workers; an add during processing re-queues it after done', async () => {
    const q = new WorkQueue({ name: 't' });
    q.add('a');
    expect(await q.get()).toBe('a');
    q.add('a');
    q.add('a');
    expect(q.length).toBe(0); // held back while in flight
    const second = q.get();
    let got: string | undefined;
    void second.then((k) => (got = k));
    await sleep(5);
    expect(got).toBeUndefined();
    q.done('a');
    expect(await second).toBe('a');
    q.done('a');
    expect(q.length).toBe(0);
    q.shutDown();
  });

  it('keeps the earliest of several delayed adds', async () => {
    const q = new WorkQueue({ name: 't' });
    q.addAfter('a', 10_000);
    q.addAfter('a', 20);
    q.addAfter('a', 30_000);
    expect(q.pendingDelayed).toBe(1);
    const ac = new AbortController();
    const t = setTimeout(() => ac.abort(), 2_000);
    expect(await q.get(ac.signal)).toBe('a');
    clearTimeout(t);
    expect(q.pendingDelayed).toBe(0);
    q.shutDown();
  });

  it('an immediate add supersedes a delayed one', async () => {
    const q = new WorkQueue({ name: 't' });
    q.addAfter('a', 60_000);
    q.add('a');
    expect(q.pendingDelayed).toBe(0);
    expect(await q.get()).toBe('a');
    q.shutDown();
  });

  it('backs off per key with growing delays, cleared by forget', () => {
    const q = new WorkQueue({
      name: 't',
      backoff: new ItemExponentialBackoff({ baseMs: 5, maxMs: 40 }),
    });
    const delays = [1, 2, 3, 4, 5].map(() => q.addRateLimited('a'));
    expect(delays).toEqual([5, 10, 20, 40, 40]);
    expect(q.retries('a')).toBe(5);
    expect(q.addRateLimited('b')).toBe(5);
    q.forget('a');
    expect(q.retries('a')).toBe(0);
    expect(q.addRateLimited('a')).toBe(5);
    q.shutDown();
    expect(q.pendingDelayed).toBe(0);
  });

  it('shutdown wakes waiting workers, refuses adds and drains in-flight work', async () => {
    const q = new WorkQueue({ name: 't' });
    const waiting = q.get();
    q.add('x');
    expect(await waiting).toBe('x');
    const idle = q.get();
    const drained = q.shutDownWithDrain(5_000);
    expect(await idle).toBeUndefined();
    q.add('y');
    expect(q.length).toBe(0);
    let finished = false;
    void drained.then(() => (finished = true));
    await sleep(10);
    expect(finished).toBe(false);
    q.done('x');
    expect(await drained).toBe(true);
  });

  it('a drain that exceeds its deadline reports false', async () => {
    const q = new WorkQueue({ name: 't' });
    q.add('x');
    await q.get();
    expect(await q.shutDownWithDrain(20)).toBe(false);
  });

  it('get resolves undefined when its signal aborts', async () => {
    const q = new WorkQueue({ name: 't' });
    const ac = new AbortController();
    const p = q.get(ac.signal);
    ac.abort();
    expect(await p).toBeUndefined();
    q.add('a');
    expect(await q.get()).toBe('a'); // the aborted waiter did not swallow it
    q.shutDown();
  });
});

describe('JitteredBackoff', () => {
  it('grows exponentially from 0.8 s to a 30 s cap, jittered, and resets after a healthy period', () => {
    let now = 0;
    const b = new JitteredBackoff({ now: () => now, random: () => 0 });
    const seq = Array.from({ length: 8 }, () => b.next());
    expect(seq).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
    now += 121_000;
    expect(b.next()).toBe(800);
    const j = new JitteredBackoff({ random: () => 0.99 });
    const d = j.next();
    expect(d).toBeGreaterThan(800);
    expect(d).toBeLessThan(1200);
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst through, then spaces retries at the sustained rate', () => {
    let now = 0;
    const limiter = new BucketRateLimiter({ qps: 10, burst: 3, now: () => now });
    expect([limiter.reserve(), limiter.reserve(), limiter.reserve()]).toEqual([0, 0, 0]);
    expect(limiter.reserve()).toBeCloseTo(100);
    expect(limiter.reserve()).toBeCloseTo(200);
    now += 1_000; // refills (to at most the burst)
    expect(limiter.reserve()).toBe(0);
    expect(() => new BucketRateLimiter({ qps: 0, burst: 1 })).toThrow(/qps > 0/);
  });

  it('bounds a work queue: the longer of per-key backoff and overall limit wins', () => {
    const now = 0;
    const q = new WorkQueue({
      name: 't',
      backoff: new ItemExponentialBackoff({ baseMs: 5 }),
      overallRateLimit: new BucketRateLimiter({ qps: 1, burst: 1, now: () => now }),
    });
    expect(q.addRateLimited('a')).toBe(5);
    expect(q.addRateLimited('b')).toBeCloseTo(1_000);
    q.shutDown();
  });
});
