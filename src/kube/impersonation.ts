/**
 * A client that acts as someone else: the same server, TLS and credentials as the manager's
 * kubeconfig, plus the `Impersonate-User` header client-node sends for a user's `as` field
 * (its `impersonateUser`). The API server authorizes every request as the impersonated user
 * after checking that the manager may `impersonate` it; for a ServiceAccount's username it
 * adds the ServiceAccount groups itself (`system:serviceaccounts`,
 * `system:serviceaccounts:<namespace>`), as Flux's controllers rely on.
 */
import { LiteKubeConfig, type KubeConfig } from './kubeconfig.ts';
import { KubeConfigError } from './errors.ts';

/** `system:serviceaccount:<namespace>:<name>`, the username the API server gives a ServiceAccount. */
export function serviceAccountUser(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/**
 * A copy of `base` whose current user impersonates `username`. The copy has the current
 * context only, so no other user of `base` can be picked by mistake.
 */
export function impersonatingKubeConfig(base: KubeConfig, username: string): KubeConfig {
  const cluster = base.getCurrentCluster();
  const user = base.getCurrentUser();
  const context = base.getContextObject(base.getCurrentContext());
  if (!cluster || !user || !context) {
    throw new KubeConfigError('the kubeconfig has no current context to impersonate from', 'local');
  }
  const kc = new LiteKubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ ...user, impersonateUser: username }],
    contexts: [{ ...context, cluster: cluster.name, user: user.name }],
    currentContext: context.name,
  });
  return kc;
}
