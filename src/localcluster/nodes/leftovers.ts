// Removing everything a real node leaves on the machine: containers (through runc, whose state
// folder holds exactly this node's), shims, mounts (container root filesystems, volumes,
// network namespaces: all under the node's folder), the pod bridge, and the kubelet's links
// to container logs (in the machine-wide /var/log/containers, a path the kubelet hard-codes). Used by a normal stop
// and by the next start after an owner was killed; what it finds is also what the checks of
// "nothing outlived the cluster" look at.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { deleteBridge, interfaceExists } from './network.ts';
import { removeServiceRoute, serviceRouteExists, type NftTool } from './service-route.ts';

export interface NodeTraces {
  /** The node's folder: every process, mount and namespace of the node refers to it. */
  readonly nodeDir: string;
  readonly runcRoot: string;
  readonly bridge: string;
  /** The nft of the node's route to the apiserver (absent: the node installed none). */
  readonly nft?: NftTool;
}

export interface Leftovers {
  /** Containers runc still knows. */
  readonly containers: readonly string[];
  readonly processes: readonly { pid: number; command: string }[];
  readonly mounts: readonly string[];
  readonly bridge: boolean;
  /** The nftables table of the node's route to the apiserver. */
  readonly serviceRoute: boolean;
  /** Links in /var/log/containers to the node's container logs. */
  readonly logLinks: readonly string[];
}

/** Where every kubelet links its containers' logs (not configurable). */
export const CONTAINER_LOG_LINKS_DIR = '/var/log/containers';

/** Nothing left. */
export const NO_LEFTOVERS: Leftovers = {
  containers: [],
  processes: [],
  mounts: [],
  bridge: false,
  serviceRoute: false,
  logLinks: [],
};

/** Processes whose command line names the folder (containerd, kubelet, shims). */
function processesUnder(dir: string): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let command: string;
    try {
      command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue;
    }
    if (command.includes(`${dir}/`) || command.includes(`${dir} `)) {
      found.push({ pid: Number(entry), command: command.trim() });
    }
  }
  return found;
}

/** Mount points at or below the folder, deepest first. */
function mountsUnder(dir: string): string[] {
  const points = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .map((p) => p.replace(/\\(\d{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8))))
    .filter((p) => p === dir || p.startsWith(`${dir}/`));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

/** The kubelet's log links that point into the folder. */
function logLinksInto(dir: string, linksDir: string = CONTAINER_LOG_LINKS_DIR): string[] {
  let names: string[];
  try {
    names = readdirSync(linksDir);
  } catch {
    return [];
  }
  return names
    .map((name) => join(linksDir, name))
    .filter((link) => {
      try {
        return readlinkSync(link).startsWith(`${dir}/`);
      } catch {
        return false;
      }
    });
}

/** What of the node is still on the machine. */
export function findLeftovers(traces: NodeTraces): Leftovers {
  return {
    containers: containers(traces.runcRoot).map((c) => c.id),
    processes: processesUnder(traces.nodeDir),
    mounts: mountsUnder(traces.nodeDir),
    bridge: interfaceExists(traces.bridge),
    serviceRoute: traces.nft ? serviceRouteExists(traces.nft, traces.bridge) : false,
    logLinks: logLinksInto(traces.nodeDir),
  };
}

/** runc state folders of the node's containers: `<runcRoot>/<containerd namespace>/<id>`. */
function containers(runcRoot: string): Array<{ root: string; id: string }> {
  const list = (dir: string): string[] => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  };
  return list(runcRoot).flatMap((ns) =>
    list(join(runcRoot, ns)).map((id) => ({ root: join(runcRoot, ns), id })),
  );
}

/**
 * Kills the node's containers and processes, unmounts its mounts and deletes its bridge.
 * Best effort at each step, so one failure does not leave the rest behind.
 */
export function removeLeftovers(traces: NodeTraces & { readonly runc: string }): Leftovers {
  for (const { root, id } of containers(traces.runcRoot)) {
    spawnSync(traces.runc, ['--root', root, 'kill', '--all', id, 'KILL'], {
      stdio: 'ignore',
    });
  }
  for (const { pid } of processesUnder(traces.nodeDir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  for (const { root, id } of containers(traces.runcRoot)) {
    spawnSync(traces.runc, ['--root', root, 'delete', '--force', id], {
      stdio: 'ignore',
    });
  }
  for (let round = 0; round < 3; round++) {
    const mounts = mountsUnder(traces.nodeDir);
    if (mounts.length === 0) break;
    for (const point of mounts) spawnSync('umount', ['--lazy', point], { stdio: 'ignore' });
  }
  deleteBridge(traces.bridge);
  if (traces.nft) removeServiceRoute(traces.nft, traces.bridge);
  for (const link of logLinksInto(traces.nodeDir)) rmSync(link, { force: true });
  return findLeftovers(traces);
}
