// Compiled example of src/localcluster (type-checked with the rest; nothing runs at import).
import { KubeConfig } from '@kubernetes/client-node';
import { startLocalCluster } from '../../src/localcluster/index.ts';

/** A workloads control plane (pods run, simulated by kwok) for the length of `use`. */
export async function withLocalCluster(use: (kc: KubeConfig) => Promise<void>): Promise<void> {
  const cluster = await startLocalCluster({
    mode: 'workloads',
    onProgress: (line) => console.error(line),
  });
  try {
    const kc = new KubeConfig();
    kc.loadFromFile(cluster.kubeconfigPath);
    await use(kc);
  } finally {
    await cluster.stop();
  }
}
