// Disruptive: runs its own control plane, restarts its apiserver and compacts its etcd, and
// proves the cache ends at the true final state (no missed updates, deletions seen).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { pino } from 'pino';
import { KubeClient, type WatchOptions } from '../../../src/kube/index.ts';
import { startLocalCluster, type LocalCluster } from '../../../src/localcluster/index.ts';
import { CacheRegistry } from '../../../src/runtime/cache-registry.ts';
import type { Cache } from '../../../src/runtime/cache.ts';
import type { KubeObject } from '../../../src/runtime/types.ts';
import { kubeConfig, testCluster } from '../../support/cluster.ts';
import { waitFor } from '../../support/wait.ts';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

/** A real client whose watch connections the test can cut and hold back. */
class GatedClient extends KubeClient {
  private cut = new AbortController();
  private gate: Promise<void> = Promise.resolve();
  private openGate: () => void = () => undefined;
  watchCalls = 0;

  /** Ends the current watch stream and makes new ones wait until `open()`. */
  closeAndHold(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
    this.cut.abort();
  }

  open(): void {
    this.cut = new AbortController();
    this.openGate();
  }

  override async watch(options: WatchOptions): Promise<void> {
    await this.gate;
    this.watchCalls += 1;
    const cut = this.cut.signal;
    await super.watch({ ...options, signal: AbortSignal.any([options.signal, cut]) });
    if (cut.aborted && !options.signal.aborted) throw new Error('connection cut by the test');
  }
}

describe('watch through apiserver restart and etcd compaction', () => {
  let cluster: LocalCluster;
  let client: GatedClient;
  let registry: CacheRegistry;
  let cache: Cache<ConfigMap>;
  let core: k8s.CoreV1Api;
  const root = new AbortController();
  const namespace = 'disruption';

  beforeAll(async () => {
    cluster = await startLocalCluster({ binaries: testCluster().binaries });
    const kc = kubeConfig(cluster.kubeconfigPath);
    core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    client = new GatedClient(kc, 'local');
    registry = new CacheRegistry({
      clients: new Map([['local', client]]),
      logger: pino({ level: 'silent' }),
      signal: root.signal,
      inactivityMs: 5_000,
    });
    const lease = await registry.acquire<ConfigMap>(
      { group: '', version: 'v1', kind: 'ConfigMap' },
      'test',
    );
    cache = lease.cache;
    await cache.synced;
  });

  afterAll(async () => {
    root.abort();
    await registry?.stop();
    client?.close();
    await cluster?.stop();
  });

  const value = (name: string): string | undefined => cache.get(`${namespace}/${name}`)?.data?.v;

  it('keeps watching across an apiserver restart and sees every later change', async () => {
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'a' }, data: { v: '1' } },
    });
    await waitFor('a=1 in cache', () => value('a') === '1');
    const relistsBefore = cache.relists;

    await cluster.restartApiServer();
    await core.patchNamespacedConfigMap(
      { namespace, name: 'a', body: { data: { v: '2' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'b' }, data: { v: 'x' } },
    });
    await waitFor(
      'a=2 and b in cache after restart',
      () => value('a') === '2' && value('b') === 'x',
      {
        timeoutMs: 45_000,
      },
    );
    expect(cache.relists).toBeGreaterThanOrEqual(relistsBefore);
  });

  it('relists on 410 after compaction and restart, swapping in the true final state (deletions included)', async () => {
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'gone' }, data: { v: 'g' } },
    });
    await waitFor('gone in cache', () => value('gone') === 'g');
    const deleted: string[] = [];
    const unsubscribe = cache.subscribe({ onDelete: (o) => deleted.push(o.metadata?.name ?? '') });
    const relistsBefore = cache.relists;

    client.closeAndHold();
    for (let i = 3; i <= 12; i += 1) {
      await core.patchNamespacedConfigMap(
        { namespace, name: 'a', body: { data: { v: String(i) } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    }
    await core.deleteNamespacedConfigMap({ namespace, name: 'gone' });
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'c' }, data: { v: 'new' } },
    });
    await cluster.compactEtcd();
    // A fresh apiserver's watch cache starts at the current revision, so our old
    // resourceVersion is now "too old" (410) there as well as in etcd.
    await cluster.restartApiServer();
    expect(value('a')).toBe('2'); // still the old state while disconnected
    client.open();

    await waitFor(
      'final state after relist',
      () => value('a') === '12' && value('c') === 'new' && value('gone') === undefined,
      { timeoutMs: 45_000 },
    );
    expect(cache.relists).toBeGreaterThan(relistsBefore);
    expect(deleted).toContain('gone');
    unsubscribe();

    // And the watch is live again after the relist.
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'd' }, data: { v: 'd' } },
    });
    await waitFor('d in cache', () => value('d') === 'd');
  });
});
