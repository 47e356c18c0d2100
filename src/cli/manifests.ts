/**
 * The installation Planwright's `init` applies, rendered from manifests/ (never repeated in
 * code) exactly as `kubectl apply -k` renders it: CRDs, the Namespace, RBAC, Deployment,
 * Service and PodDisruptionBudget, and both webhook registrations — the default
 * (manifests/kustomization.yaml, self-managed TLS) or manifests/cert-manager/ — in an order the
 * API server accepts, rewritten for another namespace or image when asked.
 */
import { join } from 'node:path';
import type { ApplyObject } from '../kube/index.ts';
import { MANIFESTS_DIR } from './install.ts';
import { renderKustomization } from './kustomize.ts';
import { watchCondition } from './watch-namespaces.ts';

/** The namespace manifests/ installs into. */
export const MANIFEST_NAMESPACE = 'planwright-system';

export interface InstallationOptions {
  readonly certManager?: boolean;
  readonly crdOnly?: boolean;
  readonly namespace?: string;
  /** Container image of the Deployment (manifests/ say `planwright:dev`). */
  readonly image?: string;
  /**
   * A namespaced installation: the manager serves these namespaces only (`start
   * --watch-namespaces`) and is granted its roles there by RoleBindings instead of
   * ClusterRoleBindings (docs/namespaced-installation.md).
   */
  readonly watchNamespaces?: readonly string[];
  /** Replicas of the Deployment (manifests/ say 2). */
  readonly replicas?: number;
  /** `--shards` of the Deployment's replicas (manifests/ say 12). */
  readonly shards?: number;
  readonly dir?: string;
}

/** Apply order: what others depend on first; webhook registrations last. */
const KIND_ORDER = [
  'CustomResourceDefinition',
  'Namespace',
  'ServiceAccount',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'Secret',
  'ConfigMap',
  'Issuer',
  'Certificate',
  'Service',
  'Deployment',
  'PodDisruptionBudget',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
];

function rank(obj: ApplyObject): number {
  const i = KIND_ORDER.indexOf(obj.kind ?? '');
  return i < 0 ? KIND_ORDER.indexOf('Deployment') : i;
}

/**
 * Replaces the namespace everywhere it names the installation's namespace: metadata,
 * RoleBinding subjects, webhook service references, certificate DNS names (`x.planwright-system.svc`)
 * and cert-manager's `namespace/name` annotations. Only whole DNS labels / path segments match.
 */
export function renameNamespace<T>(value: T, from: string, to: string): T {
  if (from === to) return value;
  const pattern = new RegExp(
    `(^|[./])${from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=$|[./])`,
    'g',
  );
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace(pattern, `$1${to}`);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

export async function installationObjects(
  options: InstallationOptions = {},
): Promise<ApplyObject[]> {
  const root = options.dir ?? MANIFESTS_DIR;
  const objects = await renderKustomization(
    options.crdOnly ? join(root, 'crds') : options.certManager ? join(root, 'cert-manager') : root,
  );
  let out = objects
    .map((o, i) => ({ o, i }))
    .sort((a, b) => rank(a.o) - rank(b.o) || a.i - b.i)
    .map(({ o }) => o);
  if (options.namespace) out = renameNamespace(out, MANIFEST_NAMESPACE, options.namespace);
  if (options.image) {
    const image = options.image;
    out = out.map((o) => {
      if (o.kind !== 'Deployment') return o;
      const copy = structuredClone(o);
      const spec = copy['spec'] as
        | { template?: { spec?: { containers?: Array<{ name?: string; image?: string }> } } }
        | undefined;
      for (const c of spec?.template?.spec?.containers ?? []) {
        if (c.name === 'planwright') c.image = image;
      }
      return copy;
    });
  }
  if (options.replicas !== undefined || options.shards !== undefined) {
    out = out.map((o) => (o.kind === 'Deployment' ? scaled(o, options) : o));
  }
  if (options.watchNamespaces) out = namespaced(out, options.watchNamespaces);
  return out;
}

/** The Deployment with other replicas or shards (`init --replicas`, `--shards`). */
function scaled(
  deployment: ApplyObject,
  options: Pick<InstallationOptions, 'replicas' | 'shards'>,
): ApplyObject {
  const copy = structuredClone(deployment);
  const spec = copy['spec'] as
    | {
        replicas?: number;
        template?: { spec?: { containers?: Array<{ name?: string; args?: string[] }> } };
      }
    | undefined;
  if (!spec) return copy;
  if (options.replicas !== undefined) spec.replicas = options.replicas;
  if (options.shards !== undefined) {
    for (const c of spec.template?.spec?.containers ?? []) {
      if (c.name !== 'planwright') continue;
      // In place where manifests/ have it, so the chart (a value at the same place) renders
      // the same arguments.
      const args = [...(c.args ?? [])];
      const at = args.indexOf('--shards');
      if (at >= 0) args.splice(at, 2, '--shards', String(options.shards));
      else args.push('--shards', String(options.shards));
      c.args = args;
    }
  }
  return copy;
}

/**
 * ClusterRoles whose grants a namespaced installation gives by a RoleBinding in each served
 * namespace: everything the manager reads, watches and writes there. The others stay bound
 * cluster-wide because what they grant is cluster-scoped: TokenReviews and
 * SubjectAccessReviews (/metrics) and the caBundle of its own two webhook configurations.
 */
export const NAMESPACED_ROLES: readonly string[] = ['planwright', 'planwright-package-objects'];

/** The installation rewritten for a manager serving `namespaces` only. */
function namespaced(objects: ApplyObject[], namespaces: readonly string[]): ApplyObject[] {
  const out: ApplyObject[] = [];
  for (const o of objects) {
    const roleRef = o['roleRef'] as { kind?: string; name?: string } | undefined;
    if (o.kind === 'ClusterRoleBinding' && NAMESPACED_ROLES.includes(roleRef?.name ?? '')) {
      for (const namespace of namespaces) {
        out.push({
          ...structuredClone(o),
          kind: 'RoleBinding',
          metadata: { ...structuredClone(o.metadata), namespace },
        });
      }
      continue;
    }
    if (o.kind === 'Deployment') {
      const copy = structuredClone(o);
      const spec = copy['spec'] as
        | { template?: { spec?: { containers?: Array<{ name?: string; args?: string[] }> } } }
        | undefined;
      for (const c of spec?.template?.spec?.containers ?? []) {
        if (c.name === 'planwright')
          c.args = [...(c.args ?? []), '--watch-namespaces', namespaces.join(',')];
      }
      out.push(copy);
      continue;
    }
    if (o.kind === 'MutatingWebhookConfiguration' || o.kind === 'ValidatingWebhookConfiguration') {
      const copy = structuredClone(o);
      const condition = watchCondition({ names: namespaces, prefixes: [] });
      for (const webhook of (copy['webhooks'] ?? []) as Array<Record<string, unknown>>) {
        webhook['matchConditions'] = [condition];
      }
      out.push(copy);
      continue;
    }
    out.push(o);
  }
  // RoleBindings come after the Roles' kinds in the apply order, as before.
  return out.sort((a, b) => rank(a) - rank(b));
}

/** `kind/name` (plus namespace) the way kubectl names what it applied. */
export function objectLabel(obj: ApplyObject): string {
  const [group] = (obj.apiVersion ?? '').includes('/') ? (obj.apiVersion ?? '').split('/') : [''];
  const kind = (obj.kind ?? '').toLowerCase();
  const ns = obj.metadata?.namespace ? ` -n ${obj.metadata.namespace}` : '';
  return `${kind}${group ? `.${group}` : ''}/${obj.metadata?.name ?? ''}${ns}`;
}
