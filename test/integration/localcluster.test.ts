// The lifecycle of a dedicated local control plane: restart keeps watches resumable, etcd
// compaction expires old resourceVersions, stop() and a killed owner leave nothing behind.
import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster/index.ts';
import { reapOrphanedClusters } from '../../src/localcluster/registry.ts';
import { kubeConfig, testCluster } from '../support/cluster.ts';
import { startClusterInChild } from '../support/cluster-child.ts';
import { waitFor } from '../support/wait.ts';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface WatchEvent {
  readonly type: string;
  readonly name: string;
  readonly code?: number;
}

/** Watches ConfigMaps in `namespace` from `resourceVersion` until the stream ends. */
async function watchOnce(
  kc: k8s.KubeConfig,
  namespace: string,
  resourceVersion: string,
  events: WatchEvent[],
): Promise<{ lastResourceVersion: string; ended: Promise<void>; abort: () => void }> {
  let last = resourceVersion;
  let endedResolve: () => void = () => undefined;
  const ended = new Promise<void>((r) => (endedResolve = r));
  const controller = await new k8s.Watch(kc).watch(
    `/api/v1/namespaces/${namespace}/configmaps`,
    { resourceVersion, allowWatchBookmarks: true },
    (type: string, obj: k8s.V1ConfigMap & { code?: number }) => {
      if (obj.metadata?.resourceVersion) last = obj.metadata.resourceVersion;
      events.push({ type, name: obj.metadata?.name ?? '', code: obj.code });
    },
    () => endedResolve(),
  );
  return {
    get lastResourceVersion() {
      return last;
    },
    ended,
    abort: () => controller.abort(),
  };
}

describe('a dedicated local control plane', () => {
  it('survives an apiserver restart with watches resumable, expires compacted versions, and stops without leftovers', async () => {
    const cluster: LocalCluster = await startLocalCluster({ binaries: testCluster().binaries });
    const { workDir } = cluster;
    try {
      const kc = kubeConfig(cluster.kubeconfigPath);
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const namespace = 'restart';
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      const list = await core.listNamespacedConfigMap({ namespace });
      const startRv = list.metadata?.resourceVersion ?? '';

      const events: WatchEvent[] = [];
      const first = await watchOnce(kc, namespace, startRv, events);
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'before' } } });
      await waitFor('ADDED before', () => events.some((e) => e.name === 'before'));

      const oldApiServerPid = cluster.pids.kubeApiServer;
      await cluster.restartApiServer();
      expect(cluster.pids.kubeApiServer).not.toBe(oldApiServerPid);
      expect(alive(oldApiServerPid)).toBe(false);
      // The stream of the stopped apiserver ends; nothing is lost when resuming from the
      // last resourceVersion seen, because etcd kept the history.
      await first.ended;
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'during' } } });
      const second = await watchOnce(kc, namespace, first.lastResourceVersion, events);
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'after' } } });
      await waitFor('ADDED after', () => events.some((e) => e.name === 'after'));
      second.abort();
      expect(events.filter((e) => e.type === 'ADDED').map((e) => e.name)).toEqual([
        'before',
        'during',
        'after',
      ]);

      // After compaction, watching from the first resourceVersion answers 410 Gone.
      await cluster.compactEtcd();
      const expired: WatchEvent[] = [];
      const third = await watchOnce(kc, namespace, startRv, expired);
      await waitFor('410 from an expired resourceVersion', () =>
        expired.some((e) => e.code === 410),
      );
      third.abort();
    } finally {
      const pids = Object.values(cluster.pids);
      await cluster.stop();
      for (const pid of pids) expect(alive(pid)).toBe(false);
      expect(existsSync(workDir)).toBe(false);
    }
  });

  it('dies with its owner when the owner is SIGKILLed, and the next start reaps its folder', async () => {
    const started = await startClusterInChild('bare', testCluster().binaries);
    const pids = Object.values(started.pids);
    expect(pids.every(alive)).toBe(true);

    started.child.kill('SIGKILL');
    await waitFor('control-plane processes gone with their owner', () => !pids.some(alive), {
      timeoutMs: 15_000,
    });
    // Every cluster start reaps what dead owners left, so another file's start may reap this
    // one first (a loaded run did, between the kill and the check); either way a start's reap
    // removes it.
    await reapOrphanedClusters();
    expect(existsSync(started.workDir)).toBe(false);
  });
});
