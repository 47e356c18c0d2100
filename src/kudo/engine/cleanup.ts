/**
 * Deletes an Instance's inventory on deletion: every recorded object (cluster-scoped ones
 * too), except objects whose owner labels name another Instance. Child Instances (operator
 * dependencies) go first, and the rest only once they are gone: a child's own cleanup plan
 * may still need what its parent applied. An object whose deletion failed or is still
 * finalizing stays in the inventory, so the next pass retries it.
 */
import type { Logger } from 'pino';
import { describeObject, type ServerSideApply } from '../../kube/apply.ts';
import { UnknownKindError } from '../../kube/errors.ts';
import { KUDO_GROUP, type Instance } from '../api/types.ts';
import { objectOf, type InventoryEntry } from '../inventory/index.ts';
import { ownedByAnother } from '../render/index.ts';
import type { StatusSession } from './session.ts';

export async function deleteInventory(
  session: StatusSession,
  ssa: ServerSideApply,
  instance: Instance,
  signal: AbortSignal,
  logger: Logger,
): Promise<InventoryEntry[]> {
  const isChild = (e: InventoryEntry): boolean => e.kind === 'Instance' && e.group === KUDO_GROUP;
  const all = session.inventory;
  const children = await deleteEntries(all.filter(isChild), ssa, instance, signal, logger);
  const rest = all.filter((e) => !isChild(e));
  const remaining =
    children.length > 0
      ? [...children, ...rest]
      : await deleteEntries(rest, ssa, instance, signal, logger);
  session.setInventory(remaining);
  return remaining;
}

/** Deletes `entries`; returns those still there (deleting, or the deletion failed). */
async function deleteEntries(
  entries: readonly InventoryEntry[],
  ssa: ServerSideApply,
  instance: Instance,
  signal: AbortSignal,
  logger: Logger,
): Promise<InventoryEntry[]> {
  const remaining: InventoryEntry[] = [];
  for (const entry of entries) {
    const obj = objectOf(entry);
    try {
      const live = await ssa.get(obj, signal);
      if (!live) continue;
      if (ownedByAnother(live, instance)) {
        logger.info(
          { object: describeObject(obj) },
          'not deleting an object that belongs to another Instance',
        );
        continue;
      }
      if ((await ssa.remove(obj, signal)) === 'deleting') remaining.push(entry);
    } catch (err) {
      if (err instanceof UnknownKindError) continue; // its kind is gone, so is the object
      logger.warn(
        { err, object: describeObject(obj) },
        'could not delete an inventory object; will retry',
      );
      remaining.push(entry);
    }
  }
  return remaining;
}
