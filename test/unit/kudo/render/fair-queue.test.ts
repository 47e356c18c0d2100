// The render pool's queue: namespaces served round-robin, each holding at most its cap of
// workers, each with a bounded queue of its own.
import { describe, expect, it } from '@jest/globals';
import { FairQueue } from '../../../../src/kudo/pool/fair-queue.ts';

/** Takes jobs while a free worker would find one; their names in order. */
function takeAll(q: FairQueue<string>): string[] {
  const taken: string[] = [];
  for (let next = q.take(); next; next = q.take()) taken.push(next.job);
  return taken;
}

describe('FairQueue', () => {
  it('serves namespaces in turn, whatever order their jobs arrived in', () => {
    const q = new FairQueue<string>({ maxHeldPerTenant: 10, maxQueuedPerTenant: 10 });
    for (const job of ['a1', 'a2', 'a3']) q.push('a', job);
    q.push('b', 'b1');
    q.push('c', 'c1');
    q.push('b', 'b2');
    expect(takeAll(q)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect(q.size).toBe(0);
  });

  it('holds a namespace at its cap until one of its jobs ends, serving the others meanwhile', () => {
    const q = new FairQueue<string>({ maxHeldPerTenant: 1, maxQueuedPerTenant: 10 });
    for (const job of ['a1', 'a2', 'a3']) q.push('a', job);
    expect(q.take()?.job).toBe('a1');
    // a holds its one worker: a2 waits even with workers free.
    expect(q.runnable).toBe(0);
    expect(q.take()).toBeUndefined();
    q.push('b', 'b1');
    expect(q.runnable).toBe(1);
    expect(q.take()).toEqual({ tenant: 'b', job: 'b1' });
    q.release('a');
    expect(q.take()?.job).toBe('a2');
    expect(q.size).toBe(1);
  });

  it('refuses a job past its namespace queue, not past another', () => {
    const q = new FairQueue<string>({ maxHeldPerTenant: 1, maxQueuedPerTenant: 2 });
    expect(q.push('a', 'a1')).toBe(true);
    expect(q.push('a', 'a2')).toBe(true);
    expect(q.push('a', 'a3')).toBe(false);
    expect(q.push('b', 'b1')).toBe(true);
    expect(q.waiting('a')).toBe(2);
  });

  it('forgets a job taken out before it ran, and drains the rest', () => {
    const q = new FairQueue<string>({ maxHeldPerTenant: 2, maxQueuedPerTenant: 5 });
    q.push('a', 'a1');
    q.push('a', 'a2');
    q.push('b', 'b1');
    expect(q.remove('a', 'a1')).toBe(true);
    expect(q.remove('a', 'a1')).toBe(false);
    expect(q.drain()).toEqual(['a2', 'b1']);
    expect(q.size).toBe(0);
    expect(q.take()).toBeUndefined();
  });

  it('refuses a cap below one', () => {
    expect(() => new FairQueue({ maxHeldPerTenant: 0, maxQueuedPerTenant: 1 })).toThrow(
      /at least 1/,
    );
  });
});
