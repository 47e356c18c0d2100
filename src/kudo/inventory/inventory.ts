/**
 * The inventory of objects an Instance applied, kept in `status.inventory`: enough to find
 * every object again (group, version, kind, namespace, name) for cleanup on deletion, and for
 * ConfigMaps and Secrets the digest of what was applied (the dependencies hash of pod
 * templates that mount them is computed from it instead of a last-applied annotation).
 */
import { parseApiVersion, apiVersionOf } from '../../kube/gvk.ts';
import type { ApplyObject } from '../../kube/apply.ts';

export interface InventoryEntry {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  /** Hex MD5 of the applied object's hash source (ConfigMaps and Secrets only). */
  readonly digest?: string;
}

/** `group/kind/namespace/name`: the identity of an entry (the version may change). */
export function inventoryKey(e: InventoryEntry): string {
  return `${e.group}/${e.kind}/${e.namespace ?? ''}/${e.name}`;
}

export function entryOf(obj: ApplyObject, digest?: string): InventoryEntry {
  const { group, version } = parseApiVersion(obj.apiVersion ?? '');
  const ns = obj.metadata?.namespace;
  return {
    group,
    version,
    kind: obj.kind ?? '',
    ...(ns ? { namespace: ns } : {}),
    name: obj.metadata?.name ?? '',
    ...(digest !== undefined ? { digest } : {}),
  };
}

/** A minimal object for addressing an entry through the API. */
export function objectOf(e: InventoryEntry): ApplyObject {
  return {
    apiVersion: apiVersionOf(e),
    kind: e.kind,
    metadata: { name: e.name, ...(e.namespace ? { namespace: e.namespace } : {}) },
  };
}

/** Reads entries from status, ignoring malformed ones. */
export function readInventory(
  raw: ReadonlyArray<Record<string, unknown>> | undefined,
): InventoryEntry[] {
  const out: InventoryEntry[] = [];
  for (const r of raw ?? []) {
    const { group, version, kind, namespace, name, digest } = r;
    if (typeof version !== 'string' || typeof kind !== 'string' || typeof name !== 'string')
      continue;
    out.push({
      group: typeof group === 'string' ? group : '',
      version,
      kind,
      ...(typeof namespace === 'string' && namespace !== '' ? { namespace } : {}),
      name,
      ...(typeof digest === 'string' && /^[0-9a-f]{32}$/.test(digest) ? { digest } : {}),
    });
  }
  return out;
}

/**
 * `current` plus the entries of `add` not in it (an entry's version and digest are updated in
 * place; an entry added without a digest keeps the one recorded).
 */
export function mergeInventory(
  current: readonly InventoryEntry[],
  add: readonly InventoryEntry[],
): { entries: InventoryEntry[]; changed: boolean } {
  const byKey = new Map(current.map((e) => [inventoryKey(e), e]));
  let changed = false;
  for (const e of add) {
    const known = byKey.get(inventoryKey(e));
    const digest = e.digest ?? known?.digest;
    if (!known || known.version !== e.version || known.digest !== digest) {
      byKey.set(inventoryKey(e), { ...e, ...(digest !== undefined ? { digest } : {}) });
      changed = true;
    }
  }
  return { entries: [...byKey.values()], changed };
}

export function removeFromInventory(
  current: readonly InventoryEntry[],
  remove: readonly InventoryEntry[],
): { entries: InventoryEntry[]; changed: boolean } {
  const drop = new Set(remove.map(inventoryKey));
  const entries = current.filter((e) => !drop.has(inventoryKey(e)));
  return { entries, changed: entries.length !== current.length };
}
