/**
 * The KUDO side of the resource manager (kube/resource-manager.ts): which manager a task
 * applies through, and how an inventory entry is deleted — only an object that proves, live,
 * that it was applied for this Instance (ownership.ts), and a `gc: keep` object only let go of
 * (its owner reference to the Instance removed), never deleted. Prune and the Instance's
 * deletion share it.
 */
import { ResourceManager, type DeleteRequest } from '../../kube/index.ts';
import type { Instance } from '../api/index.ts';
import { objectOf, type InventoryEntry } from '../inventory/index.ts';
import { ownedByInstance } from '../render/index.ts';
import type { TaskContext } from './types.ts';

/** The resource manager over the task's client (the target cluster's, when it has one). */
export function resourcesOf(ctx: Pick<TaskContext, 'ssa'>): ResourceManager {
  return new ResourceManager(ctx.ssa);
}

/**
 * How the object of an inventory entry of `instance` is deleted: skipped (the entry says
 * `skipped`) unless the live object proves it is the Instance's.
 */
export function inventoryDeletion(entry: InventoryEntry, instance: Instance): DeleteRequest {
  return {
    object: objectOf(entry),
    skip: (live) => !ownedByInstance(live, instance),
    abandonOwner: entry.policy === 'keep' ? (instance.metadata.uid ?? '') : undefined,
  };
}
