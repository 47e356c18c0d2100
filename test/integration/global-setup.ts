// The integration project shares bare control planes (etcd + kube-apiserver: nothing runs
// pods, as KUDO's integration suite assumes), one per jest worker.
import type { GlobalConfig } from 'jest';
import { usesSharedClusters } from '../support/lane-gate.ts';
import { startSharedClusters } from '../support/shared-cluster.ts';

export default async function globalSetup(globalConfig: GlobalConfig): Promise<void> {
  if (usesSharedClusters('integration'))
    await startSharedClusters('bare', { count: globalConfig.maxWorkers });
}
