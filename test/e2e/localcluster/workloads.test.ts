// The shared workloads cluster runs what the built-in controllers run: Deployments,
// StatefulSets with volumes, DaemonSets and Jobs reach their real, controller-written status;
// kwok's chaos stage makes a labelled pod fail and the Job controller reports it. The pods
// here name an image that cannot exist (registry.example/app:1), so on the mixed cluster they
// run on its kwok nodes: these tests are about the controllers and kwok's stages, for scale.
import { beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import {
  NODE_KIND_LABEL,
  POD_FAIL_ANNOTATIONS,
  POD_FAIL_LABEL,
  POD_NOT_READY_LABEL,
  SIMULATED_NODE_TAINT,
} from '../../../src/localcluster/index.ts';
import { createTestNamespace, kubeConfig, testCluster } from '../../support/cluster.ts';
import { waitFor } from '../../support/wait.ts';
import { deployment, podTemplate } from '../../support/workloads.ts';

describe('a workloads cluster', () => {
  let namespace: string;
  const kc = kubeConfig();
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const batch = kc.makeApiClient(k8s.BatchV1Api);
  const core = kc.makeApiClient(k8s.CoreV1Api);

  beforeAll(async () => {
    namespace = await createTestNamespace('workloads');
  });

  it('is the cluster of the e2e project, with kwok nodes (and a real one) and a default StorageClass', () => {
    const info = testCluster();
    expect(info.mode).toBe('workloads');
    expect(info.nodes.filter((n) => n.startsWith('kwok-node-')).length).toBeGreaterThanOrEqual(3);
    expect(info.storageClassName).toBe('standard');
    const real = info.nodeKind === 'mixed' ? ['registry', 'containerd', 'kubelet'] : [];
    expect(Object.keys(info.pids).sort()).toEqual(
      ['etcd', 'kubeApiServer', 'kubeControllerManager', 'kubeScheduler', 'kwok', ...real].sort(),
    );
  });

  it('rolls out a Deployment to 3/3 ready replicas spread over the nodes', async () => {
    await apps.createNamespacedDeployment({ namespace, body: deployment('web', 3) });
    const status = await waitFor('Deployment web 3/3 available', async () => {
      const d = await apps.readNamespacedDeployment({ namespace, name: 'web' });
      return d.status?.availableReplicas === 3 && d.status.readyReplicas === 3
        ? d.status
        : undefined;
    });
    expect(status.updatedReplicas).toBe(3);
    const pods = await core.listNamespacedPod({ namespace, labelSelector: 'app=web' });
    expect(pods.items).toHaveLength(3);
    for (const pod of pods.items) {
      expect(pod.status?.phase).toBe('Running');
      expect(pod.status?.podIP).toMatch(/^10\.244\./);
      expect(testCluster().nodes).toContain(pod.spec?.nodeName);
    }
  });

  it('runs a StatefulSet whose volumeClaimTemplates get bound volumes', async () => {
    const labels = { app: 'db' };
    await apps.createNamespacedStatefulSet({
      namespace,
      body: {
        metadata: { name: 'db' },
        spec: {
          replicas: 2,
          serviceName: 'db',
          selector: { matchLabels: labels },
          template: podTemplate({ labels }),
          volumeClaimTemplates: [
            {
              metadata: { name: 'data' },
              spec: {
                accessModes: ['ReadWriteOnce'],
                resources: { requests: { storage: '2Gi' } },
              },
            },
          ],
        },
      },
    });
    await waitFor('StatefulSet db 2/2 ready', async () => {
      const s = await apps.readNamespacedStatefulSet({ namespace, name: 'db' });
      return s.status?.readyReplicas === 2;
    });
    for (const ordinal of [0, 1]) {
      const pod = await core.readNamespacedPod({ namespace, name: `db-${ordinal}` });
      expect(pod.status?.phase).toBe('Running');
      const claim = await core.readNamespacedPersistentVolumeClaim({
        namespace,
        name: `data-db-${ordinal}`,
      });
      expect(claim.status?.phase).toBe('Bound');
      // The default StorageClass was filled in by admission and the claim got a volume of
      // its size from kube-controller-manager's provisioner.
      expect(claim.spec?.storageClassName).toBe('standard');
      const volume = await core.readPersistentVolume({ name: claim.spec?.volumeName ?? '' });
      expect(volume.spec?.capacity?.['storage']).toBe('2Gi');
      expect(volume.spec?.claimRef?.name).toBe(`data-db-${ordinal}`);
    }
  });

  it('runs a DaemonSet pod on every kwok node', async () => {
    const labels = { app: 'agent' };
    const template = podTemplate({ labels });
    // The DaemonSet controller picks nodes from the template alone: it must name the kwok
    // nodes (and tolerate their taint on a mixed cluster) for its pods to run there.
    template.spec = {
      ...template.spec,
      containers: template.spec?.containers ?? [],
      nodeSelector: { [NODE_KIND_LABEL]: 'kwok' },
      tolerations: [{ ...SIMULATED_NODE_TAINT, operator: 'Equal' }],
    };
    await apps.createNamespacedDaemonSet({
      namespace,
      body: { metadata: { name: 'agent' }, spec: { selector: { matchLabels: labels }, template } },
    });
    const nodes = (await core.listNode({ labelSelector: `${NODE_KIND_LABEL}=kwok` })).items.map(
      (n) => n.metadata?.name,
    );
    expect(nodes.length).toBeGreaterThanOrEqual(3);
    await waitFor('DaemonSet agent ready on every node', async () => {
      const d = await apps.readNamespacedDaemonSet({ namespace, name: 'agent' });
      return (
        d.status?.numberReady === nodes.length && d.status.desiredNumberScheduled === nodes.length
      );
    });
    const pods = await core.listNamespacedPod({ namespace, labelSelector: 'app=agent' });
    expect(pods.items.map((p) => p.spec?.nodeName).sort()).toEqual([...nodes].sort());
  });

  it('completes a Job', async () => {
    await batch.createNamespacedJob({
      namespace,
      body: {
        metadata: { name: 'ok' },
        spec: {
          completions: 2,
          template: podTemplate({ labels: {}, restartPolicy: 'Never' }),
        },
      },
    });
    const job = await waitFor('Job ok Complete', async () => {
      const j = await batch.readNamespacedJob({ namespace, name: 'ok' });
      return j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')
        ? j
        : undefined;
    });
    expect(job.status?.succeeded).toBe(2);
    expect(job.status?.failed ?? 0).toBe(0);
  });

  it('fails a Job whose pods carry the kwok failure label, with the reason annotated', async () => {
    await batch.createNamespacedJob({
      namespace,
      body: {
        metadata: { name: 'bad' },
        spec: {
          backoffLimit: 0,
          template: podTemplate({
            labels: { [POD_FAIL_LABEL]: 'true' },
            annotations: {
              [POD_FAIL_ANNOTATIONS.reason]: 'OOMKilled',
              [POD_FAIL_ANNOTATIONS.exitCode]: '137',
              [POD_FAIL_ANNOTATIONS.delay]: '100ms',
            },
            restartPolicy: 'Never',
          }),
        },
      },
    });
    const failed = await waitFor('Job bad Failed', async () => {
      const j = await batch.readNamespacedJob({ namespace, name: 'bad' });
      return j.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
    });
    expect(failed.reason).toBe('BackoffLimitExceeded');
    const pods = await core.listNamespacedPod({
      namespace,
      labelSelector: 'batch.kubernetes.io/job-name=bad',
    });
    expect(pods.items).toHaveLength(1);
    const pod = pods.items[0];
    expect(pod?.status?.phase).toBe('Failed');
    expect(pod?.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 137,
      reason: 'OOMKilled',
    });
  });

  it('keeps a Deployment whose pods carry the not-ready label unavailable', async () => {
    await apps.createNamespacedDeployment({
      namespace,
      body: deployment('stuck', 1, { labels: { [POD_NOT_READY_LABEL]: 'true' } }),
    });
    const pod = await waitFor('the stuck pod running', async () => {
      const pods = await core.listNamespacedPod({ namespace, labelSelector: 'app=stuck' });
      return pods.items.find((p) => p.status?.phase === 'Running');
    });
    expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
    // Once the controller has counted the running pod, it counts it unavailable.
    const status = await waitFor('Deployment stuck counted its pod', async () => {
      const d = await apps.readNamespacedDeployment({ namespace, name: 'stuck' });
      return d.status?.replicas === 1 && d.status.updatedReplicas === 1 ? d.status : undefined;
    });
    expect(status.availableReplicas ?? 0).toBe(0);
    expect(status.readyReplicas ?? 0).toBe(0);
    expect(status.unavailableReplicas).toBe(1);
    expect(status.conditions?.find((c) => c.type === 'Available')?.status).toBe('False');
  });
});
