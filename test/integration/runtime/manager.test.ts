// Manager and cache registry on the shared control plane: shared caches and dropping unused
// ones, readiness, Events, signals, and a shutdown that leaves no handles or timers behind.
import { describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { KubeClient } from '../../../src/kube/index.ts';
import { CacheRegistry } from '../../../src/runtime/cache-registry.ts';
import { EXIT_FAILED, EXIT_OK, Manager } from '../../../src/runtime/manager.ts';
import { runnable } from '../../../src/runtime/runnable.ts';
import { aborted } from '../../../src/runtime/time.ts';
import { createTestNamespace, kubeConfig, uniqueName } from '../../support/cluster.ts';
import { waitFor } from '../../support/wait.ts';
import { LEASE_TIMINGS } from './fixtures/timings.ts';

const logger = pino({ level: 'silent' });
const CONFIGMAP = { group: '', version: 'v1', kind: 'ConfigMap' };
const SECRET = { group: '', version: 'v1', kind: 'Secret' };

/** Handles that keep the process alive, by type (timers, sockets, …). */
function handles(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo())
    counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

describe('cache registry', () => {
  it('shares one cache per {cluster, GVK} and drops it when nobody uses it', async () => {
    const root = new AbortController();
    const client = new KubeClient(kubeConfig());
    const caches = new CacheRegistry({
      clients: new Map([['local', client]]),
      logger,
      signal: root.signal,
      dropGraceMs: 100,
    });
    try {
      const a = await caches.acquire(SECRET, 'a');
      const b = await caches.acquire(SECRET, 'b');
      expect(b.cache).toBe(a.cache);
      await a.cache.synced;
      a.release();
      a.release(); // idempotent
      await sleep(300);
      expect(caches.users().get('local|v1/Secret')).toEqual(['b']);
      b.release();
      await waitFor('unused cache dropped', () => !caches.users().has('local|v1/Secret'));
      const c = await caches.acquire(SECRET, 'c');
      expect(c.cache).not.toBe(a.cache); // a fresh cache, the old one stopped
      await c.cache.synced;
      c.release();
      await expect(
        caches.acquire({ group: 'nope.example.com', version: 'v1', kind: 'Nope' }, 'x'),
      ).rejects.toThrow(/does not serve nope.example.com\/v1\/Nope/);
      expect(caches.users().has('local|nope.example.com/v1/Nope')).toBe(false);
    } finally {
      root.abort();
      await caches.stop();
      client.close();
    }
  });
});

describe('manager', () => {
  it('gates readiness on synced caches and checks, records Events, and stops leaving no handles', async () => {
    const namespace = await createTestNamespace('manager');
    const baseline = handles();
    const manager = new Manager({
      kubeConfig: kubeConfig(),
      logger,
      registry: new Registry(),
      leaderElection: { namespace, name: uniqueName('lease'), ...LEASE_TIMINGS },
      shutdownTimeoutMs: 10_000,
    });
    let tlsReady = false;
    manager.probes.addReadyz('tls', () => tlsReady);
    const reconciled: string[] = [];
    const controller = manager
      .controller()
      .named('cm')
      .for(CONFIGMAP)
      .complete((key) => {
        if (key.startsWith(`${namespace}/`)) reconciled.push(key);
        return Promise.resolve();
      });
    expect((await manager.probes.readyz()).ok).toBe(false);
    const stop = new AbortController();
    const run = manager.start(stop.signal);
    await waitFor('leader', () => manager.isLeader);
    await controller.waitForSync(manager.signal);
    expect(await manager.probes.readyz()).toEqual({ ok: false, checks: { tls: false } });
    tlsReady = true;
    expect((await manager.probes.readyz()).ok).toBe(true);
    expect(await manager.probes.healthz()).toEqual({
      ok: true,
      checks: { 'event-loop': true, watches: true },
    });

    const created = await manager.client.request<{ metadata: { uid: string } }>({
      method: 'POST',
      path: `/api/v1/namespaces/${namespace}/configmaps`,
      body: { metadata: { name: 'x' } },
    });
    await waitFor('reconciled', () => reconciled.includes(`${namespace}/x`));
    const obj = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', namespace, uid: created.metadata.uid },
    };
    manager.events.record(obj, 'Normal', 'Tested', 'first');
    await manager.events.flush();
    manager.events.record(obj, 'Normal', 'Tested', 'first');
    await manager.events.flush();
    // The same event from another component is another Event, with that source.
    manager.events.forComponent('instance-controller').record(obj, 'Normal', 'Tested', 'first');
    await manager.events.flush();
    const events = await manager.client.request<{
      items: {
        reason: string;
        count: number;
        involvedObject: { uid: string };
        source: { component: string };
      }[];
    }>({ path: `/api/v1/namespaces/${namespace}/events` });
    expect(
      events.items.map((e) => [e.reason, e.count, e.involvedObject.uid, e.source.component]).sort(),
    ).toEqual([
      ['Tested', 1, created.metadata.uid, 'instance-controller'],
      ['Tested', 2, created.metadata.uid, 'planwright'],
    ]);

    stop.abort();
    expect(await run).toBe(EXIT_OK);
    // Closed handles leave the list when the event loop has run their close callbacks, and
    // other resources of this process (jest's own writes to a slow stdout pipe) come and go:
    // wait until no type counts more than before (a leak, a timer that re-arms or a socket
    // left open, never gets there), then compare once more, naming what is left.
    const settled = (): boolean =>
      [...handles()].every(([type, count]) => count <= (baseline.get(type) ?? 0));
    await waitFor('handles back to the baseline', settled, { timeoutMs: 5_000 }).catch(
      () => undefined,
    );
    const after = handles();
    for (const [type, count] of after) {
      expect({ type, count: Math.max(count, baseline.get(type) ?? 0) }).toEqual({
        type,
        count: baseline.get(type) ?? count,
      });
    }
  });

  it('runs non-leader runnables on every replica and stops everything when one fails', async () => {
    const manager = new Manager({
      kubeConfig: kubeConfig(),
      logger,
      registry: new Registry(),
      leaderElection: false,
    });
    const seen: string[] = [];
    manager.add(
      runnable('steady', false, async (signal) => {
        seen.push('steady started');
        await aborted(signal);
        seen.push(`steady stopped: ${String((signal.reason as Error).message)}`);
      }),
    );
    manager.add(
      runnable('broken', false, async () => {
        await sleep(100);
        throw new Error('port in use');
      }),
    );
    const code = await manager.start(new AbortController().signal);
    expect(code).toBe(EXIT_FAILED);
    expect(seen).toEqual(['steady started', 'steady stopped: port in use']);
    expect(() => manager.add(runnable('late', false, () => Promise.resolve()))).toThrow(
      /added after the manager started/,
    );
  });
});
