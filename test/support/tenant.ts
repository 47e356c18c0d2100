// A tenant of the shared cluster as the tenancy tests make one: a namespaced Role of the given
// rules, bound to a (client-certificate) user, both named `tenant`.
import type { KubeClient } from '../../src/kube/index.ts';

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

/** Role `tenant` of `rules` in `namespace`, bound to `user` (as the administrator `admin`). */
export async function grantTenant(
  admin: KubeClient,
  namespace: string,
  user: string,
  rules: readonly PolicyRule[],
): Promise<void> {
  await admin.request({
    method: 'POST',
    path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/roles`,
    body: { metadata: { name: 'tenant' }, rules },
  });
  await admin.request({
    method: 'POST',
    path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings`,
    body: {
      metadata: { name: 'tenant' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tenant' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    },
  });
}
