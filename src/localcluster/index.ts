/**
 * The embedded local control plane: kube-apiserver and etcd (bare mode), plus
 * kube-controller-manager, kube-scheduler and kwok-simulated, real or mixed nodes (workloads
 * mode; see docs/local-cluster-nodes.md), built from
 * Go modules and run as child processes. Used by `npm start` without a cluster, by the tests
 * and by the benchmarks. See ../../test/controlplane/README.md for how the binaries are built.
 */
export {
  startLocalCluster,
  READY_TIMEOUT_MS,
  WORKLOADS_READY_STEPS,
  type ComponentPids,
  type LocalCluster,
  type LocalClusterInfo,
  type LocalClusterOptions,
} from './cluster.ts';
export { CLUSTER_MODES, isClusterMode, type ClusterMode } from './mode.ts';
export {
  ensureControlPlaneBinaries,
  type ControlPlaneBinaries,
  type NodeBinaries,
  type WorkloadBinaries,
} from './binaries.ts';
export { isNodeKind, NODE_KINDS, realNodesUnavailable, type NodeKind } from './nodes/node-kind.ts';
export { findLeftovers, type Leftovers, type NodeTraces } from './nodes/leftovers.ts';
export { LOCAL_IMAGES, SANDBOX_IMAGE, ociImageOf, type ImageRunConfig } from './nodes/images.ts';
export { folderEntries, tarLayer, type LayerEntry } from './nodes/layers.ts';
export { hostNodeEntries, IMAGE_NODE_PATH } from './nodes/host-node-layer.ts';
export { pushImage, type OciImage } from './nodes/registry-client.ts';
export { parseImageRef, type ImageLocation } from './nodes/image-ref.ts';
export { NODE_KIND_LABEL } from './nodes/real-node.ts';
export { SIMULATED_NODE_TAINT } from './nodes/placement.ts';
export { writeUserKubeconfig, type UserCredentials } from './kubeconfig.ts';
export { ControlPlaneBuildError, ControlPlaneStartError, type ComponentName } from './errors.ts';
export { POD_FAIL_ANNOTATIONS, POD_FAIL_LABEL, POD_NOT_READY_LABEL } from './kwok-stages.ts';
export {
  FAKE_NODE_CAPACITY,
  STORAGE_CLASS_NAME,
  fakeNode,
  type FakeNodeOptions,
} from './workload-objects.ts';
export { KUBERNETES_VERSION, ETCD_VERSION, KWOK_VERSION } from './versions.ts';
export { repositoryRoot } from './paths.ts';
