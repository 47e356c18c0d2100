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

/** Each wait before the restart gets what the cluster gives a component to become ready. */
const STEP = { timeoutMs: READY_TIMEOUT_MS };
/**
 * After an apiserver restart every component relists on client-go's reflector backoff, which
 * grows while the apiserver is down and answers "forbidden" until its RBAC caches sync: the
 * next try can come up to 2 × 30 s (the cap, doubled by jitter) later. A wait after the
 * restart gets that on top.
 */
const AFTER_RESTART = { timeoutMs: READY_TIMEOUT_MS + 60_000 };

describe('a dedicated workloads cluster', () => {
  it(
    'grows a node, keeps running workloads across an apiserver restart and compaction, and stops without leftovers',
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
        // Throws rather than returning false, so that a timeout names the last state seen.
        const readyOn = async (count: number): Promise<true> => {
          const { status } = await apps.readNamespacedDaemonSet({
            namespace: 'default',
            name: 'agent',
          });
          if (status?.numberReady === count) return true;
          throw new Error(
            `DaemonSet agent: ${status?.numberReady ?? 0} ready, ${status?.currentNumberScheduled ?? 0} scheduled, ${status?.desiredNumberScheduled ?? 0} desired`,
          );
        };
        await waitFor('DaemonSet ready on 2 nodes', () => readyOn(2), STEP);

        // The node is added before the restart: kwok 0.8 serves a pod only once its lease cache
        // holds the node's Lease, and does not replay a pod bound to a node before that cache
        // caught up — which, after a restart, can take as long as the backoff above.
        await cluster.addNode('kwok-node-extra');
        expect(cluster.nodes).toContain('kwok-node-extra');
        await waitFor('DaemonSet ready on the added node', () => readyOn(3), STEP);
        const onAdded = async (): Promise<k8s.V1Pod | undefined> => {
          const pods = await core.listNamespacedPod({
            namespace: 'default',
            labelSelector: 'app=agent',
            fieldSelector: 'spec.nodeName=kwok-node-extra',
          });
          return pods.items.find((p) => !p.metadata?.deletionTimestamp);
        };
        const before = await onAdded();
        expect(before?.metadata?.uid).toBeTruthy();

        await cluster.restartApiServer();
        await cluster.compactEtcd();
        // Controllers, scheduler and kwok reconnect on their own and relist: a claim gets a
        // volume (kube-controller-manager), and a deleted DaemonSet pod comes back, scheduled
        // and Running on its node (DaemonSet controller, kube-scheduler, kwok).
        await core.createNamespacedPersistentVolumeClaim({
          namespace: 'default',
          body: {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        });
        await core.deleteNamespacedPod({
          namespace: 'default',
          name: before?.metadata?.name ?? '',
          gracePeriodSeconds: 0,
        });
        await waitFor(
          'the deleted DaemonSet pod replaced and Ready after the restart',
          async () => {
            const pod = await onAdded();
            if (!pod || pod.metadata?.uid === before?.metadata?.uid) return false;
            const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
            if (ready?.status !== 'True')
              throw new Error(
                `pod ${pod.metadata?.name} is ${pod.status?.phase ?? 'without a phase'}`,
              );
            return readyOn(3);
          },
          AFTER_RESTART,
        );

        const claim = await waitFor(
          'claim Bound',
          async () => {
            const c = await core.readNamespacedPersistentVolumeClaim({
              namespace: 'default',
              name: 'data',
            });
            return c.status?.phase === 'Bound' ? c : undefined;
          },
          AFTER_RESTART,
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
    },
    // A hang guard: the start, the restart and the waits above, each within its own timeout.
    4 * READY_TIMEOUT_MS + 2 * AFTER_RESTART.timeoutMs,
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
