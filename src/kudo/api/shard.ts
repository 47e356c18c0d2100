/**
 * Which shard an Instance belongs to: the label Planwright's admission webhook writes on
 * create (and keeps on every later write), read by the replica that runs the shard. An
 * Instance created by another Instance (a KudoOperator task's child, owner reference to its
 * parent) goes with its parent, so a family is reconciled in one place and a child's changes
 * wake its parent there.
 */
import { parseApiVersion } from '../../kube/index.ts';
import { KUDO_GROUP, type Instance } from './types.ts';

/** The label whose value (`0` … `S-1`) is an Instance's shard. */
export const SHARD_LABEL = 'planwright.dev/shard';

/** The key an Instance's shard is computed from: its parent's `namespace/name`, or its own. */
export function instanceShardKey(instance: { readonly metadata?: unknown }): string {
  const meta = (instance as Partial<Instance>).metadata;
  const namespace = meta?.namespace ?? '';
  for (const ref of meta?.ownerReferences ?? []) {
    if (ref.kind === 'Instance' && parseApiVersion(ref.apiVersion).group === KUDO_GROUP) {
      return `${namespace}/${ref.name}`;
    }
  }
  return `${namespace}/${meta?.name ?? ''}`;
}
