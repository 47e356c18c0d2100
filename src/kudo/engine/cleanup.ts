/**
 * Deletes an Instance's inventory on deletion: every recorded object (cluster-scoped ones
 * too, objects in its target cluster too) whose live copy proves it is this Instance's — any
 * other is left in place, its entry dropped with a Warning Event `CleanupSkipped` (the
 * inventory is a list the tenant can write) — and `gc: keep` objects are abandoned (owner
 * reference removed) instead.
 * Child Instances (operator dependencies) go first, and the rest only once they are gone: a
 * child's own cleanup plan may still need what its parent applied. An object whose deletion
 * failed or is still finalizing stays in the inventory, so the next pass retries it; so does
 * an object whose cluster cannot be reached (`ssaFor` answers why).
 */
import type { Logger } from 'pino';
import { describeObject, ResourceManager, type ServerSideApply } from '../../kube/index.ts';
import { KUDO_GROUP, type Instance } from '../api/index.ts';
import type { InventoryEntry } from '../inventory/index.ts';
import { deletionRefused, inventoryDeletion } from '../tasks/index.ts';
import type { StatusSession } from './session.ts';

export interface InventoryDeletion {
  readonly remaining: InventoryEntry[];
  /** Why objects remain (one line per problem, naming the cluster or object). */
  readonly problems: string[];
}

type SsaFor = (entry: InventoryEntry) => ServerSideApply | Error;

export interface InventoryDeletionInput {
  readonly session: StatusSession;
  /** Where an entry's object lives, or why it cannot be reached now. */
  readonly ssaFor: SsaFor;
  readonly instance: Instance;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** A Warning Event on the Instance (`CleanupSkipped`: an entry that was not its object). */
  readonly warn: (reason: string, message: string) => void;
}

export async function deleteInventory(input: InventoryDeletionInput): Promise<InventoryDeletion> {
  const { session } = input;
  const isChild = (e: InventoryEntry): boolean => e.kind === 'Instance' && e.group === KUDO_GROUP;
  const all = session.inventory;
  const problems = new Set<string>();
  const children = await deleteEntries(input, all.filter(isChild), problems);
  const rest = all.filter((e) => !isChild(e));
  const remaining =
    children.length > 0 ? [...children, ...rest] : await deleteEntries(input, rest, problems);
  session.setInventory(remaining);
  return { remaining, problems: [...problems] };
}

/** Deletes `entries`; returns those still there (deleting, or the deletion failed). */
async function deleteEntries(
  input: InventoryDeletionInput,
  entries: readonly InventoryEntry[],
  problems: Set<string>,
): Promise<InventoryEntry[]> {
  const { ssaFor, instance, signal, logger, warn } = input;
  const remaining: InventoryEntry[] = [];
  for (const entry of entries) {
    const deletion = inventoryDeletion(entry, instance);
    const obj = deletion.object;
    const ssa = ssaFor(entry);
    if (ssa instanceof Error) {
      remaining.push(entry);
      problems.add(ssa.message);
      continue;
    }
    try {
      const change = await new ResourceManager(ssa).delete(deletion, signal);
      if (change.action === 'skipped') {
        const why = deletionRefused('cleanup', change.object, instance);
        logger.info({ object: describeObject(obj) }, why ?? 'not deleting');
        if (why !== undefined) warn('CleanupSkipped', why);
      }
      if (change.action === 'deleting') remaining.push(entry);
    } catch (err) {
      logger.warn(
        { err, object: describeObject(obj) },
        'could not delete an inventory object; will retry',
      );
      remaining.push(entry);
      problems.add(
        `${describeObject(obj)}${entry.cluster ? ` in cluster ${entry.cluster}` : ''}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  return remaining;
}
