import { describe, expect, it } from '@jest/globals';
import {
  defaultStorageClass,
  fakeNode,
  initialNodes,
  kwokExecCrd,
  kwokRbac,
  KWOK_USER,
} from '../../../src/localcluster/workload-objects.ts';
import { collectionPath, nodeNotSchedulableReason } from '../../../src/localcluster/workloads.ts';

describe('workloads-mode objects', () => {
  it('fake nodes are handed to kwok, carry capacity and addresses, and no taint', () => {
    const node = fakeNode('kwok-node-9', { internalIp: '10.255.0.9', cpu: '4' }) as {
      metadata: {
        name: string;
        annotations: Record<string, string>;
        labels: Record<string, string>;
      };
      spec: { taints?: unknown };
      status: {
        capacity: Record<string, string>;
        allocatable: Record<string, string>;
        addresses: Array<{ type: string; address: string }>;
      };
    };
    expect(node.metadata.annotations).toEqual({ 'kwok.x-k8s.io/node': 'fake' });
    expect(node.metadata.labels['kubernetes.io/hostname']).toBe('kwok-node-9');
    expect(node.spec.taints).toBeUndefined();
    expect(node.status.capacity['cpu']).toBe('4');
    expect(node.status.allocatable).toEqual(node.status.capacity);
    expect(node.status.addresses).toEqual([
      { type: 'InternalIP', address: '10.255.0.9' },
      { type: 'Hostname', address: 'kwok-node-9' },
    ]);
  });

  it('with a kubelet port, a node leads the apiserver to kwok’s server on loopback', () => {
    const node = fakeNode('n', { internalIp: '10.255.0.9', kubeletPort: 4321 }) as {
      status: {
        addresses: Array<{ type: string; address: string }>;
        daemonEndpoints: { kubeletEndpoint: { Port: number } };
      };
    };
    expect(node.status.addresses).toContainEqual({ type: 'InternalDNS', address: '127.0.0.1' });
    expect(node.status.addresses).toContainEqual({ type: 'InternalIP', address: '10.255.0.9' });
    expect(node.status.daemonEndpoints.kubeletEndpoint.Port).toBe(4321);
  });

  it('kwok may read Exec objects, whose definition it gets from us', () => {
    const [role] = kwokRbac() as Array<{
      rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
    }>;
    expect(role?.rules).toContainEqual({
      apiGroups: ['kwok.x-k8s.io'],
      resources: ['execs'],
      verbs: ['get', 'list', 'watch'],
    });
    const crd = kwokExecCrd() as {
      spec: { group: string; scope: string; names: { plural: string } };
    };
    expect(crd.spec).toMatchObject({
      group: 'kwok.x-k8s.io',
      scope: 'Namespaced',
      names: { plural: 'execs' },
    });
  });

  it('initial nodes have distinct names and addresses', () => {
    const nodes = initialNodes(3);
    expect(nodes.map((n) => n.name)).toEqual(['kwok-node-1', 'kwok-node-2', 'kwok-node-3']);
    expect(new Set(nodes.map((n) => n.internalIp)).size).toBe(3);
  });

  it('the StorageClass is the default, provisioned by kcm, deleting volumes with their claims', () => {
    const sc = defaultStorageClass() as Record<string, unknown> & {
      metadata: { annotations: Record<string, string> };
    };
    expect(sc.metadata.annotations['storageclass.kubernetes.io/is-default-class']).toBe('true');
    expect(sc['provisioner']).toBe('kubernetes.io/host-path');
    expect(sc['reclaimPolicy']).toBe('Delete');
    expect(sc['volumeBindingMode']).toBe('Immediate');
  });

  it("kwok's role names resources and verbs, never wildcards or secrets", () => {
    const [role, binding] = kwokRbac() as Array<Record<string, unknown>>;
    const rules = (role?.['rules'] ?? []) as Array<{ resources: string[]; verbs: string[] }>;
    for (const rule of rules) {
      expect(rule.resources).not.toContain('*');
      expect(rule.verbs).not.toContain('*');
      expect(rule.resources).not.toContain('secrets');
    }
    expect(
      rules.some((r) => r.resources.includes('pods/status') && r.verbs.includes('patch')),
    ).toBe(true);
    expect(rules.some((r) => r.resources.includes('leases') && r.verbs.includes('create'))).toBe(
      true,
    );
    expect(binding?.['subjects']).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: KWOK_USER },
    ]);
  });

  it('posts each kind to its collection', () => {
    expect(collectionPath(fakeNode('n', { internalIp: '10.0.0.1' }))).toBe('/api/v1/nodes');
    expect(collectionPath(defaultStorageClass())).toBe('/apis/storage.k8s.io/v1/storageclasses');
    expect(kwokRbac().map(collectionPath)).toEqual([
      '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    ]);
    expect(() => collectionPath({ apiVersion: 'v1', kind: 'Pod' })).toThrow(/Pod/);
  });

  it.each([
    ['no conditions', [], [], 'Ready is not reported'],
    ['Ready False', [{ type: 'Ready', status: 'False' }], [], 'Ready is False'],
    [
      'Ready, tainted NoSchedule',
      [{ type: 'Ready', status: 'True' }],
      [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }],
      'still tainted node.kubernetes.io/not-ready:NoSchedule',
    ],
    [
      'Ready, tainted PreferNoSchedule only',
      [{ type: 'Ready', status: 'True' }],
      [{ key: 'x', effect: 'PreferNoSchedule' }],
      undefined,
    ],
  ])(
    'a node takes pods once Ready and free of NoSchedule/NoExecute taints: %s',
    (_what, conditions, taints, reason) => {
      expect(
        nodeNotSchedulableReason({
          metadata: { name: 'n' },
          spec: { taints },
          status: { conditions },
        }),
      ).toBe(reason);
    },
  );

  it('a node that does not exist takes no pods', () => {
    expect(nodeNotSchedulableReason(undefined)).toBe('does not exist');
  });
});
