// WaitBackoff: how long an Instance whose plan waits is left alone — doubling per key up to a
// cap, starting over when the plan progresses or another run starts.
import { describe, expect, it } from '@jest/globals';
import { PassWaits, WaitBackoff } from '../../../../src/kudo/engine/waits.ts';

describe('WaitBackoff', () => {
  it('doubles from minMs to maxMs per key, and starts over on progress, a new run or forget', () => {
    const b = new WaitBackoff({ minMs: 100, maxMs: 500 });
    expect([1, 2, 3, 4].map(() => b.next('ns/a', 'run1', false))).toEqual([100, 200, 400, 500]);
    expect(b.next('ns/b', 'run1', false)).toBe(100);
    expect(b.next('ns/a', 'run1', true)).toBe(100);
    expect(b.next('ns/a', 'run1', false)).toBe(200);
    expect(b.next('ns/a', 'run2', false)).toBe(100);
    b.forget('ns/a');
    expect(b.next('ns/a', 'run2', false)).toBe(100);
  });
});

describe('PassWaits', () => {
  it('is event-driven only when the pass waited, and only for what watch events announce', () => {
    const none = new PassWaits();
    expect(none.eventDriven).toBe(false); // nothing waited: the caller keeps its timer
    const watched = new PassWaits();
    watched.wait(true);
    watched.wait(true);
    expect(watched.eventDriven).toBe(true);
    const mixed = new PassWaits();
    mixed.wait(true);
    mixed.wait(false);
    expect(mixed.eventDriven).toBe(false);
  });
});
