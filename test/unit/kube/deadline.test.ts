// A deadline as an AbortSignal that fires whatever the garbage collector does, and lets go of
// its parent once cleared.
import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from '@jest/globals';
import { deadlineSignal } from '../../../src/kube/deadline.ts';
import { sleep } from '../../../src/runtime/time.ts';

describe('deadlineSignal', () => {
  it('aborts with a TimeoutError after its time, and leaves nothing on the parent', async () => {
    const parent = new AbortController();
    const deadline = deadlineSignal(20, parent.signal);
    expect(deadline.signal.aborted).toBe(false);
    await new Promise((resolve) => deadline.signal.addEventListener('abort', resolve));
    expect((deadline.signal.reason as DOMException).name).toBe('TimeoutError');
    deadline.clear();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });

  it("aborts with the parent's reason when the parent aborts first, at once if it has", () => {
    const parent = new AbortController();
    const deadline = deadlineSignal(60_000, parent.signal);
    parent.abort(new Error('stopping'));
    expect((deadline.signal.reason as Error).message).toBe('stopping');
    deadline.clear();
    expect((deadlineSignal(60_000, parent.signal).signal.reason as Error).message).toBe('stopping');
  });

  it('once cleared, neither the timer nor the parent aborts it', async () => {
    const parent = new AbortController();
    const deadline = deadlineSignal(10, parent.signal);
    deadline.clear();
    await sleep(50);
    parent.abort();
    expect(deadline.signal.aborted).toBe(false);
  });

  // What AbortSignal.any([parent, AbortSignal.timeout(ms)]) does not guarantee on Node 20
  // (nodejs/node#57736): the deadline fires even when nothing but a listener refers to it and
  // the garbage collector runs in between.
  it('fires after a garbage collection with only its listener holding it', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const fired = new Promise<string>((resolve) => {
      deadlineSignal(200, new AbortController().signal).signal.addEventListener('abort', (e) =>
        resolve(((e.target as AbortSignal).reason as DOMException).name),
      );
    });
    // The platform's composite is collected when the collection comes after its timer was
    // armed (20 ms here); then it never fires.
    await sleep(20);
    gc();
    await expect(fired).resolves.toBe('TimeoutError');
  });
});
