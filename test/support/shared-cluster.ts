// The shared cluster of one mode for a whole jest run: started by a project's global setup,
// stopped (and proven gone) by its global teardown. Both run in jest's main process, where
// globalThis holds the running clusters between the two.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  startLocalCluster,
  type ClusterMode,
  type LocalCluster,
  type NodeKind,
} from '../../src/localcluster/index.ts';
import { clusterStateEnv, serializeClusterInfo } from './cluster.ts';

declare global {
  var __planwrightSharedClusters: Map<ClusterMode, LocalCluster> | undefined;
}

function registry(): Map<ClusterMode, LocalCluster> {
  globalThis.__planwrightSharedClusters ??= new Map();
  return globalThis.__planwrightSharedClusters;
}

const log = (mode: ClusterMode, line: string): void =>
  void process.stderr.write(`[control plane: ${mode}] ${line}\n`);

/**
 * Starts the mode's cluster (built on first use) and publishes it to the test workers.
 * `nodeKind`: the workloads mode's nodes (where real nodes are impossible the start says why
 * and uses kwok; `testCluster().nodeKind` tells which it got).
 */
export async function startSharedCluster(
  mode: ClusterMode,
  options: { readonly nodeKind?: NodeKind } = {},
): Promise<void> {
  if (registry().has(mode)) return;
  const started = Date.now();
  const cluster = await startLocalCluster({
    mode,
    ...(options.nodeKind ? { nodeKind: options.nodeKind } : {}),
    onProgress: (line) => log(mode, line),
  });
  registry().set(mode, cluster);
  const stateFile = join(cluster.workDir, 'test-state.json');
  await writeFile(stateFile, serializeClusterInfo(cluster), { mode: 0o600 });
  // Workers are forked after global setup and inherit this environment.
  process.env[clusterStateEnv(mode)] = stateFile;
  log(
    mode,
    `shared cluster (${cluster.nodeKind ?? 'no'} nodes) up in ${((Date.now() - started) / 1000).toFixed(1)}s ` +
      `(pids ${JSON.stringify(cluster.pids)})`,
  );
}

/**
 * Stops the mode's cluster and proves it: every recorded pid must be gone afterwards,
 * otherwise the run fails rather than leaving an orphan behind.
 */
export async function stopSharedCluster(mode: ClusterMode): Promise<void> {
  const cluster = registry().get(mode);
  registry().delete(mode);
  delete process.env[clusterStateEnv(mode)];
  if (!cluster) return;
  const pids = Object.entries(cluster.pids);
  await cluster.stop();
  const survivors = pids.filter(([, pid]) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
  if (survivors.length > 0) {
    throw new Error(
      `${mode} control-plane processes still running after stop: ${JSON.stringify(survivors)}`,
    );
  }
  log(mode, `stopped; ${pids.map(([n, p]) => `${n} (pid ${p})`).join(', ')} gone`);
}
