/**
 * What an Instance may make the manager do beyond its own namespace (docs/security.md).
 *
 * Two postures. `kudo` (the default) runs KUDO's packages as KUDO ran them: every namespaced
 * object lands in the Instance's namespace (KUDO's enhancer set it, whatever the template
 * said; a Warning Event says so), cluster-scoped objects are applied, and an object that
 * existed before is taken over with a Warning Event naming its previous owner. `multi-tenant`
 * refuses instead — a template naming another namespace, a cluster-scoped object, an existing
 * object this Instance does not own — each a FATAL_ERROR naming the object and the allowance
 * that would permit it. In both postures an OperatorVersion of another namespace needs an
 * allowance, and deletes touch only what this Instance owns (ownership.ts).
 *
 * Allowances belong to the administrator: they are flags of `planwright start`, which a
 * tenant cannot change (a tenant owns objects in their namespace, not the manager's command
 * line). A deliberate adoption is the owner's act instead: whoever may write the existing
 * object annotates it `planwright.dev/adopt: <namespace>/<instance>`.
 */
import { describeObject, type ApplyObject, namespacedName } from '../../kube/index.ts';
import type { Instance } from '../api/index.ts';

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

/** Whether `grants` let Instances of namespace `from` reach namespace `to`. */
export function granted(
  grants: readonly NamespaceGrant[] | undefined,
  from: string,
  to: string,
): boolean {
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

/**
 * Why an Instance may not use the OperatorVersion `ov`, if it may not. The `kudo` posture uses
 * whatever `spec.operatorVersion.namespace` names, as KUDO did (and KUDO's own cases rely on:
 * their OperatorVersions live in `default`). Multi-tenant: another namespace's OperatorVersion
 * renders that namespace's templates and parameter defaults into this one, so it needs an
 * administrator's allowance. The text begins as KUDO's controller reported an OperatorVersion
 * it could not get (Event `InvalidOperatorVersion`).
 */
export function operatorVersionProblem(
  policy: TenancyPolicy,
  instance: Instance,
  ov: { readonly namespace: string; readonly name: string },
): string | undefined {
  const home = instance.metadata.namespace ?? '';
  if (ov.namespace === home || policy.posture === 'kudo') return undefined;
  if (granted(policy.operatorVersions, home, ov.namespace)) return undefined;
  return `InstanceController: Error getting operatorVersion ${ov.name} for instance ${namespacedName(instance.metadata)}: OperatorVersion ${ov.namespace}/${ov.name} is in another namespace, and in the multi-tenant posture Instances of namespace ${home} may use OperatorVersions of their own namespace only. Install the operator in ${home}, or have an administrator allow it with \`planwright start --allow-operator-version ${home}=${ov.namespace}\``;
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
