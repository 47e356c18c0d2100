// The kubelet of a real node: its KubeletConfiguration and command line. What this nested
// environment needs is set here and nowhere else (see docs/local-cluster-nodes.md).
import { stringify } from 'yaml';

export interface KubeletConfigInput {
  /** The node's address: the pod bridge's gateway (a loopback address is refused). */
  readonly nodeIp: string;
  /** The kubelet API port (exec, logs) on `nodeIp`. */
  readonly port: number;
  readonly clientCaFile: string;
  readonly containerdSocket: string;
  readonly staticPodDir: string;
  /** Where the node's container logs go (absolute, ASCII, normalized). */
  readonly podLogsDir: string;
}

/** kubelet.config.k8s.io/v1beta1 KubeletConfiguration as YAML. */
export function kubeletConfigYaml(input: KubeletConfigInput): string {
  return stringify({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: input.nodeIp,
    port: input.port,
    // No read-only port and no healthz port: fixed ports would clash between clusters.
    readOnlyPort: 0,
    healthzPort: 0,
    containerRuntimeEndpoint: `unix://${input.containerdSocket}`,
    staticPodPath: input.staticPodDir,
    // Each node its own: the default /var/log/pods is machine-wide, and a kubelet's garbage
    // collection removes every pod log folder there of pods it does not know — another local
    // cluster's node's.
    podLogsDir: input.podLogsDir,
    // The kubelet API takes client certificates of the cluster's client CA (the apiserver's),
    // nothing anonymous; whoever holds one may use it.
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: false },
      x509: { clientCAFile: input.clientCaFile },
    },
    authorization: { mode: 'AlwaysAllow' },
    // The host's cgroups are v1 without systemd managing them here; per-QoS cgroups need
    // cgroup controllers this nested environment does not delegate.
    cgroupDriver: 'cgroupfs',
    failCgroupV1: false,
    cgroupsPerQOS: false,
    enforceNodeAllocatable: [],
    failSwapOn: false,
    // A shared development machine: nothing is evicted for its disk or memory use, and
    // images are not garbage-collected under the tests.
    evictionHard: { 'memory.available': '0%', 'nodefs.available': '0%', 'imagefs.available': '0%' },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    localStorageCapacityIsolation: false,
    // Pods' DNS: no cluster DNS runs; the host's resolv.conf would name servers pods cannot reach.
    resolvConf: '',
    serializeImagePulls: false,
    registerNode: true,
    nodeStatusUpdateFrequency: '4s',
    nodeStatusReportFrequency: '10s',
    syncFrequency: '10s',
    fileCheckFrequency: '10s',
    shutdownGracePeriod: '0s',
    maxPods: 110,
    // No kube-proxy runs: no iptables rules are expected, and none are made.
    makeIPTablesUtilChains: false,
    protectKernelDefaults: false,
    volumeStatsAggPeriod: '0s',
  });
}

export interface KubeletArgsInput {
  readonly configFile: string;
  readonly kubeconfig: string;
  readonly rootDir: string;
  readonly certDir: string;
  readonly nodeName: string;
  readonly nodeIp: string;
  readonly labels?: Readonly<Record<string, string>>;
}

export function kubeletArgs(input: KubeletArgsInput): string[] {
  const labels = Object.entries(input.labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  return [
    `--config=${input.configFile}`,
    `--kubeconfig=${input.kubeconfig}`,
    `--root-dir=${input.rootDir}`,
    `--cert-dir=${input.certDir}`,
    `--hostname-override=${input.nodeName}`,
    `--node-ip=${input.nodeIp}`,
    ...(labels ? [`--node-labels=${labels}`] : []),
    '--v=1',
  ];
}
