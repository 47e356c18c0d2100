// Proves the shared control plane is a real kube-apiserver: CRDs get Established, custom
// objects are stored and watched, and RBAC denies a user with no bindings.
import { describe, expect, it, beforeAll } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import {
  createTestNamespace,
  grantConfigMapReader,
  kubeConfig,
  kubectl,
  mintUser,
  testCluster,
  uniqueName,
} from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';

interface Widget extends k8s.KubernetesObject {
  spec: { size: number };
}

describe('shared control plane', () => {
  let namespace: string;
  const kc = kubeConfig();

  beforeAll(async () => {
    namespace = await createTestNamespace('controlplane');
  });

  it('reports the version the wrapper module pins, through the matching kubectl', async () => {
    const res = await kubectl(['version', '-o', 'json']);
    expect(res.code).toBe(0);
    const v = JSON.parse(res.stdout) as {
      clientVersion: { gitVersion: string };
      serverVersion: { gitVersion: string };
    };
    expect(v.serverVersion.gitVersion).toMatch(/^v1\.34\.\d+$/);
    expect(v.clientVersion.gitVersion).toBe(v.serverVersion.gitVersion);
  });

  it('establishes a CRD and stores, lists and watches its objects', async () => {
    const group = `${uniqueName('w')}.planwright.dev`;
    const crds = kc.makeApiClient(k8s.ApiextensionsV1Api);
    await crds.createCustomResourceDefinition({
      body: {
        metadata: { name: `widgets.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: {
                    spec: {
                      type: 'object',
                      properties: { size: { type: 'integer', minimum: 1 } },
                    },
                  },
                },
              },
            },
          ],
        },
      },
    });
    await waitFor('CRD Established', async () => {
      const crd = await crds.readCustomResourceDefinition({ name: `widgets.${group}` });
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    });

    const objects = kc.makeApiClient(k8s.CustomObjectsApi);
    const target = { group, version: 'v1', namespace, plural: 'widgets' };
    const createWidget = (name: string, size: number): Promise<unknown> =>
      objects.createNamespacedCustomObject({
        ...target,
        body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec: { size } },
      });
    // The structural schema is enforced by the real apiserver.
    await expect(createWidget('bad', 0)).rejects.toThrow(/spec.size/);

    const seen: Array<[string, string, number]> = [];
    const controller = await new k8s.Watch(kc).watch(
      `/apis/${group}/v1/namespaces/${namespace}/widgets`,
      {},
      (phase: string, obj: Widget) => seen.push([phase, obj.metadata?.name ?? '', obj.spec.size]),
      () => undefined,
    );
    try {
      await createWidget('w1', 3);
      await objects.patchNamespacedCustomObject(
        { ...target, name: 'w1', body: { spec: { size: 4 } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await objects.deleteNamespacedCustomObject({ ...target, name: 'w1' });
      await waitFor('watch events', () => seen.length >= 3);
      expect(seen).toEqual([
        ['ADDED', 'w1', 3],
        ['MODIFIED', 'w1', 4],
        ['DELETED', 'w1', 4],
      ]);
    } finally {
      controller.abort();
    }
  });

  it('denies an unprivileged user through RBAC until a RoleBinding grants access', async () => {
    const user = await mintUser(uniqueName('nobody'));
    const denied = await kubectl(['get', 'configmaps', '-n', namespace], {
      kubeconfig: user.kubeconfigPath,
    });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain(
      `User "${user.name}" cannot list resource "configmaps" in API group "" in the namespace "${namespace}"`,
    );

    await grantConfigMapReader(namespace, `read-${user.name}`, {
      kind: 'User',
      name: user.name,
      apiGroup: 'rbac.authorization.k8s.io',
    });
    await waitFor('binding effective', async () => {
      const res = await kubectl(['get', 'configmaps', '-n', namespace], {
        kubeconfig: user.kubeconfigPath,
      });
      return res.code === 0;
    });
    // Still scoped: the binding is for one namespace only.
    const elsewhere = await kubectl(['get', 'configmaps', '-n', 'default'], {
      kubeconfig: user.kubeconfigPath,
    });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('Forbidden');
  });

  it('publishes a usable cluster description to test workers', () => {
    const info = testCluster();
    expect(info.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(info.pids.etcd).toBeGreaterThan(0);
    expect(info.pids.kubeApiServer).toBeGreaterThan(0);
  });
});
