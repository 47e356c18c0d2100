import { spawnSync } from 'node:child_process';

/**
 * Which nodes a workloads cluster runs, chosen per run.
 *
 * * `kwok` — simulated nodes only: nothing runs, pods turn Running by kwok's rules. For scale.
 * * `real` — one real node (kubelet + containerd + runc + CNI bridge) pulling from the
 *   cluster's own registry, which is the whole world: an image it lacks does not exist.
 * * `mixed` — the real node plus tainted kwok nodes; a pod goes to kwok exactly when an image
 *   it names is not in the local registry (see placement.ts).
 */
export type NodeKind = 'kwok' | 'real' | 'mixed';

export const NODE_KINDS: readonly NodeKind[] = ['kwok', 'real', 'mixed'];

export function isNodeKind(value: unknown): value is NodeKind {
  return value === 'kwok' || value === 'real' || value === 'mixed';
}

/** Why real nodes cannot run on this machine, or undefined when they can be tried. */
export function realNodesUnavailable(): string | undefined {
  if (process.platform !== 'linux') return `real nodes need Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) {
    return 'real nodes need root (containerd, runc and the pod bridge); run as root for them';
  }
  for (const tool of ['ip', 'mount', 'umount', 'apt-get', 'dpkg-deb']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) {
      return `real nodes need \`${tool}\`, which is not on PATH`;
    }
  }
  return undefined;
}
