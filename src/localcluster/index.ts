/**
 * The embedded local control plane: kube-apiserver and etcd built from Go modules and run as
 * child processes. Used by `npm start` without a cluster, by the integration tests and by the
 * benchmarks. See ../../test/controlplane/README.md for how the binaries are built.
 */
export {
  startLocalCluster,
  type LocalCluster,
  type LocalClusterInfo,
  type LocalClusterOptions,
} from './cluster.ts';
export { ensureControlPlaneBinaries, type ControlPlaneBinaries } from './binaries.ts';
export { writeUserKubeconfig, type UserCredentials } from './kubeconfig.ts';
export { ControlPlaneBuildError, ControlPlaneStartError } from './errors.ts';
export { KUBERNETES_VERSION, ETCD_VERSION } from './versions.ts';
