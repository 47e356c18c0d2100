// Starts the one control plane the integration project shares (built on first use), and
// publishes how to reach it to the test workers through PLANWRIGHT_TEST_CLUSTER.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster/index.ts';
import { CLUSTER_STATE_ENV, serializeClusterInfo } from '../support/cluster.ts';

declare global {
  var __planwrightTestCluster: LocalCluster | undefined;
}

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const log = (line: string): void => void process.stderr.write(`[control plane] ${line}\n`);
  const cluster = await startLocalCluster({ onProgress: log });
  globalThis.__planwrightTestCluster = cluster;
  const stateFile = join(cluster.workDir, 'test-state.json');
  await writeFile(stateFile, serializeClusterInfo(cluster), { mode: 0o600 });
  process.env[CLUSTER_STATE_ENV] = stateFile;
  log(
    `shared control plane up in ${((Date.now() - started) / 1000).toFixed(1)}s (pids ${JSON.stringify(cluster.pids)})`,
  );
}
