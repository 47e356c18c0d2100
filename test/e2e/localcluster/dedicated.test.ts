// The lifecycle of a dedicated workloads cluster: its components survive an apiserver restart
// and an etcd compaction, nodes can be added, and stop() — or the owner's death — leaves no
// process, folder or volume directory behind.
import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import {
  READY_TIMEOUT_MS,
  startLocalCluster,
  type LocalCluster,
} from '../../../src/localcluster/index.ts';
import { isAlive } from '../../../src/localcluster/lock.ts';
import { reapOrphanedClusters } from '../../../src/localcluster/registry.ts';
import { kubeConfig, testCluster } from '../../support/cluster.ts';
import { startClusterInChild } from '../../support/cluster-child.ts';
import { waitFor } from '../../support/wait.ts';
import { podTemplate } from '../../support/workloads.ts';

/**
 * After an apiserver restart the components relist with client-go's backoff, and pods, volumes
 * and nodes wait on their controllers: each step gets what the cluster gives a component to
 * become ready, not waitFor's default.
 */
const STEP = { timeoutMs: READY_TIMEOUT_MS };

describe('a dedicated workloads cluster', () => {
  it(
    'keeps running workloads across an apiserver restart and compaction, grows a node, and stops without leftovers',
    async () => {
      const cluster: LocalCluster = await startLocalCluster({
        mode: 'workloads',
        binaries: testCluster().binaries,
        nodes: 2,
      });
      const { workDir } = cluster;
      const pids = Object.values(cluster.pids);
      let volumePath = '';
      try {
        expect(pids).toHaveLength(5);
        expect(cluster.nodes).toEqual(['kwok-node-1', 'kwok-node-2']);
        const kc = kubeConfig(cluster.kubeconfigPath);
        const core = kc.makeApiClient(k8s.CoreV1Api);
        const apps = kc.makeApiClient(k8s.AppsV1Api);

        await cluster.restartApiServer();
        await cluster.compactEtcd();
        // Controllers, scheduler and kwok reconnected on their own and relisted.
        await core.createNamespacedPersistentVolumeClaim({
          namespace: 'default',
          body: {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        });
        const labels = { app: 'agent' };
        await apps.createNamespacedDaemonSet({
          namespace: 'default',
          body: {
            metadata: { name: 'agent' },
            spec: {
              selector: { matchLabels: labels },
              template: podTemplate({ labels }),
            },
          },
        });
        const readyOn = async (count: number): Promise<boolean> => {
          const d = await apps.readNamespacedDaemonSet({ namespace: 'default', name: 'agent' });
          return d.status?.numberReady === count;
        };
        await waitFor('DaemonSet ready on 2 nodes after the restart', () => readyOn(2), STEP);

        await cluster.addNode('kwok-node-extra');
        expect(cluster.nodes).toContain('kwok-node-extra');
        await waitFor('DaemonSet ready on the added node', () => readyOn(3), STEP);

        const claim = await waitFor(
          'claim Bound',
          async () => {
            const c = await core.readNamespacedPersistentVolumeClaim({
              namespace: 'default',
              name: 'data',
            });
            return c.status?.phase === 'Bound' ? c : undefined;
          },
          STEP,
        );
        const volume = await core.readPersistentVolume({ name: claim.spec?.volumeName ?? '' });
        volumePath = volume.spec?.hostPath?.path ?? '';
        expect(volumePath).toMatch(/^\/tmp\/hostpath_pv\//);
        expect(existsSync(volumePath)).toBe(true);
      } finally {
        await cluster.stop();
      }
      for (const pid of pids) expect(isAlive(pid)).toBe(false);
      expect(existsSync(workDir)).toBe(false);
      expect(existsSync(volumePath)).toBe(false);
      // The start, the restart and the three waits above, each within the ready timeout.
    },
    6 * READY_TIMEOUT_MS,
  );

  it('dies with its owner when the owner is SIGKILLed, every component included', async () => {
    const started = await startClusterInChild('workloads', testCluster().binaries);
    const pids = Object.values(started.pids);
    expect(Object.keys(started.pids).sort()).toEqual(
      ['etcd', 'kubeApiServer', 'kubeControllerManager', 'kubeScheduler', 'kwok'].sort(),
    );
    expect(pids.every(isAlive)).toBe(true);

    started.child.kill('SIGKILL');
    await waitFor('all five components gone with their owner', () => !pids.some(isAlive), {
      timeoutMs: 15_000,
    });
    // Any cluster start in a concurrent test file also reaps orphans, so this call may find the
    // record already taken: what proves the reaping is that the owner's folder goes, either way.
    await reapOrphanedClusters();
    await waitFor('the orphaned cluster folder removed', () => !existsSync(started.workDir), {
      timeoutMs: 15_000,
    });
  });
});
