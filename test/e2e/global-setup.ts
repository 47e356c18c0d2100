// The e2e project shares workloads control planes (kube-controller-manager, kube-scheduler on
// top of etcd + kube-apiserver: Deployments, Jobs, PVCs… really progress), one per jest worker,
// with mixed nodes: a real node (kubelet + containerd) runs every pod whose images the
// cluster's registry holds, so containers, exec and kubelet status are real; kwok nodes run the
// pods of images that cannot exist on this machine. Without root it falls back to kwok nodes
// and says so. Jest runs a project's global setup only when the run selects tests of that
// project.
import type { GlobalConfig } from 'jest';
import { usesSharedClusters } from '../support/lane-gate.ts';
import { startSharedClusters } from '../support/shared-cluster.ts';

export default async function globalSetup(globalConfig: GlobalConfig): Promise<void> {
  // A lane whose e2e files all start clusters of their own (test/runner/plan.ts) gets none.
  if (usesSharedClusters('e2e'))
    await startSharedClusters('workloads', { nodeKind: 'mixed', count: globalConfig.maxWorkers });
}
