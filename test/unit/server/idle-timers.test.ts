// An idle webhook server holds no timer: its request deadlines are timers per connection
// (src/server/deadlines.ts), not Node's connection checker, an interval that would wake the
// process for the server's whole life. Counted with async_hooks: every timer the server
// creates, which of them are still alive, and how many times an interval fired.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHook } from 'node:async_hooks';
import https from 'node:https';
import type { WebhookServer } from '../../../src/server/index.ts';
import { allow, StaticCertificateSource } from '../../../src/server/index.ts';
import { capturingLogger, httpsRequest } from '../../support/https.ts';
import { admissionReview, loopbackWebhookServer } from '../../support/admission.ts';

const loopback = StaticCertificateSource.forLoopback('idle-timers-webhook');

/**
 * Node's own connection checker still exists (http creates it on 'listening'), switched off
 * with the longest interval a timer may have: it never fires. Timers that long are not counted.
 */
const DORMANT_MS = 2 ** 31 - 1;

/** Timeout's own fields (node:internal/timers): its delay, and whether it repeats. */
interface TimeoutResource {
  readonly _idleTimeout: number;
  readonly _repeat: number | null;
}

/**
 * Timers created while `recording` (except dormant ones): those not yet cleared or fired,
 * and how many times a repeating one (an interval: a wakeup for as long as it lives) fired.
 */
class TimerCount {
  recording = false;
  readonly alive = new Set<number>();
  private readonly repeating = new Set<number>();
  intervalsFired = 0;
  private readonly hook = createHook({
    init: (asyncId, type, _trigger, resource) => {
      if (!this.recording || type !== 'Timeout') return;
      const timeout = resource as TimeoutResource;
      if (timeout._idleTimeout >= DORMANT_MS) return;
      this.alive.add(asyncId);
      if (timeout._repeat !== null) this.repeating.add(asyncId);
    },
    before: (asyncId) => {
      if (this.repeating.has(asyncId)) this.intervalsFired++;
    },
    destroy: (asyncId) => {
      this.alive.delete(asyncId);
    },
  });

  enable(): void {
    this.hook.enable();
  }

  disable(): void {
    this.hook.disable();
  }

  /**
   * Counts the timers `work` creates. From the next tick on: jest arms its own timeout for a
   * test or hook right after calling it.
   */
  async record<T>(work: () => Promise<T>): Promise<T> {
    await Promise.resolve();
    this.recording = true;
    try {
      return await work();
    } finally {
      this.recording = false;
    }
  }
}

/** Lets timers due within `ms` fire, and destroy hooks (emitted asynchronously) run. */
async function idle(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('WebhookServer while idle', () => {
  const { logger } = capturingLogger();
  const stop = new AbortController();
  const timers = new TimerCount();
  let server: WebhookServer;
  let port = 0;

  beforeAll(async () => {
    timers.enable();
    // Short deadlines: Node's checker would run every 250 ms here.
    server = loopbackWebhookServer(loopback.source, logger, {
      headersTimeoutMs: 1_000,
      requestTimeoutMs: 2_000,
      keepAliveTimeoutMs: 5_000,
    });
    server.registerValidating('noop', () => allow());
    ({ port } = await timers.record(() => server.listen(stop.signal)));
  });

  afterAll(async () => {
    timers.disable();
    stop.abort();
    await server.stop();
  });

  it('holds no timer and fires none before any connection', async () => {
    // Node's checker would have fired 4 times.
    await idle(1_100);
    expect(timers.intervalsFired).toBe(0);
    expect(timers.alive.size).toBe(0);
  });

  it('holds no timer once a served connection has closed', async () => {
    const res = await timers.record(() =>
      httpsRequest({
        port,
        path: '/validate/noop',
        ca: loopback.caPem,
        body: JSON.stringify(
          admissionReview({ uid: 'idle', operation: 'CREATE', object: { metadata: {} } }),
        ),
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect(JSON.parse(res.text)).toMatchObject({ response: { uid: 'idle', allowed: true } });
    // Past the one-off timer of Node's Date header cache (1 s) too.
    await idle(1_100);
    expect(timers.intervalsFired).toBe(0);
    expect(timers.alive.size).toBe(0);
  });

  it('holds timers for a kept-alive connection, and none once it closes', async () => {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    const review = (uid: string): Promise<unknown> =>
      httpsRequest({
        port,
        path: '/validate/noop',
        ca: loopback.caPem,
        agent,
        body: JSON.stringify(
          admissionReview({ uid, operation: 'CREATE', object: { metadata: {} } }),
        ),
        headers: { 'content-type': 'application/json' },
      });
    await timers.record(async () => {
      await review('a');
      await review('b');
    });
    const duringKeepAlive = timers.alive.size;
    agent.destroy();
    await idle(1_100);
    // At least the next request's deadline and the socket's keep-alive timeout.
    expect(duringKeepAlive).toBeGreaterThanOrEqual(2);
    expect(timers.intervalsFired).toBe(0);
    expect(timers.alive.size).toBe(0);
  });
});
