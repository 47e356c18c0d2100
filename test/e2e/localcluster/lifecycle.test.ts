// Deletion works as in a real cluster: a namespace with running pods and bound volumes is
// finalized and disappears, and owner references are garbage-collected in the background and
// in the foreground.
import { describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { createTestNamespace, kubeConfig, uniqueName } from '../../support/cluster.ts';
import { waitFor } from '../../support/wait.ts';
import { deployment, gone } from '../../support/workloads.ts';

const kc = kubeConfig();
const core = kc.makeApiClient(k8s.CoreV1Api);
const apps = kc.makeApiClient(k8s.AppsV1Api);

describe('deletion in a workloads cluster', () => {
  it('finishes deleting a namespace with running pods and bound claims, and frees the volumes', async () => {
    const namespace = await createTestNamespace('ns-delete');
    // Pods without grace period: the namespace controller waits out the pods' grace period
    // before it looks again.
    await apps.createNamespacedDeployment({ namespace, body: deployment('web', 2) });
    await core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    });
    await waitFor('2 running pods', async () => {
      const pods = await core.listNamespacedPod({ namespace });
      return pods.items.filter((p) => p.status?.phase === 'Running').length === 2;
    });
    const claim = await waitFor('claim data Bound', async () => {
      const c = await core.readNamespacedPersistentVolumeClaim({ namespace, name: 'data' });
      return c.status?.phase === 'Bound' ? c : undefined;
    });
    const volumeName = claim.spec?.volumeName ?? '';
    expect(volumeName).not.toBe('');

    await core.deleteNamespace({ name: namespace });
    await waitFor(
      `namespace ${namespace} gone`,
      () => gone(() => core.readNamespace({ name: namespace })),
      { timeoutMs: 50_000, intervalMs: 250 },
    );
    // The claim's volume had reclaim policy Delete: it goes with the claim.
    await waitFor(`PersistentVolume ${volumeName} deleted`, () =>
      gone(() => core.readPersistentVolume({ name: volumeName })),
    );
  });

  it('garbage-collects dependents of a deleted owner in the background', async () => {
    const namespace = await createTestNamespace('gc');
    const owner = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: uniqueName('owner') } },
    });
    const ownerReferences = [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: owner.metadata?.name ?? '',
        uid: owner.metadata?.uid ?? '',
      },
    ];
    const dependents = ['a', 'b'];
    for (const name of dependents) {
      await core.createNamespacedSecret({
        namespace,
        body: { metadata: { name, ownerReferences }, stringData: { k: name } },
      });
    }
    const unowned = await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'unowned' } },
    });

    await core.deleteNamespacedConfigMap({ namespace, name: owner.metadata?.name ?? '' });
    for (const name of dependents) {
      await waitFor(`dependent Secret ${name} collected`, () =>
        gone(() => core.readNamespacedSecret({ namespace, name })),
      );
    }
    const still = await core.readNamespacedSecret({ namespace, name: 'unowned' });
    expect(still.metadata?.uid).toBe(unowned.metadata?.uid);
  });

  it('deletes a Deployment in the foreground: the owner waits for its ReplicaSet and pods', async () => {
    const namespace = await createTestNamespace('gc-fg');
    await apps.createNamespacedDeployment({ namespace, body: deployment('fg', 2) });
    await waitFor('Deployment fg available', async () => {
      const d = await apps.readNamespacedDeployment({ namespace, name: 'fg' });
      return d.status?.availableReplicas === 2;
    });

    await apps.deleteNamespacedDeployment({
      namespace,
      name: 'fg',
      body: { propagationPolicy: 'Foreground' },
    });
    await waitFor('Deployment fg gone', () =>
      gone(() => apps.readNamespacedDeployment({ namespace, name: 'fg' })),
    );
    // Foreground: by the time the owner is gone, its dependents are too.
    expect((await apps.listNamespacedReplicaSet({ namespace })).items).toEqual([]);
    expect((await core.listNamespacedPod({ namespace })).items).toEqual([]);
  });
});
