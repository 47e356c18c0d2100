import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isAlive } from './lock.ts';
import { killGroup } from './process.ts';
import { cacheRoot } from './paths.ts';
import { removeOrphanedNode } from './nodes/real-node.ts';
import type { NodeTraces } from './nodes/leftovers.ts';

/**
 * A record of every running local cluster (owner pid, component pids, work dir) under
 * `<cache>/run/`. Child processes already die with their owner (parent-death signal); this
 * record lets the next start remove what a killed owner could not: its temporary folder, and
 * any component that survived on a system without `setpriv`.
 */
export interface ClusterRecord {
  readonly ownerPid: number;
  readonly workDir: string;
  readonly pids: Readonly<Record<string, number>>;
  /** Real nodes: their traces and the runc that can kill their containers. */
  readonly realNodes?: readonly NodeTraces[];
  readonly runc?: string;
}

function registryDir(): string {
  return join(cacheRoot(), 'run');
}

export async function recordCluster(id: string, record: ClusterRecord): Promise<void> {
  await mkdir(registryDir(), { recursive: true });
  await writeFile(join(registryDir(), `${id}.json`), JSON.stringify(record));
}

export async function forgetCluster(id: string): Promise<void> {
  await rm(join(registryDir(), `${id}.json`), { force: true });
}

/** Removes clusters whose owner process is gone. Returns how many were reaped. */
export async function reapOrphanedClusters(): Promise<number> {
  let entries: string[];
  try {
    entries = await readdir(registryDir());
  } catch {
    return 0;
  }
  let reaped = 0;
  for (const entry of entries.filter((e) => e.endsWith('.json'))) {
    const file = join(registryDir(), entry);
    let record: ClusterRecord;
    try {
      record = JSON.parse(await readFile(file, 'utf8')) as ClusterRecord;
    } catch {
      await rm(file, { force: true });
      continue;
    }
    if (isAlive(record.ownerPid)) continue;
    for (const pid of Object.values(record.pids)) {
      // Only kill a pid that still runs something from this cluster's folder: pids recycle.
      if (isAlive(pid) && commandLineOf(pid).includes(record.workDir)) killGroup(pid, 'SIGKILL');
    }
    // Containers, shims, mounts and the pod bridge of its real nodes go before the folder.
    for (const traces of record.realNodes ?? []) removeOrphanedNode(traces, record.runc ?? 'runc');
    await rm(record.workDir, { recursive: true, force: true });
    await rm(file, { force: true });
    reaped++;
  }
  return reaped;
}

function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}
