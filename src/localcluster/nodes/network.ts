// The pod network of a real node: a Linux bridge of its own with a /24 no other interface of
// the machine uses. The bridge's first address is the node's IP (the kubelet refuses a
// loopback one, and the apiserver reaches the kubelet there); nothing forwards or masquerades
// beyond it.
import { spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { withDirectoryLock } from '../lock.ts';
import { cacheRoot } from '../paths.ts';
import { NodeSetupError } from './errors.ts';

/** Pod subnets are taken from 10.89.<n>.0/24, n = 1…254. */
const SUBNET_PREFIX = '10.89';

export interface PodNetwork {
  readonly bridge: string;
  readonly subnet: string;
  /** The bridge's address: the node IP and the pods' gateway. */
  readonly gateway: string;
}

function ip(args: readonly string[]): { ok: boolean; out: string } {
  const res = spawnSync('ip', args, { encoding: 'utf8' });
  return {
    ok: res.status === 0,
    out: `${res.stdout ?? ''}${res.stderr ?? ''}${res.error?.message ?? ''}`,
  };
}

/** Third octets of 10.89.x.y addresses configured anywhere on the machine. */
function usedOctets(): Set<number> {
  const used = new Set<number>();
  const { out } = ip(['-4', '-o', 'addr', 'show']);
  for (const match of out.matchAll(/inet 10\.89\.(\d+)\./g)) used.add(Number(match[1]));
  return used;
}

/**
 * Creates the bridge `name` with a free 10.89.n.1/24 and brings it up. A lock makes parallel
 * clusters pick different subnets.
 */
export async function createPodNetwork(name: string, signal?: AbortSignal): Promise<PodNetwork> {
  await mkdir(join(cacheRoot(), 'run'), { recursive: true });
  return withDirectoryLock(join(cacheRoot(), 'run', 'pod-subnets.lock'), { signal }, () =>
    Promise.resolve(claimSubnet(name)),
  );
}

/** Creates the bridge on the first free subnet (the caller holds the lock). */
function claimSubnet(name: string): PodNetwork {
  const used = usedOctets();
  let octet = 1;
  while (used.has(octet) && octet < 255) octet++;
  if (octet === 255)
    throw new NodeSetupError(`no free /24 left in ${SUBNET_PREFIX}.0.0/16 for pods`);
  const network: PodNetwork = {
    bridge: name,
    subnet: `${SUBNET_PREFIX}.${octet}.0/24`,
    gateway: `${SUBNET_PREFIX}.${octet}.1`,
  };
  for (const args of [
    ['link', 'add', name, 'type', 'bridge'],
    ['addr', 'add', `${network.gateway}/24`, 'dev', name],
    ['link', 'set', name, 'up'],
  ]) {
    const res = ip(args);
    if (!res.ok) {
      deleteBridge(name);
      throw new NodeSetupError(
        `ip ${args.join(' ')} failed: the kernel refuses a pod bridge here`,
        res.out,
      );
    }
  }
  return network;
}

/** Deletes a bridge; one already gone is fine. */
export function deleteBridge(name: string): void {
  if (ip(['link', 'show', name]).ok) ip(['link', 'delete', name]);
}

/** Whether a network interface exists (for checks that nothing outlived a cluster). */
export function interfaceExists(name: string): boolean {
  return ip(['link', 'show', name]).ok;
}
