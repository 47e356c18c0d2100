// A start that fails halfway stops what it started: aborted at each of its steps, a start with
// mixed nodes leaves no process, folder, record, container, mount or bridge behind.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { READY_TIMEOUT_MS, startLocalCluster } from '../../../src/localcluster/index.ts';
import { isAlive } from '../../../src/localcluster/lock.ts';
import {
  findLeftovers,
  NO_LEFTOVERS,
  type NodeTraces,
} from '../../../src/localcluster/nodes/leftovers.ts';
import { cacheRoot } from '../../../src/localcluster/paths.ts';
import type { ClusterRecord } from '../../../src/localcluster/registry.ts';
import { testCluster } from '../../support/cluster.ts';
import { requireRealNode } from '../../support/real-node.ts';

const RECORDS = join(cacheRoot(), 'run');

/** The records of clusters this process owns, by file. */
function ownRecords(): Map<string, ClusterRecord> {
  const own = new Map<string, ClusterRecord>();
  for (const file of readdirSync(RECORDS).filter((f) => f.endsWith('.json'))) {
    try {
      const record = JSON.parse(readFileSync(join(RECORDS, file), 'utf8')) as ClusterRecord;
      if (record.ownerPid === process.pid) own.set(file, record);
    } catch {
      // Another start is writing or removing its record: not ours.
    }
  }
  return own;
}

/**
 * Processes running in the folder or below it: every component runs in its cluster's folder
 * (or its node's), also those spawned after the record was read.
 */
function processesIn(dir: string): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const cwd = readlinkSync(`/proc/${pid}/cwd`);
        return cwd === dir || cwd.startsWith(`${dir}/`) || cwd.startsWith(`${dir} `);
      } catch {
        return false;
      }
    });
}

/** What the aborted start had brought up when it was aborted. */
interface Started {
  readonly file: string;
  readonly record: ClusterRecord;
  /** Each real node's traces as it wrote them (with its nft, to check the service route). */
  readonly nodes: readonly NodeTraces[];
}

describe('a start aborted halfway', () => {
  it.each([['kube-apiserver starting'], [': containerd starting'], [': kubelet starting']])(
    'at "%s" stops what it started',
    async (step) => {
      requireRealNode('aborting a start at its real node');
      const before = new Set(ownRecords().keys());
      const controller = new AbortController();
      let started: Started | undefined;
      const start = startLocalCluster({
        mode: 'workloads',
        nodeKind: 'mixed',
        binaries: testCluster().binaries,
        nodes: 1,
        signal: controller.signal,
        onProgress: (line) => {
          if (started || !line.includes(step)) return;
          const [file, record] = [...ownRecords()].find(([f]) => !before.has(f)) ?? [];
          if (!file || !record) throw new Error(`no record of the start at "${line}"`);
          const nodes = (record.realNodes ?? [])
            .map((t) => join(t.nodeDir, 'traces.json'))
            .filter((f) => existsSync(f))
            .map((f) => JSON.parse(readFileSync(f, 'utf8')) as NodeTraces);
          started = { file, record, nodes };
          controller.abort();
        },
      });
      const outcome = await start.then(
        async (cluster) => {
          await cluster.stop();
          return 'started';
        },
        (err: Error) => (err.name === 'AbortError' ? err.name : err.message),
      );
      expect(outcome).toBe('AbortError');
      if (!started) throw new Error(`the start never reported "${step}"`);
      expect(Object.keys(started.record.pids).length).toBeGreaterThan(0);
      for (const pid of Object.values(started.record.pids)) expect(isAlive(pid)).toBe(false);
      expect(processesIn(started.record.workDir)).toEqual([]);
      for (const traces of started.nodes) {
        expect(findLeftovers(traces)).toEqual(NO_LEFTOVERS);
      }
      expect(existsSync(started.record.workDir)).toBe(false);
      expect(existsSync(join(RECORDS, started.file))).toBe(false);
    },
    4 * READY_TIMEOUT_MS,
  );
});
