/**
 * Which inventory entries an Instance may have at all. `status.inventory` is writable by whoever
 * may write the Instance's status (a tenant whose Role grants `kudo.dev` resources `*` has
 * `instances/status`), so an entry is read as a claim, and a claim outside what the posture
 * lets the Instance reach is ignored before anything looks at the object it names: another
 * namespace without an `--allow-namespace` grant, a cluster-scoped object where the posture
 * refuses them, or another cluster than the Instance's own target (whose credentials would be
 * another tenant's). Entries inside the scope still prove ownership from the live object before
 * anything is deleted or written (ownership.ts).
 */
import { describeObject, namespacedName } from '../../kube/index.ts';
import type { Instance } from '../api/index.ts';
import { objectOf, type InventoryEntry } from '../inventory/index.ts';
import { granted, type TenancyPolicy } from './tenancy.ts';

/**
 * Why `entry` lies outside what `instance` may reach under `policy`, or undefined when it does
 * not. `clusters` are the keys of the Instance's own target cluster (empty: home only).
 */
export function entryOutOfScope(
  policy: TenancyPolicy,
  instance: Instance,
  entry: InventoryEntry,
  clusters: readonly string[],
): string | undefined {
  const home = instance.metadata.namespace ?? '';
  const who = `Instance ${namespacedName(instance.metadata)}`;
  const what = `status.inventory names ${describeObject(objectOf(entry))}`;
  if (entry.cluster !== undefined && !clusters.includes(entry.cluster)) {
    return `${what} in cluster ${entry.cluster}, which is not the target of ${who} (spec.kubeConfig); the entry was dropped and nothing was sent to that cluster`;
  }
  if (entry.namespace === undefined) {
    if (policy.posture === 'kudo') return undefined;
    if ((policy.clusterScoped ?? []).some((ns) => ns === '*' || ns === home)) return undefined;
    return `${what}, a cluster-scoped object, which the multi-tenant posture does not let ${who} touch; the entry was dropped and the object left alone. An administrator allows cluster-scoped objects with \`planwright start --allow-cluster-scoped ${home}\``;
  }
  if (entry.namespace === home || granted(policy.namespaces, home, entry.namespace))
    return undefined;
  return `${what}, outside the namespace ${home} of ${who}; the entry was dropped and the object left alone. An administrator allows namespace ${entry.namespace} with \`planwright start --allow-namespace ${home}=${entry.namespace}\``;
}

/** `entries` split into those inside the scope and the reasons the others are not. */
export function scopeInventory(
  policy: TenancyPolicy,
  instance: Instance,
  entries: readonly InventoryEntry[],
  clusters: readonly string[],
): { readonly inside: InventoryEntry[]; readonly outside: Array<[InventoryEntry, string]> } {
  const inside: InventoryEntry[] = [];
  const outside: Array<[InventoryEntry, string]> = [];
  for (const entry of entries) {
    const why = entryOutOfScope(policy, instance, entry, clusters);
    if (why === undefined) inside.push(entry);
    else outside.push([entry, why]);
  }
  return { inside, outside };
}
