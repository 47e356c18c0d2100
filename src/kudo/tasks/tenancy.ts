/**
 * What an Instance may make the manager do beyond its own namespace (docs/security.md).
 *
 * Two postures. `kudo` (the default) runs KUDO's packages as KUDO ran them: every namespaced
 * object lands in the Instance's namespace (KUDO's enhancer set it, whatever the template
 * said; a Warning Event says so), cluster-scoped objects are applied, and an object that
 * existed before is taken over with a Warning Event naming its previous owner. `multi-tenant`
 * refuses instead — a template naming another namespace, a cluster-scoped object, an existing
 * object this Instance does not own, an OperatorVersion of another namespace — each a
 * FATAL_ERROR naming the object and the allowance that would permit it. Deletes touch only
 * what this Instance owns.
 *
 * Allowances belong to the administrator: they are flags of `planwright start`, which a
 * tenant cannot change (a tenant owns objects in their namespace, not the manager's command
 * line). A deliberate adoption is the owner's act instead: whoever may write the existing
 * object annotates it `planwright.dev/adopt: <namespace>/<instance>`.
 */
import { describeObject, type ApplyObject } from '../../kube/index.ts';
import { namespacedName } from '../../kube/index.ts';
import type { Instance } from '../api/types.ts';
import {
  ANNOTATION_OWNER,
  HERITAGE_KUDO,
  LABEL_HERITAGE,
  LABEL_INSTANCE,
  controlledByInstance,
  labelValue,
  ownedByAnother,
  ownerAnnotation,
} from '../render/index.ts';

export type TenancyPosture = 'kudo' | 'multi-tenant';
export const TENANCY_POSTURES: readonly TenancyPosture[] = ['kudo', 'multi-tenant'];

/** Instances of namespace `from` (`*`: every namespace) may reach namespace `to`. */
export interface NamespaceGrant {
  readonly from: string;
  readonly to: string;
}

export interface TenancyPolicy {
  readonly posture: TenancyPosture;
  /** Where Instances may write namespaced objects besides their own namespace (--allow-namespace). */
  readonly namespaces?: readonly NamespaceGrant[];
  /** Namespaces whose Instances may apply cluster-scoped objects, multi-tenant (--allow-cluster-scoped). */
  readonly clusterScoped?: readonly string[];
  /** Whose OperatorVersions Instances may use, multi-tenant (--allow-operator-version). */
  readonly operatorVersions?: readonly NamespaceGrant[];
  /** Whose rights plans write with (--default-service-account, --allow-service-account). */
  readonly serviceAccounts?: ServiceAccountPolicy;
}

/**
 * Plans that act as a ServiceAccount of the Instance's namespace instead of the manager (as
 * Flux's `--default-service-account` and `spec.serviceAccountName`). Both postures.
 */
export interface ServiceAccountPolicy {
  /** Every Instance without the annotation acts as this ServiceAccount of its namespace. */
  readonly default?: string;
  /** ServiceAccount names (`to`) Instances of namespace `from` may choose by annotation. */
  readonly allowed?: readonly NamespaceGrant[];
}

/** The posture without allowances: KUDO's behaviour. */
export const KUDO_TENANCY: TenancyPolicy = { posture: 'kudo' };

/** On an Instance: the ServiceAccount of its namespace whose rights its plans write with. */
export const ANNOTATION_SERVICE_ACCOUNT = 'planwright.dev/service-account';

/** Set by the owner of an existing object: `<namespace>/<instance>` may take it over. */
export const ANNOTATION_ADOPT = 'planwright.dev/adopt';

export class TenancyFlagError extends Error {
  override readonly name = 'TenancyFlagError';
}

const NAME = /^(\*|[a-z0-9]([-a-z0-9]*[a-z0-9])?)$/;

/** `FROM=TO` of a grant flag; FROM may be `*`. Throws {@link TenancyFlagError} saying what to fix. */
export function parseGrant(flag: string, value: string): NamespaceGrant {
  const [from, to, extra] = value.split('=');
  if (
    from === undefined ||
    to === undefined ||
    extra !== undefined ||
    !NAME.test(from) ||
    !NAME.test(to) ||
    to === '*'
  ) {
    throw new TenancyFlagError(
      `${flag} ${JSON.stringify(value)}: needs <instance namespace>=<namespace> (the first may be *), e.g. ${flag} team-a=shared`,
    );
  }
  return { from, to };
}

export function parseNamespace(flag: string, value: string): string {
  if (!NAME.test(value)) {
    throw new TenancyFlagError(
      `${flag} ${JSON.stringify(value)}: needs a namespace name or *, e.g. ${flag} platform`,
    );
  }
  return value;
}

function granted(grants: readonly NamespaceGrant[] | undefined, from: string, to: string): boolean {
  return (grants ?? []).some((g) => (g.from === '*' || g.from === from) && g.to === to);
}

/** Where a rendered object goes, or why it may not. */
export type Placement =
  | { readonly kind: 'keep' }
  | { readonly kind: 'override'; readonly namespace: string; readonly warning: string }
  | { readonly kind: 'refuse'; readonly message: string };

export interface PlacementInput {
  readonly template: string;
  readonly object: ApplyObject;
  /** Whether the object's kind is namespaced (from discovery). */
  readonly namespaced: boolean;
  readonly instanceNamespace: string;
}

/** Where `input.object` may be written under `policy`. */
export function placeObject(policy: TenancyPolicy, input: PlacementInput): Placement {
  const { template, object, instanceNamespace: home } = input;
  const what = `template ${template}: ${describeObject(object)}`;
  if (!input.namespaced) {
    if (policy.posture === 'kudo') return { kind: 'keep' };
    const allowed = (policy.clusterScoped ?? []).some((ns) => ns === '*' || ns === home);
    if (allowed) return { kind: 'keep' };
    return {
      kind: 'refuse',
      message: `${what} is cluster-scoped; the multi-tenant posture refuses cluster-scoped objects from Instances of namespace ${home}. An administrator allows them with \`planwright start --allow-cluster-scoped ${home}\``,
    };
  }
  const requested = object.metadata?.namespace;
  if (!requested || requested === home) return { kind: 'keep' };
  if (granted(policy.namespaces, home, requested)) return { kind: 'keep' };
  const allow = `\`planwright start --allow-namespace ${home}=${requested}\``;
  if (policy.posture === 'kudo') {
    return {
      kind: 'override',
      namespace: home,
      warning: `${what} names namespace ${requested}; applied in the Instance's namespace ${home} instead, as KUDO did. An administrator allows writing into ${requested} with ${allow}`,
    };
  }
  return {
    kind: 'refuse',
    message: `${what} names namespace ${requested}, outside the Instance's namespace ${home}; the multi-tenant posture refuses it. Leave metadata.namespace out of the template, or have an administrator allow it with ${allow}`,
  };
}

/** A live object's relation to an Instance. */
export type Ownership =
  | { readonly state: 'owned' }
  | { readonly state: 'adoptable'; readonly previous: string }
  | { readonly state: 'foreign'; readonly previous: string };

function ownedBy(live: ApplyObject, instance: Instance): boolean {
  const annotation = live.metadata?.annotations?.[ANNOTATION_OWNER];
  if (annotation !== undefined) return annotation === ownerAnnotation(instance);
  if (controlledByInstance(live, instance)) return true;
  // Objects KUDO (or an older Planwright) applied carry the owner labels only.
  const labels = live.metadata?.labels ?? {};
  return (
    labels[LABEL_HERITAGE] === HERITAGE_KUDO &&
    labels[LABEL_INSTANCE] === labelValue(instance.metadata.name ?? '') &&
    (live.metadata?.namespace ?? '') === (instance.metadata.namespace ?? '')
  );
}

/** Who a live object belonged to, for messages. */
export function previousOwner(live: ApplyObject): string {
  const meta = live.metadata ?? {};
  const annotation = meta.annotations?.[ANNOTATION_OWNER];
  if (annotation) return `Instance ${annotation}`;
  const instance = meta.labels?.[LABEL_INSTANCE];
  if (instance) return `Instance ${meta.namespace ? `${meta.namespace}/` : ''}${instance} (label)`;
  const refs = meta['ownerReferences'];
  if (Array.isArray(refs) && refs.length > 0) {
    const ref = refs[0] as { kind?: unknown; name?: unknown };
    return `${String(ref.kind)} ${String(ref.name)} (owner reference)`;
  }
  const fields = meta['managedFields'];
  if (Array.isArray(fields)) {
    const managers = [
      ...new Set(
        fields
          .map((f: unknown) => (f as { manager?: unknown } | null)?.manager)
          .filter((m): m is string => typeof m === 'string'),
      ),
    ];
    if (managers.length > 0)
      return `field manager${managers.length > 1 ? 's' : ''} ${managers.join(', ')}`;
  }
  return 'no recorded owner';
}

export function ownershipOf(live: ApplyObject, instance: Instance): Ownership {
  if (ownedBy(live, instance)) return { state: 'owned' };
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

/** Whether a Delete task may delete `live` for `instance`. */
export function mayDelete(policy: TenancyPolicy, live: ApplyObject, instance: Instance): boolean {
  const owner = ownershipOf(live, instance);
  if (policy.posture === 'multi-tenant') return owner.state === 'owned';
  // KUDO deleted whatever the task named; only objects of another Instance are left alone.
  return !ownedByAnother(live, instance);
}

/** Why an Instance may not use the OperatorVersion in `ovNamespace`, if it may not. */
export function operatorVersionProblem(
  policy: TenancyPolicy,
  instance: Instance,
  ovNamespace: string,
): string | undefined {
  const home = instance.metadata.namespace ?? '';
  if (policy.posture === 'kudo' || ovNamespace === home) return undefined;
  if (granted(policy.operatorVersions, home, ovNamespace)) return undefined;
  return `Instance ${namespacedName(instance.metadata)} uses an OperatorVersion of namespace ${ovNamespace}; the multi-tenant posture lets Instances use OperatorVersions of their own namespace only. Install the operator in ${home}, or have an administrator allow it with \`planwright start --allow-operator-version ${home}=${ovNamespace}\``;
}

/** Whose rights an Instance's plans write with, or why the one it asks for is refused. */
export type Identity =
  | { readonly kind: 'manager' }
  | {
      readonly kind: 'serviceAccount';
      readonly namespace: string;
      readonly name: string;
      /** Where the choice came from, for messages. */
      readonly source: string;
    }
  | { readonly kind: 'refuse'; readonly message: string };

/** A DNS-1123 subdomain: what a ServiceAccount may be named. */
const SERVICE_ACCOUNT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The identity of `instance` under `policy`: its annotation's ServiceAccount if the policy
 * lets its namespace choose that name (the default's name always may be chosen), else the
 * default ServiceAccount, else the manager itself.
 */
export function identityOf(policy: TenancyPolicy, instance: Instance): Identity {
  const home = instance.metadata.namespace ?? '';
  const accounts = policy.serviceAccounts ?? {};
  const asked = instance.metadata.annotations?.[ANNOTATION_SERVICE_ACCOUNT];
  if (asked === undefined) {
    return accounts.default === undefined
      ? { kind: 'manager' }
      : {
          kind: 'serviceAccount',
          namespace: home,
          name: accounts.default,
          source: '`planwright start --default-service-account`',
        };
  }
  const who = `Instance ${namespacedName(instance.metadata)}`;
  if (asked.length > 253 || !SERVICE_ACCOUNT_NAME.test(asked)) {
    return {
      kind: 'refuse',
      message: `${who}: annotation ${ANNOTATION_SERVICE_ACCOUNT}: ${JSON.stringify(asked.slice(0, 100))} is not a ServiceAccount name (lower-case letters, digits, '-' and '.'); name a ServiceAccount of namespace ${home}`,
    };
  }
  if (asked === accounts.default || granted(accounts.allowed, home, asked)) {
    return {
      kind: 'serviceAccount',
      namespace: home,
      name: asked,
      source: `annotation ${ANNOTATION_SERVICE_ACCOUNT}`,
    };
  }
  return {
    kind: 'refuse',
    message: `${who} asks to act as ServiceAccount ${home}/${asked} (annotation ${ANNOTATION_SERVICE_ACCOUNT}), which the administrator has not allowed for namespace ${home}. Remove the annotation${accounts.default === undefined ? '' : ` (the Instance then acts as ServiceAccount ${home}/${accounts.default})`}, or have an administrator allow it with \`planwright start --allow-service-account ${home}=${asked}\``,
  };
}
