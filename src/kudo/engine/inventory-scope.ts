/**
 * At the start of every pass, the Instance's recorded inventory is read as the claim it is
 * (tasks/inventory-scope.ts): entries outside what the posture lets the Instance reach — other
 * namespaces, cluster-scoped objects the posture refuses, clusters other than its own target —
 * are dropped before prune, cleanup, drift or the watches look at them, each with a Warning
 * Event `InventoryEntryIgnored` naming it. The next status write carries the drop.
 */
import { KUDO_TENANCY, scopeInventory } from '../tasks/index.ts';
import { warnOnce, type Pass } from './pass.ts';
import { targetClusterKeys } from './targets.ts';

/** The reason the Events are recorded under, once per term and message. */
const SCOPE_RUN = 'inventory-scope';

export function dropOutOfScope(pass: Pass): void {
  const { engine, session } = pass;
  const instance = pass.instance;
  const { outside } = scopeInventory(
    engine.ctx.tenancy ?? KUDO_TENANCY,
    instance,
    session.inventory,
    targetClusterKeys(instance),
  );
  if (outside.length === 0) return;
  session.forget(outside.map(([entry]) => entry));
  for (const [, why] of outside) {
    engine.ctx.logger.warn({ instance: pass.key }, why);
    warnOnce(pass, SCOPE_RUN, { reason: 'InventoryEntryIgnored', message: why });
  }
}
