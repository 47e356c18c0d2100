// Manager and cache registry on the shared control plane: shared caches and dropping unused
// ones, readiness, Events, signals, and a shutdown that leaves no handles or timers behind.
import { describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { KubeClient } from '../../../src/kube/index.ts';
import { CacheRegistry } from '../../../src/runtime/cache-registry.ts';
import { EXIT_OK, Manager } from '../../../src/runtime/manager.ts';
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
    manager.addReadinessCheck('tls', () => tlsReady);
    const reconciled: string[] = [];
    const controller = manager
      .controller()
      .named('cm')
      .for(CONFIGMAP)
      .complete((key) => {
        if (key.startsWith(`${namespace}/`)) reconciled.push(key);
        return Promise.resolve();
      });
    expect((await manager.readyz()).ok).toBe(false);
    const run = manager.start();
    await waitFor('leader', () => manager.isLeader);
    await controller.waitForSync(manager.signal);
    expect(await manager.readyz()).toEqual({
      ok: false,
      checks: { started: true, caches: true, tls: false },
    });
    tlsReady = true;
    expect((await manager.readyz()).ok).toBe(true);
    expect(manager.healthz().ok).toBe(true);

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
    const events = await manager.client.request<{
      items: { reason: string; count: number; involvedObject: { uid: string } }[];
    }>({ path: `/api/v1/namespaces/${namespace}/events` });
    expect(events.items).toHaveLength(1);
    expect(events.items[0]).toMatchObject({
      reason: 'Tested',
      count: 2,
      involvedObject: { uid: created.metadata.uid },
    });

    manager.stop();
    expect(await run).toBe(EXIT_OK);
    expect((await manager.readyz()).ok).toBe(false);
    await sleep(50);
    const after = handles();
    for (const [type, count] of after) {
      expect({ type, count: Math.max(count, baseline.get(type) ?? 0) }).toEqual({
        type,
        count: baseline.get(type) ?? count,
      });
    }
  });

  it('stops gracefully on the first signal and forces exit on the second', async () => {
    const manager = new Manager({
      kubeConfig: kubeConfig(),
      logger,
      registry: new Registry(),
      leaderElection: false,
    });
    const proc = new EventEmitter() as unknown as NodeJS.Process;
    const exits: number[] = [];
    const uninstall = manager.installSignalHandlers(proc, (code) => exits.push(code));
    const run = manager.start();
    await waitFor('running', () => manager.isLeader);
    proc.emit('SIGTERM', 'SIGTERM');
    expect(manager.signal.aborted).toBe(true);
    expect(exits).toEqual([]);
    proc.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([1]);
    expect(await run).toBe(EXIT_OK);
    uninstall();
    expect((proc as unknown as EventEmitter).listenerCount('SIGTERM')).toBe(0);
  });
});
