// Command lines of the control-plane components: pure, so unit tests can read them.
import type { ClusterMode } from './mode.ts';
import type { ClusterPki } from './pki.ts';

export interface EtcdArgsInput {
  readonly dataDir: string;
  readonly clientPort: number;
  readonly peerPort: number;
}

export function etcdArgs(input: EtcdArgsInput): string[] {
  const client = `http://127.0.0.1:${input.clientPort}`;
  const peer = `http://127.0.0.1:${input.peerPort}`;
  return [
    '--name=planwright',
    `--data-dir=${input.dataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=planwright=${peer}`,
    // Test data only: durability is not worth the fsync latency.
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
}

/** The Services' ClusterIP range; the apiserver's own Service (`kubernetes`) takes its first address. */
export const SERVICE_CIDR = '10.0.0.0/24';
export const KUBERNETES_SERVICE_IP = '10.0.0.1';

export interface ApiServerArgsInput {
  readonly mode: ClusterMode;
  readonly etcdEndpoint: string;
  readonly port: number;
  readonly pki: Pick<ClusterPki, 'certDir' | 'files'>;
  /**
   * More `--name=value` flags (an audit log for a benchmark, a feature gate for a test). A flag
   * the harness sets itself is refused: overriding ports, certificates or authorization would
   * break the readiness checks and clients in ways that are hard to trace back.
   */
  readonly extraArgs?: readonly string[];
  /**
   * Serve /debug/pprof (CPU profiles of the apiserver for a benchmark). Default off, as in a
   * hardened cluster: tests have no use for it.
   */
  readonly profiling?: boolean;
}

export function apiServerArgs(input: ApiServerArgsInput): string[] {
  const { files } = input.pki;
  const args = [
    `--etcd-servers=${input.etcdEndpoint}`,
    `--cert-dir=${input.pki.certDir}`,
    `--tls-cert-file=${files.servingCert}`,
    `--tls-private-key-file=${files.servingKey}`,
    `--secure-port=${input.port}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    '--endpoint-reconciler-type=none',
    `--service-cluster-ip-range=${SERVICE_CIDR}`,
    '--allow-privileged=true',
    '--authorization-mode=RBAC',
    `--client-ca-file=${files.clientCa}`,
    `--service-account-issuer=https://127.0.0.1:${input.port}/`,
    `--service-account-key-file=${files.serviceAccountPublicKey}`,
    `--service-account-signing-key-file=${files.serviceAccountPrivateKey}`,
    `--profiling=${input.profiling === true}`,
    // Webhooks and APIServices that name a Service are called at an endpoint of the Service
    // (its EndpointSlices) instead of its ClusterIP: there is no kube-proxy, so a ClusterIP
    // leads nowhere, while an endpoint can be a process on this machine (in-cluster tests).
    '--enable-aggregator-routing=true',
  ];
  // Bare: nothing creates the `default` ServiceAccount, so the admission plugin would refuse
  // every pod. Workloads: kube-controller-manager creates it, and pods get their projected
  // token volume as in a real cluster.
  if (input.mode === 'bare') args.push('--disable-admission-plugins=ServiceAccount');
  // Workloads: a node's kubelet API (exec, logs, port-forward) is kwok's server on loopback,
  // which every fake node names as its InternalDNS address; their Hostname and InternalIP
  // are not reachable.
  // Real nodes' kubelets have an InternalIP only (the pod bridge's gateway) and take the
  // apiserver's client certificate, which kwok's server ignores.
  else {
    args.push(
      `--kubelet-preferred-address-types=${KUBELET_ADDRESS_TYPE},InternalIP,Hostname`,
      `--kubelet-client-certificate=${files.kubeletClientCert}`,
      `--kubelet-client-key=${files.kubeletClientKey}`,
    );
  }
  const own = new Set(args.map(flagName));
  for (const extra of input.extraArgs ?? []) {
    if (!extra.startsWith('--')) {
      throw new Error(
        `kube-apiserver extra argument "${extra}" is not a --name=value flag: give each flag ` +
          'as one string, e.g. "--audit-log-path=/tmp/audit.log".',
      );
    }
    if (own.has(flagName(extra))) {
      throw new Error(
        `kube-apiserver extra argument "${extra}" sets --${flagName(extra)}, which the local ` +
          'control plane sets itself; leave it out (see apiServerArgs in src/localcluster/args.ts).',
      );
    }
    args.push(extra);
  }
  return args;
}

function flagName(arg: string): string {
  return arg.replace(/^--/, '').split('=')[0] ?? '';
}

/**
 * The kube-controller-manager controllers the workloads mode runs: what Deployments,
 * StatefulSets, DaemonSets, Jobs/CronJobs, Services, PVCs, namespaces, owner references and
 * ServiceAccounts need. Left out on purpose: node IPAM and cloud controllers (no real
 * network), certificate signing (no kubelets), HPA (no metrics), bootstrap tokens.
 */
export const CONTROLLERS: readonly string[] = [
  'serviceaccount-token',
  'serviceaccount',
  'root-ca-certificate-publisher',
  'namespace',
  'garbage-collector',
  'deployment',
  'replicaset',
  'statefulset',
  'daemonset',
  'job',
  'cronjob',
  'ttl-after-finished',
  'endpoints',
  'endpointslice',
  'endpointslice-mirroring',
  'pod-garbage-collector',
  'disruption',
  'resourcequota',
  'persistentvolume-binder',
  'persistentvolumeclaim-protection',
  'persistentvolume-protection',
  'ephemeral-volume',
  'replicationcontroller',
  'clusterrole-aggregation',
  'node-lifecycle',
  'taint-eviction',
].map((name) => `${name}-controller`);

export interface ControllerManagerArgsInput {
  readonly kubeconfig: string;
  readonly pki: Pick<ClusterPki, 'files'>;
}

export function controllerManagerArgs(input: ControllerManagerArgsInput): string[] {
  return [
    `--kubeconfig=${input.kubeconfig}`,
    '--leader-elect=false',
    // No serving port at all: the default 10257 would clash between parallel clusters, and
    // its /healthz answers before the controllers run anyway (readiness is judged on objects).
    '--bind-address=127.0.0.1',
    '--secure-port=0',
    `--service-account-private-key-file=${input.pki.files.serviceAccountPrivateKey}`,
    `--root-ca-file=${input.pki.files.servingCa}`,
    // Each controller acts as its own ServiceAccount in kube-system, as in a real cluster.
    '--use-service-account-credentials=true',
    '--kube-api-qps=200',
    '--kube-api-burst=400',
    `--controllers=${CONTROLLERS.join(',')}`,
    // The binder's built-in provisioner for StorageClass `kubernetes.io/host-path`: claims get
    // a PV (an empty folder under /tmp/hostpath_pv/) created and bound by the real binder.
    '--enable-hostpath-provisioner=true',
  ];
}

export function schedulerArgs(input: { readonly kubeconfig: string }): string[] {
  return [
    `--kubeconfig=${input.kubeconfig}`,
    '--leader-elect=false',
    '--bind-address=127.0.0.1',
    '--secure-port=0',
    // A pod the scheduler found unschedulable waits for an event that may make it schedulable,
    // or at most this long. A StatefulSet pod whose new claim was bound while the scheduler was
    // deciding can miss that event and wait the whole default, 5 minutes (kubernetes/kubernetes
    // #122003; seen here once: a redis StatefulSet 5/6 ready for the 300 s a plan may take).
    // A local cluster retries such a pod sooner. (The flag is deprecated, with no replacement
    // in KubeSchedulerConfiguration; kube-scheduler 1.34 still honours it.)
    `--pod-max-in-unschedulable-pods-duration=${UNSCHEDULABLE_RETRY_S}s`,
  ];
}

/** How long kube-scheduler leaves an unschedulable pod before trying it again (see above). */
const UNSCHEDULABLE_RETRY_S = 30;

/** The annotation that hands a Node to this cluster's kwok. */
export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';
export const KWOK_NODE_ANNOTATION_VALUE = 'fake';

/** The node address type that leads to kwok's kubelet server (see fakeNode). */
export const KUBELET_ADDRESS_TYPE = 'InternalDNS';
/** Where kwok serves the kubelet API of every fake node. */
export const KUBELET_HOST = '127.0.0.1';

export function kwokArgs(input: {
  readonly kubeconfig: string;
  readonly stagesFile: string;
  /** kwok's kubelet server (exec, logs, port-forward) on 127.0.0.1. */
  readonly serverPort: number;
}): string[] {
  return [
    // Both always: without them kwok silently reads ~/.kube/config and ~/.kwok/kwok.yaml.
    `--kubeconfig=${input.kubeconfig}`,
    `--config=${input.stagesFile}`,
    `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=${KWOK_NODE_ANNOTATION_VALUE}`,
    '--node-lease-duration-seconds=40',
    // kwok's default pod CIDR (10.0.0.0/24) is the service range of this cluster.
    '--cidr=10.244.0.0/16',
    // The kubelet API of every node, unauthenticated, on loopback only. `kubectl exec` runs
    // what an Exec object (kwok.x-k8s.io, created by tests) maps a pod to; nothing else.
    `--server-address=${KUBELET_HOST}:${input.serverPort}`,
    '--enable-crds=Exec',
  ];
}
