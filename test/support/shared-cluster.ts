// The shared clusters of one mode for a whole jest run: a pool of one cluster per jest worker,
// started together by a project's global setup and stopped (and proven gone) by its global
// teardown. Both run in jest's main process, where globalThis holds the running clusters
// between the two. One cluster per worker, not one per project: a worker runs one test file at
// a time, and a file that starts Planwright needs the cluster's webhook registrations and
// leader Lease to itself (planwright-start.ts) — with a cluster each, test files of different
// workers never wait for each other.
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
  var __planwrightSharedClusters: Map<ClusterMode, readonly LocalCluster[]> | undefined;
}

function registry(): Map<ClusterMode, readonly LocalCluster[]> {
  globalThis.__planwrightSharedClusters ??= new Map();
  return globalThis.__planwrightSharedClusters;
}

const log = (mode: ClusterMode, line: string): void =>
  void process.stderr.write(`[control plane: ${mode}] ${line}\n`);

export interface SharedClusterOptions {
  /**
   * The workloads mode's nodes (where real nodes are impossible the start says why and uses
   * kwok; `testCluster().nodeKind` tells which it got).
   */
  readonly nodeKind?: NodeKind;
  /** How many clusters: one per jest worker (jest's `maxWorkers`). Default 1. */
  readonly count?: number;
}

/**
 * Starts the mode's clusters (binaries built on first use) together and publishes them to the
 * test workers: worker n uses cluster (n - 1) mod count (see testCluster()).
 */
export async function startSharedClusters(
  mode: ClusterMode,
  options: SharedClusterOptions = {},
): Promise<void> {
  if (registry().has(mode)) return;
  const count = Math.max(1, options.count ?? 1);
  const started = Date.now();
  const results = await Promise.allSettled(
    Array.from({ length: count }, (_, i) =>
      startLocalCluster({
        mode,
        ...(options.nodeKind ? { nodeKind: options.nodeKind } : {}),
        onProgress: (line) => log(mode, count > 1 ? `#${i + 1} ${line}` : line),
      }),
    ),
  );
  const clusters = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    // Nothing half-started outlives a failed setup.
    await Promise.allSettled(clusters.map((c) => c.stop()));
    throw failed.reason;
  }
  registry().set(mode, clusters);
  const stateFile = join(clusters[0]!.workDir, 'test-state.json');
  await writeFile(stateFile, `[${clusters.map(serializeClusterInfo).join(',')}]`, {
    mode: 0o600,
  });
  // Workers are forked after global setup and inherit this environment.
  process.env[clusterStateEnv(mode)] = stateFile;
  log(
    mode,
    `${count} shared cluster(s) (${clusters[0]!.nodeKind ?? 'no'} nodes) up in ` +
      `${((Date.now() - started) / 1000).toFixed(1)}s`,
  );
}

/**
 * Stops the mode's clusters and proves it: every recorded pid must be gone afterwards,
 * otherwise the run fails rather than leaving an orphan behind.
 */
export async function stopSharedClusters(mode: ClusterMode): Promise<void> {
  const clusters = registry().get(mode) ?? [];
  registry().delete(mode);
  delete process.env[clusterStateEnv(mode)];
  const pids = clusters.flatMap((c) => Object.entries(c.pids));
  const stopped = await Promise.allSettled(clusters.map((c) => c.stop()));
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
  const failed = stopped.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  if (clusters.length > 0)
    log(mode, `stopped ${clusters.length} cluster(s); ${pids.length} processes gone`);
}
