import { stopSharedClusters } from '../support/shared-cluster.ts';

export default async function globalTeardown(): Promise<void> {
  await stopSharedClusters('bare');
}
