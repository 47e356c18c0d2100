// How the runner (test/runner/run.ts) starts a jest process before its turn: the serial lane
// starts its shared clusters, and its first file does its set-up, while the other lanes finish;
// each serial file waits here, at the point from which it needs the machine to itself, until
// the runner opens the gate (creates the file PLANWRIGHT_LANE_GATE names) because every other
// lane has ended. Without the variable (jest run by hand, other lanes) there is no gate.
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestGroup } from './tools.ts';

export const LANE_GATE_ENV = 'PLANWRIGHT_LANE_GATE';
/** Comma-separated projects whose shared clusters the lane's files use (all when unset). */
export const SHARED_CLUSTERS_ENV = 'PLANWRIGHT_SHARED_CLUSTERS';

/** Whether this jest process's workers use `project`'s shared clusters. */
export function usesSharedClusters(project: TestGroup): boolean {
  const listed = process.env[SHARED_CLUSTERS_ENV];
  return listed === undefined || listed.split(',').includes(project);
}

/**
 * Resolves once the gate is open. Throws when the process that started this one is gone (the
 * runner was killed: nothing would ever open the gate, and nothing may outlive the run).
 */
export async function waitForLaneGate(log: (line: string) => void): Promise<void> {
  const gate = process.env[LANE_GATE_ENV];
  if (gate === undefined || existsSync(gate)) return;
  const parent = process.ppid;
  log('set up; waiting for the other lanes to end');
  const started = Date.now();
  while (!existsSync(gate)) {
    if (process.ppid !== parent) throw new Error(`the test runner (pid ${parent}) is gone`);
    await sleep(200);
  }
  log(`gate open after ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
