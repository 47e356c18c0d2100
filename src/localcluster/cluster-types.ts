// The shapes of a local cluster: how it is asked for, and what a started one offers.
import type { CertificateAuthority } from '../pki/index.ts';
import type { ControlPlaneBinaries } from './binaries.ts';
import type { UserCredentials } from './kubeconfig.ts';
import type { ClusterMode } from './mode.ts';
import type { NodeTraces } from './nodes/leftovers.ts';
import type { NodeKind } from './nodes/node-kind.ts';
import type { FakeNodeOptions } from './workload-objects.ts';

export interface LocalClusterOptions {
  /** `bare` (default): etcd + kube-apiserver. `workloads`: pods run (see ClusterMode). */
  readonly mode?: ClusterMode;
  /** Prebuilt binaries; built (or found in the cache) when absent or incomplete for the mode. */
  readonly binaries?: ControlPlaneBinaries;
  /** Progress lines for a person watching. */
  readonly onProgress?: (line: string) => void;
  /** Aborting cancels a start in progress. It does not stop a started cluster: call stop(). */
  readonly signal?: AbortSignal;
  /** How long each readiness step may take. Default READY_TIMEOUT_MS (cluster.ts). */
  readonly readyTimeoutMs?: number;
  /** Fake nodes of the workloads mode (kwok and mixed node kinds). Default 3. */
  readonly nodes?: number;
  /**
   * Workloads mode: `kwok` (default) simulated nodes, `real` one real node (kubelet,
   * containerd, runc) pulling from the cluster's own image registry, `mixed` both (see
   * NodeKind). Real nodes need root; without, the start says why in one line and uses kwok.
   */
  readonly nodeKind?: NodeKind;
  /**
   * More kube-apiserver flags, e.g. an audit log for a benchmark that counts requests per
   * user. Flags the harness sets itself are refused (see apiServerArgs).
   */
  readonly apiServerExtraArgs?: readonly string[];
  /** kube-apiserver serves /debug/pprof (benchmarks' CPU profiles). Default off. */
  readonly profiling?: boolean;
}

/**
 * Process ids of the running components: etcd and kubeApiServer always; in workloads mode also
 * kubeControllerManager, kubeScheduler and kwok; with real nodes also registry, containerd and
 * kubelet.
 */
export interface ComponentPids {
  readonly etcd: number;
  readonly kubeApiServer: number;
  readonly [component: string]: number;
}

/** Everything a client needs to reach the cluster, serialisable for test workers. */
export interface LocalClusterInfo {
  readonly mode: ClusterMode;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** Admin kubeconfig (user in system:masters). */
  readonly kubeconfigPath: string;
  readonly etcdEndpoint: string;
  readonly binaries: ControlPlaneBinaries;
  readonly workDir: string;
  /** The CA that signed the apiserver's serving certificate. */
  readonly servingCaPem: string;
  /** The client CA: whoever holds it can mint users (see createUser / writeUserKubeconfig). */
  readonly clientCa: CertificateAuthority;
  readonly pids: ComponentPids;
  /** Every node (kwok's and the real one); empty in bare mode. */
  readonly nodes: readonly string[];
  /** The nodes a workloads cluster really runs (kwok when real nodes were not possible). */
  readonly nodeKind?: NodeKind;
  /** Real nodes: host:port of the cluster's image registry (plain HTTP on loopback). */
  readonly imageRegistry?: string;
  /** Real nodes: where each left traces (processes, mounts, bridge), to prove them gone. */
  readonly realNodes?: readonly NodeTraces[];
  /** The default StorageClass (workloads mode); absent in bare mode. */
  readonly storageClassName?: string;
  /**
   * Workloads mode: the first folder on kwok's PATH. kwok runs `kubectl exec` requests as
   * local commands in the working directory an Exec object (kwok.x-k8s.io/v1alpha1, named
   * after the pod) gives; programs put here stand in for the container's own.
   */
  readonly execBinDir?: string;
}

export interface LocalCluster extends LocalClusterInfo {
  /** A client-certificate user with the given groups and no other rights. */
  createUser(name: string, groups?: readonly string[]): Promise<UserCredentials>;
  /**
   * Stops kube-apiserver and starts it again on the same port, certificates and etcd. The
   * workload components reconnect on their own, on client-go's backoff: up to a minute later.
   */
  restartApiServer(): Promise<void>;
  /** Compacts etcd at its current revision, so older resourceVersions answer 410 Gone. */
  compactEtcd(): Promise<number>;
  /**
   * Workloads mode: one more fake node, resolved once it takes pods. Add nodes before a
   * `restartApiServer()`, or a minute after it: kwok 0.8 leaves a pod Pending for good when it is
   * bound to a node whose Lease kwok's lease cache has not seen yet, and that cache lags while
   * kwok reconnects.
   */
  addNode(name: string, options?: Partial<FakeNodeOptions>): Promise<void>;
  /** Workloads mode: deletes a node (its pods are garbage-collected by kcm later). */
  removeNode(name: string): Promise<void>;
  /** Stops every component (workload components, apiserver, etcd) and removes the work folder. Idempotent. */
  stop(): Promise<void>;
}
