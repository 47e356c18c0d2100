/**
 * Which recorded objects the Kubernetes garbage collector removes with their Instance, without
 * Planwright: those are the only ones an Instance can be deleted with and no finalizer. An
 * object is collected when decorate gave it a controller owner reference to the Instance — home
 * cluster, namespaced, in the Instance's namespace — unless its deletion needs more than the
 * collector does:
 * * `gc: keep` objects carry the owner reference until abandoned: deleting the Instance must
 *   first remove it, else the collector deletes what was meant to stay;
 * * child Instances (KudoOperator) must be gone, cleanup plans and all, before anything else
 *   the parent applied is deleted: the collector deletes all dependents at once.
 * Everything else — cluster-scoped objects, other namespaces, target clusters — has no owner
 * reference the collector could follow.
 */
import { KUDO_GROUP, type Instance } from '../api/index.ts';
import type { InventoryEntry } from './inventory.ts';

export function collectedWithInstance(entry: InventoryEntry, instance: Instance): boolean {
  const { namespace, uid } = instance.metadata;
  return (
    entry.cluster === undefined &&
    entry.policy !== 'keep' &&
    uid !== undefined &&
    uid !== '' &&
    namespace !== undefined &&
    entry.namespace === namespace &&
    !(entry.group === KUDO_GROUP && entry.kind === 'Instance')
  );
}
