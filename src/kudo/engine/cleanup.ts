/**
 * Deletes an Instance's inventory on deletion: every recorded object (cluster-scoped ones
 * too), except objects whose owner labels name another Instance. An object whose deletion
 * failed or is still finalizing stays in the inventory, so the next pass retries it.
 */
import type { Logger } from 'pino';
import { describeObject, type ServerSideApply } from '../../kube/apply.ts';
import { UnknownKindError } from '../../kube/errors.ts';
import type { Instance } from '../api/types.ts';
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
  const remaining: InventoryEntry[] = [];
  for (const entry of session.inventory) {
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
  session.setInventory(remaining);
  return remaining;
}
