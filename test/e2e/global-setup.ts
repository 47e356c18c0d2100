// The e2e project shares one workloads control plane (kube-controller-manager, kube-scheduler
// on top of etcd + kube-apiserver: Deployments, Jobs, PVCs… really progress) with mixed nodes:
// a real node (kubelet + containerd) runs every pod whose images the cluster's registry holds,
// so containers, exec and kubelet status are real; kwok nodes run the pods of images that
// cannot exist on this machine. Without root it falls back to kwok nodes and says so.
// Jest runs a project's global setup only when the run selects some of its tests.
import { startSharedCluster } from '../support/shared-cluster.ts';

export default async function globalSetup(): Promise<void> {
  await startSharedCluster('workloads', { nodeKind: 'mixed' });
}
