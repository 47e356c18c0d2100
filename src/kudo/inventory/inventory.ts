/**
 * The inventory of objects an Instance applied, kept in `status.inventory`: enough to find
 * every object again (cluster, group, version, kind, namespace, name) for cleanup on deletion;
 * for ConfigMaps and Secrets the digest of what was applied (the dependencies hash of pod
 * templates that mount them is computed from it instead of a last-applied annotation); and
 * what prune and drift need — the task that last applied the object, a digest of its whole
 * content, and the object's policy (`keep`: never deleted; `once`: never updated).
 */
import { parseApiVersion, apiVersionOf } from '../../kube/index.ts';
import type { ApplyObject } from '../../kube/index.ts';

/** `planwright.dev/gc: keep` or `planwright.dev/apply: once` (see policy.ts). */
export type ObjectPolicy = 'keep' | 'once';

export interface InventoryEntry {
  /** The target cluster's key (`secret:<ns>/<name>/<key>`); absent for the home cluster. */
  readonly cluster?: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  /** Hex MD5 of the applied object's hash source (ConfigMaps and Secrets only). */
  readonly digest?: string;
  /** The Apply/Toggle task that last applied it. */
  readonly task?: string;
  /** sha256 (hex, 16 chars) of what was applied, plan annotations left out (prune, drift). */
  readonly contentDigest?: string;
  readonly policy?: ObjectPolicy;
}

/** `[cluster|]group/kind/namespace/name`: the identity of an entry (the version may change). */
export function inventoryKey(e: InventoryEntry): string {
  const id = `${e.group}/${e.kind}/${e.namespace ?? ''}/${e.name}`;
  return e.cluster ? `${e.cluster}|${id}` : id;
}

export interface EntryDetails {
  readonly cluster?: string;
  readonly digest?: string;
  readonly task?: string;
  readonly contentDigest?: string;
  readonly policy?: ObjectPolicy;
}

export function entryOf(obj: ApplyObject, details: EntryDetails = {}): InventoryEntry {
  const { group, version } = parseApiVersion(obj.apiVersion ?? '');
  return {
    cluster: details.cluster || undefined,
    group,
    version,
    kind: obj.kind ?? '',
    namespace: obj.metadata?.namespace || undefined,
    name: obj.metadata?.name ?? '',
    digest: details.digest,
    task: details.task || undefined,
    contentDigest: details.contentDigest || undefined,
    policy: details.policy,
  };
}

/** A minimal object for addressing an entry through the API. */
export function objectOf(e: InventoryEntry): ApplyObject {
  return {
    apiVersion: apiVersionOf(e),
    kind: e.kind,
    metadata: { name: e.name, namespace: e.namespace || undefined },
  };
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Reads entries from status, ignoring malformed ones. */
export function readInventory(
  raw: ReadonlyArray<Record<string, unknown>> | undefined,
): InventoryEntry[] {
  const out: InventoryEntry[] = [];
  for (const r of raw ?? []) {
    // Stored status is untyped: an item that is not a map cannot name an object.
    if (typeof r !== 'object' || r === null || Array.isArray(r)) continue;
    const { group, version, kind, name, digest } = r;
    if (typeof version !== 'string' || typeof kind !== 'string' || typeof name !== 'string')
      continue;
    out.push({
      cluster: optionalString(r['cluster']),
      group: typeof group === 'string' ? group : '',
      version,
      kind,
      namespace: optionalString(r['namespace']),
      name,
      digest: typeof digest === 'string' && /^[0-9a-f]{32}$/.test(digest) ? digest : undefined,
      task: optionalString(r['task']),
      contentDigest: optionalString(r['contentDigest']),
      policy: r['policy'] === 'keep' || r['policy'] === 'once' ? r['policy'] : undefined,
    });
  }
  return out;
}

function sameRecord(a: InventoryEntry, b: InventoryEntry): boolean {
  return (
    a.version === b.version &&
    a.digest === b.digest &&
    a.task === b.task &&
    a.contentDigest === b.contentDigest &&
    a.policy === b.policy
  );
}

/**
 * `current` plus the entries of `add` not in it; a known entry is updated in place (version,
 * digests, task, policy), except that an entry added without digests or task keeps the ones
 * recorded.
 */
export function mergeInventory(
  current: readonly InventoryEntry[],
  add: readonly InventoryEntry[],
): { entries: InventoryEntry[]; changed: boolean } {
  const byKey = new Map(current.map((e) => [inventoryKey(e), e]));
  let changed = false;
  for (const e of add) {
    const known = byKey.get(inventoryKey(e));
    const next: InventoryEntry = known
      ? {
          ...known,
          ...e,
          digest: e.digest ?? known.digest,
          task: e.task || known.task,
          contentDigest: e.contentDigest || known.contentDigest,
          policy: e.policy || known.policy,
        }
      : e;
    if (!known || !sameRecord(known, next)) {
      byKey.set(inventoryKey(e), next);
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
