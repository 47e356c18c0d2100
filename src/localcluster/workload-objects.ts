// Objects the workloads mode creates before its components run: the fake Nodes kwok brings to
// life, the default StorageClass, and kwok's least-privilege RBAC. Pure manifests.
import {
  KUBELET_ADDRESS_TYPE,
  KUBELET_HOST,
  KWOK_NODE_ANNOTATION,
  KWOK_NODE_ANNOTATION_VALUE,
} from './args.ts';

/** A manifest as sent to the API (JSON). */
export type Manifest = Readonly<Record<string, unknown>>;

export interface FakeNodeOptions {
  /** The node's InternalIP (status.addresses), also its pods' hostIP. */
  readonly internalIp: string;
  /** kwok's kubelet server port (status.daemonEndpoints), reached at 127.0.0.1. */
  readonly kubeletPort?: number;
  readonly cpu?: string;
  readonly memory?: string;
  readonly pods?: string;
  readonly ephemeralStorage?: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** Taints of the node (mixed nodes: kwok nodes take only pods sent there). */
  readonly taints?: ReadonlyArray<{ key: string; value?: string; effect: string }>;
}

/** Capacity of every fake node: generous, since nothing really runs. */
export const FAKE_NODE_CAPACITY = {
  cpu: '32',
  memory: '128Gi',
  pods: '250',
  ephemeralStorage: '500Gi',
} as const;

/**
 * A Node that this cluster's kwok manages (annotation `kwok.x-k8s.io/node: fake`), with
 * capacity and addresses set at creation (kubelets register nodes with their status the same
 * way) and no taint of its own. The apiserver's TaintNodesByCondition adds
 * `node.kubernetes.io/not-ready:NoSchedule`; the node-lifecycle controller removes it once
 * kwok reports Ready and renews the node's Lease.
 */
export function fakeNode(name: string, options: FakeNodeOptions): Manifest {
  const capacity = {
    cpu: options.cpu ?? FAKE_NODE_CAPACITY.cpu,
    memory: options.memory ?? FAKE_NODE_CAPACITY.memory,
    pods: options.pods ?? FAKE_NODE_CAPACITY.pods,
    'ephemeral-storage': options.ephemeralStorage ?? FAKE_NODE_CAPACITY.ephemeralStorage,
  };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { [KWOK_NODE_ANNOTATION]: KWOK_NODE_ANNOTATION_VALUE },
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'beta.kubernetes.io/arch': 'amd64',
        type: 'kwok',
        ...options.labels,
      },
    },
    spec: options.taints ? { taints: options.taints.map((t) => ({ ...t })) } : {},
    status: {
      capacity,
      allocatable: capacity,
      addresses: [
        { type: 'InternalIP', address: options.internalIp },
        { type: 'Hostname', address: name },
        ...(options.kubeletPort !== undefined
          ? [{ type: KUBELET_ADDRESS_TYPE, address: KUBELET_HOST }]
          : []),
      ],
      ...(options.kubeletPort !== undefined
        ? { daemonEndpoints: { kubeletEndpoint: { Port: options.kubeletPort } } }
        : {}),
    },
  };
}

/** Names and addresses of the `count` nodes a workloads cluster starts with. */
export function initialNodes(count: number): Array<{ name: string; internalIp: string }> {
  return Array.from({ length: count }, (_, i) => ({
    name: `kwok-node-${i + 1}`,
    internalIp: `10.255.0.${i + 1}`,
  }));
}

/** The default StorageClass: claims get a PV from kube-controller-manager's host-path provisioner. */
export const STORAGE_CLASS_NAME = 'standard';

export function defaultStorageClass(): Manifest {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name: STORAGE_CLASS_NAME,
      annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
    },
    provisioner: 'kubernetes.io/host-path',
    // Delete: removing a claim removes its PV (and the PV's empty folder), as with cloud disks.
    reclaimPolicy: 'Delete',
    // Immediate: nothing about a simulated node constrains where a volume lives.
    volumeBindingMode: 'Immediate',
  };
}

/** The client-certificate user kwok runs as. */
export const KWOK_USER = 'planwright:kwok';

/** What kwok needs to drive nodes, their leases and pods, and nothing more. */
export function kwokRbac(): Manifest[] {
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: KWOK_USER },
      rules: [
        { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [''], resources: ['nodes/status', 'pods/status'], verbs: ['patch', 'update'] },
        {
          apiGroups: [''],
          resources: ['pods'],
          verbs: ['get', 'list', 'watch', 'patch', 'update', 'delete'],
        },
        { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch', 'update'] },
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
        },
        { apiGroups: ['kwok.x-k8s.io'], resources: ['execs'], verbs: ['get', 'list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: KWOK_USER },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: KWOK_USER },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: KWOK_USER }],
    },
  ];
}

/**
 * kwok's Exec kind (kwok.x-k8s.io/v1alpha1, namespaced, named after the pod): which local
 * command runs when someone execs into the pod, in which working directory and environment.
 * A schema-less definition: kwok reads the objects, tests write them.
 *
 * @example
 * { apiVersion: 'kwok.x-k8s.io/v1alpha1', kind: 'Exec', metadata: { name: pod, namespace },
 *   spec: { execs: [{ containers: ['main'], local: { workDir: '/tmp/root' } }] } }
 */
export function kwokExecCrd(): Manifest {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'execs.kwok.x-k8s.io' },
    spec: {
      group: 'kwok.x-k8s.io',
      scope: 'Namespaced',
      names: { kind: 'Exec', listKind: 'ExecList', plural: 'execs', singular: 'exec' },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      ],
    },
  };
}
