// Which recorded inventory entries an Instance may have at all: status.inventory is writable by
// a tenant, so an entry naming another namespace, a cluster-scoped object where the posture
// refuses them, or a cluster other than the Instance's own target is dropped before anything
// looks at the object it names (the escalations against a real API server are in
// test/integration/kudo/tenancy/ownership.test.ts).
import { describe, expect, it } from '@jest/globals';
import type { Instance } from '../../../../src/kudo/api/types.ts';
import type { InventoryEntry } from '../../../../src/kudo/inventory/index.ts';
import { entryOutOfScope, scopeInventory } from '../../../../src/kudo/tasks/inventory-scope.ts';
import type { TenancyPolicy } from '../../../../src/kudo/tasks/tenancy.ts';

const instance: Instance = {
  apiVersion: 'kudo.dev/v1beta1',
  kind: 'Instance',
  metadata: { name: 'app', namespace: 'team-a', uid: 'u-1' },
  spec: {},
};
const kudo: TenancyPolicy = { posture: 'kudo' };
const multi: TenancyPolicy = { posture: 'multi-tenant' };
const own = ['secret:team-a/kc/value'];

const cm = (
  namespace: string | undefined,
  extra: Partial<InventoryEntry> = {},
): InventoryEntry => ({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  ...(namespace ? { namespace } : {}),
  name: 'victim',
  task: 'app',
  ...extra,
});
const role: InventoryEntry = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRole',
  name: 'victim',
};

describe('entryOutOfScope', () => {
  it('keeps entries of the Instance namespace, home or its own target, in both postures', () => {
    for (const policy of [kudo, multi]) {
      expect(entryOutOfScope(policy, instance, cm('team-a'), [])).toBeUndefined();
      expect(
        entryOutOfScope(policy, instance, cm('team-a', { cluster: own[0] }), own),
      ).toBeUndefined();
    }
  });

  it('drops another namespace in both postures unless allowed, naming the flag', () => {
    for (const policy of [kudo, multi]) {
      expect(entryOutOfScope(policy, instance, cm('admin-ns'), [])).toBe(
        'status.inventory names ConfigMap admin-ns/victim, outside the namespace team-a of Instance team-a/app; the entry was dropped and the object left alone. An administrator allows namespace admin-ns with `planwright start --allow-namespace team-a=admin-ns`',
      );
      const allowed = { ...policy, namespaces: [{ from: 'team-a', to: 'admin-ns' }] };
      expect(entryOutOfScope(allowed, instance, cm('admin-ns'), [])).toBeUndefined();
    }
  });

  it('cluster-scoped: kept in kudo, dropped in multi-tenant unless allowed', () => {
    expect(entryOutOfScope(kudo, instance, role, [])).toBeUndefined();
    expect(entryOutOfScope(multi, instance, role, [])).toContain(
      'ClusterRole victim, a cluster-scoped object, which the multi-tenant posture does not let Instance team-a/app touch',
    );
    expect(
      entryOutOfScope({ ...multi, clusterScoped: ['team-a'] }, instance, role, []),
    ).toBeUndefined();
  });

  it("drops another cluster (another tenant's credentials), whatever the posture or grants", () => {
    const foreign = cm('team-a', { cluster: 'secret:team-b/kc/value' });
    const everything: TenancyPolicy = {
      posture: 'kudo',
      namespaces: [{ from: '*', to: 'team-b' }],
      clusterScoped: ['*'],
    };
    for (const policy of [kudo, multi, everything]) {
      expect(entryOutOfScope(policy, instance, foreign, own)).toBe(
        'status.inventory names ConfigMap team-a/victim in cluster secret:team-b/kc/value, which is not the target of Instance team-a/app (spec.kubeConfig); the entry was dropped and nothing was sent to that cluster',
      );
    }
    // Without a target of its own, no cluster entry is the Instance's.
    expect(entryOutOfScope(kudo, instance, cm('team-a', { cluster: own[0] }), [])).toBeDefined();
  });
});

describe('scopeInventory', () => {
  it('splits the entries, keeping their order, with a reason per dropped one', () => {
    const entries = [cm('team-a'), cm('admin-ns'), role, cm('team-a', { name: 'second' })];
    const { inside, outside } = scopeInventory(multi, instance, entries, []);
    expect(inside).toEqual([entries[0], entries[3]]);
    expect(outside.map(([e]) => e)).toEqual([entries[1], entries[2]]);
    expect(outside.every(([, why]) => why.includes('the entry was dropped'))).toBe(true);
  });
});
