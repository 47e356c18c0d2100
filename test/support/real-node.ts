// Tests that need containers to really run: the shared e2e cluster has a real node (mixed
// nodes) where this machine allows it; without one such a test fails at once saying why.
import type { LocalClusterInfo } from '../../src/localcluster/index.ts';
import { testCluster } from './cluster.ts';

/** The cluster, when it has a real node; else an error naming what the test needs. */
export function requireRealNode(
  what: string,
  cluster: LocalClusterInfo = testCluster(),
): LocalClusterInfo {
  if (cluster.nodeKind === 'real' || cluster.nodeKind === 'mixed') return cluster;
  throw new Error(
    `${what} needs a real node (kubelet + containerd), but the cluster of ` +
      `${cluster.kubeconfigPath} runs ${cluster.nodeKind ?? 'no'} nodes: real nodes need root ` +
      `on Linux (its start printed why they were not possible)`,
  );
}
