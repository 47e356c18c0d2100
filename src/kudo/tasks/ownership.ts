/**
 * What Planwright may overwrite or delete for an Instance, decided from the live object alone
 * (docs/security.md, "Ownership"): an object proves it belongs to the Instance by an owner
 * reference or the `planwright.dev/instance-uid` label carrying the Instance's uid
 * (render/labels.ts ownedByInstance). The inventory in the Instance's status is a list the
 * tenant can write, so it only says where to look, never what may be touched.
 *
 * An object that does not prove it is judged by the posture when a plan would write over it
 * (taken over with a Warning in `kudo`, refused in `multi-tenant`, unless handed over with the
 * `planwright.dev/adopt` annotation) and is never deleted, in either posture.
 */
import { describeObject, namespacedName, type ApplyObject } from '../../kube/index.ts';
import type { Instance } from '../api/index.ts';
import {
  ANNOTATION_OWNER,
  LABEL_INSTANCE,
  LABEL_OWNER_UID,
  ownedByInstance,
} from '../render/index.ts';
import type { TenancyPolicy } from './tenancy.ts';

/** Set by the owner of an existing object: `<namespace>/<instance>` may take it over. */
export const ANNOTATION_ADOPT = 'planwright.dev/adopt';

/** A live object's relation to an Instance. */
export type Ownership =
  | { readonly state: 'owned' }
  | { readonly state: 'adoptable'; readonly previous: string }
  | { readonly state: 'foreign'; readonly previous: string };

function managersOf(meta: NonNullable<ApplyObject['metadata']>): string[] {
  const fields = meta['managedFields'];
  if (!Array.isArray(fields)) return [];
  return [
    ...new Set(
      fields
        .map((f: unknown) => (f as { manager?: unknown } | null)?.manager)
        .filter((m): m is string => typeof m === 'string'),
    ),
  ];
}

/** Who a live object belonged to, for messages (what it says, not what it proves). */
export function previousOwner(live: ApplyObject): string {
  const meta = live.metadata ?? {};
  const annotation = meta.annotations?.[ANNOTATION_OWNER];
  if (annotation) return `Instance ${annotation}`;
  const instance = meta.labels?.[LABEL_INSTANCE];
  if (instance) return `Instance ${meta.namespace ? `${meta.namespace}/` : ''}${instance} (label)`;
  const uid = meta.labels?.[LABEL_OWNER_UID];
  if (uid) return `the Instance of uid ${uid} (label)`;
  const refs = meta['ownerReferences'];
  if (Array.isArray(refs) && refs.length > 0) {
    const ref = refs[0] as { kind?: unknown; name?: unknown };
    return `${String(ref.kind)} ${String(ref.name)} (owner reference)`;
  }
  const managers = managersOf(meta);
  if (managers.length > 0)
    return `field manager${managers.length > 1 ? 's' : ''} ${managers.join(', ')}`;
  return 'no recorded owner';
}

export function ownershipOf(live: ApplyObject, instance: Instance): Ownership {
  if (ownedByInstance(live, instance)) return { state: 'owned' };
  const previous = previousOwner(live);
  const adopt = live.metadata?.annotations?.[ANNOTATION_ADOPT];
  if (adopt !== undefined && adopt === namespacedName(instance.metadata)) {
    return { state: 'adoptable', previous };
  }
  return { state: 'foreign', previous };
}

/** What applying over an existing object means: nothing, a warning, or a refusal. */
export type Adoption =
  | { readonly kind: 'none' }
  | { readonly kind: 'warn'; readonly message: string }
  | { readonly kind: 'refuse'; readonly message: string };

export function adoption(policy: TenancyPolicy, live: ApplyObject, instance: Instance): Adoption {
  const owner = ownershipOf(live, instance);
  if (owner.state === 'owned') return { kind: 'none' };
  const who = namespacedName(instance.metadata);
  const what = describeObject(live);
  if (owner.state === 'adoptable') {
    return {
      kind: 'warn',
      message: `${what} existed before Instance ${who} applied it (previous owner: ${owner.previous}); adopted as its ${ANNOTATION_ADOPT} annotation asks`,
    };
  }
  if (policy.posture === 'kudo') {
    return {
      kind: 'warn',
      message: `${what} existed before Instance ${who} applied it (previous owner: ${owner.previous}); Planwright took it over, as KUDO did`,
    };
  }
  const kind = (live.kind ?? '').toLowerCase();
  const ns = live.metadata?.namespace ? ` -n ${live.metadata.namespace}` : '';
  return {
    kind: 'refuse',
    message: `${what} exists and does not belong to Instance ${who} (previous owner: ${owner.previous}); the multi-tenant posture never takes over an object it did not create. Delete it, rename it in the package, or let its owner hand it over: kubectl annotate ${kind} ${live.metadata?.name ?? ''}${ns} ${ANNOTATION_ADOPT}=${who}`,
  };
}

/**
 * Why `live` may not be deleted for `instance` (prune, cleanup, a Delete task), or undefined
 * when it may: only what proves it is the Instance's, in both postures. `doing` names the
 * deleter for the message (`task t`, `prune of task t`, `cleanup`).
 */
export function deletionRefused(
  doing: string,
  live: ApplyObject,
  instance: Instance,
): string | undefined {
  if (ownedByInstance(live, instance)) return undefined;
  return `${doing}: ${describeObject(live)} does not carry the owner reference or ${LABEL_OWNER_UID} label of Instance ${namespacedName(instance.metadata)} (owner: ${previousOwner(live)}); Planwright deletes only what it applied for this Instance, so it was left in place`;
}
