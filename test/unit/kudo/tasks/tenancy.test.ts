// The tenancy rules as pure decisions: where an object goes, whether an existing object may be
// written over or deleted, whether an OperatorVersion of another namespace may be used, and
// the flags' syntax. The escalations against a real API server are in
// test/integration/kudo/tenancy.
import { describe, expect, it } from '@jest/globals';
import type { ApplyObject } from '../../../../src/kube/apply.ts';
import type { Instance } from '../../../../src/kudo/api/types.ts';
import { adoption, deletionRefused } from '../../../../src/kudo/tasks/ownership.ts';
import {
  identityOf,
  operatorVersionProblem,
  parseGrant,
  parseNamespace,
  placeObject,
  TenancyFlagError,
  type TenancyPolicy,
} from '../../../../src/kudo/tasks/tenancy.ts';

const instance: Instance = {
  apiVersion: 'kudo.dev/v1beta1',
  kind: 'Instance',
  metadata: { name: 'app', namespace: 'team-a', uid: 'u-1' },
  spec: {},
};
const kudo: TenancyPolicy = { posture: 'kudo' };
const multi: TenancyPolicy = { posture: 'multi-tenant' };

function cm(namespace: string | undefined, meta: Record<string, unknown> = {}): ApplyObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', ...(namespace ? { namespace } : {}), ...meta },
  };
}

const place = (policy: TenancyPolicy, object: ApplyObject, namespaced = true) =>
  placeObject(policy, { template: 't.yaml', object, namespaced, instanceNamespace: 'team-a' });

describe('placeObject', () => {
  it('keeps objects of the Instance namespace or without one, in both postures', () => {
    for (const policy of [kudo, multi]) {
      expect(place(policy, cm('team-a')).kind).toBe('keep');
      expect(place(policy, cm(undefined)).kind).toBe('keep');
    }
  });

  it('kudo: overrides another namespace, saying so and naming the allowance', () => {
    const placed = place(kudo, cm('kube-system'));
    expect(placed).toEqual({
      kind: 'override',
      namespace: 'team-a',
      warning: expect.stringContaining(
        "template t.yaml: ConfigMap kube-system/x names namespace kube-system; applied in the Instance's namespace team-a",
      ),
    });
    expect(placed.kind === 'override' && placed.warning).toContain(
      'planwright start --allow-namespace team-a=kube-system',
    );
  });

  it('multi-tenant: refuses another namespace naming object and allowance', () => {
    const placed = place(multi, cm('kube-system'));
    expect(placed.kind).toBe('refuse');
    expect(placed.kind === 'refuse' && placed.message).toContain(
      "ConfigMap kube-system/x names namespace kube-system, outside the Instance's namespace team-a",
    );
    expect(placed.kind === 'refuse' && placed.message).toContain(
      '--allow-namespace team-a=kube-system',
    );
  });

  it('an allowance keeps the namespace in both postures, for its source namespace or *', () => {
    for (const from of ['team-a', '*']) {
      for (const posture of ['kudo', 'multi-tenant'] as const) {
        const policy: TenancyPolicy = { posture, namespaces: [{ from, to: 'shared' }] };
        expect(place(policy, cm('shared')).kind).toBe('keep');
        expect(place(policy, cm('kube-system')).kind).not.toBe('keep');
      }
    }
    const other: TenancyPolicy = {
      posture: 'multi-tenant',
      namespaces: [{ from: 'team-b', to: 'shared' }],
    };
    expect(place(other, cm('shared')).kind).toBe('refuse');
  });

  it('cluster-scoped: kept in kudo, refused in multi-tenant unless allowed', () => {
    const crb: ApplyObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'b' },
    };
    expect(place(kudo, crb, false).kind).toBe('keep');
    const refused = place(multi, crb, false);
    expect(refused.kind === 'refuse' && refused.message).toContain(
      'template t.yaml: ClusterRoleBinding b is cluster-scoped',
    );
    expect(refused.kind === 'refuse' && refused.message).toContain('--allow-cluster-scoped team-a');
    expect(place({ posture: 'multi-tenant', clusterScoped: ['team-a'] }, crb, false).kind).toBe(
      'keep',
    );
    expect(place({ posture: 'multi-tenant', clusterScoped: ['*'] }, crb, false).kind).toBe('keep');
    expect(place({ posture: 'multi-tenant', clusterScoped: ['team-b'] }, crb, false).kind).toBe(
      'refuse',
    );
  });
});

describe('adoption and deletion: the live object proves ownership by uid', () => {
  const byLabel = cm('team-a', { labels: { 'planwright.dev/instance-uid': 'u-1' } });
  const byRef = cm('team-a', {
    ownerReferences: [{ uid: 'u-1', controller: true, kind: 'Instance', name: 'app' }],
  });
  // A child Instance's reference to its parent is not a controller reference: still proof.
  const byPlainRef = cm('team-a', {
    ownerReferences: [{ uid: 'u-1', kind: 'Instance', name: 'app' }],
  });
  // What a name says is no proof: the annotation or labels of an Instance of the same name
  // (deleted and created again, or written by someone) do not carry this uid.
  const byNameOnly = cm('team-a', {
    annotations: { 'planwright.dev/instance': 'team-a/app' },
    labels: { heritage: 'kudo', 'kudo.dev/instance': 'app' },
  });
  const previousIncarnation = cm('team-a', { labels: { 'planwright.dev/instance-uid': 'u-0' } });
  const another = cm('team-a', { annotations: { 'planwright.dev/instance': 'team-a/other' } });
  const admins = cm('team-a', {
    managedFields: [{ manager: 'kubectl-create', operation: 'Update' }],
  });
  const handed = cm('team-a', { annotations: { 'planwright.dev/adopt': 'team-a/app' } });

  it('own objects need no adoption and may be deleted', () => {
    for (const obj of [byLabel, byRef, byPlainRef]) {
      expect(adoption(multi, obj, instance).kind).toBe('none');
      expect(deletionRefused('task t', obj, instance)).toBeUndefined();
    }
  });

  it('names are not proof: neither adopted silently nor deleted', () => {
    for (const obj of [byNameOnly, previousIncarnation]) {
      expect(adoption(multi, obj, instance).kind).toBe('refuse');
      expect(adoption(kudo, obj, instance).kind).toBe('warn');
      expect(deletionRefused('task t', obj, instance)).toContain('left in place');
    }
  });

  it('kudo: warns naming the previous owner', () => {
    const verdict = adoption(kudo, another, instance);
    expect(verdict.kind).toBe('warn');
    expect(verdict.kind === 'warn' && verdict.message).toContain(
      'ConfigMap team-a/x existed before Instance team-a/app applied it (previous owner: Instance team-a/other)',
    );
    const admin = adoption(kudo, admins, instance);
    expect(admin.kind === 'warn' && admin.message).toContain(
      'previous owner: field manager kubectl-create',
    );
  });

  it('multi-tenant: refuses, saying how to hand it over', () => {
    const verdict = adoption(multi, admins, instance);
    expect(verdict.kind).toBe('refuse');
    expect(verdict.kind === 'refuse' && verdict.message).toContain(
      'kubectl annotate configmap x -n team-a planwright.dev/adopt=team-a/app',
    );
  });

  it('the adopt annotation naming this Instance is a deliberate hand-over; another name is not', () => {
    expect(adoption(multi, handed, instance).kind).toBe('warn');
    const elsewhere = cm('team-a', { annotations: { 'planwright.dev/adopt': 'team-a/someone' } });
    expect(adoption(multi, elsewhere, instance).kind).toBe('refuse');
  });

  it('delete, in both postures: only what proves it is this Instance’s, naming the owner', () => {
    expect(deletionRefused('prune of task app', admins, instance)).toBe(
      'prune of task app: ConfigMap team-a/x does not carry the owner reference or planwright.dev/instance-uid label of Instance team-a/app (owner: field manager kubectl-create); Planwright deletes only what it applied for this Instance, so it was left in place',
    );
    expect(deletionRefused('cleanup', another, instance)).toContain('owner: Instance team-a/other');
    // A hand-over is for applies: it never makes an object deletable.
    expect(deletionRefused('task t', handed, instance)).toBeDefined();
  });
});

describe('operatorVersionProblem', () => {
  it('the own namespace: no problem, in both postures', () => {
    expect(operatorVersionProblem(kudo, instance, { namespace: 'team-a', name: 'op-1' })).toBe(
      undefined,
    );
    expect(operatorVersionProblem(multi, instance, { namespace: 'team-a', name: 'op-1' })).toBe(
      undefined,
    );
  });

  it('another namespace: used in the kudo posture as KUDO did, multi-tenant needs an allowance, with KUDO’s words first', () => {
    expect(
      operatorVersionProblem(kudo, instance, { namespace: 'shared', name: 'op-1' }),
    ).toBeUndefined();
    const problem = operatorVersionProblem(multi, instance, { namespace: 'shared', name: 'op-1' });
    expect(problem).toMatch(
      /^InstanceController: Error getting operatorVersion op-1 for instance team-a\/app: /,
    );
    expect(problem).toContain('--allow-operator-version team-a=shared');
    const allowed: TenancyPolicy = {
      posture: 'multi-tenant',
      operatorVersions: [{ from: '*', to: 'shared' }],
    };
    expect(
      operatorVersionProblem(allowed, instance, { namespace: 'shared', name: 'op-1' }),
    ).toBeUndefined();
  });
});

describe('flags', () => {
  it('parses FROM=TO and namespaces', () => {
    expect(parseGrant('--allow-namespace', 'team-a=shared')).toEqual({
      from: 'team-a',
      to: 'shared',
    });
    expect(parseGrant('--allow-namespace', '*=shared')).toEqual({ from: '*', to: 'shared' });
    expect(parseNamespace('--allow-cluster-scoped', 'platform')).toBe('platform');
  });

  it.each(['team-a', 'a=b=c', 'a=*', 'A=b', '=b', 'a='])('refuses %j with an example', (value) => {
    expect(() => parseGrant('--allow-namespace', value)).toThrow(TenancyFlagError);
    expect(() => parseGrant('--allow-namespace', value)).toThrow(
      'e.g. --allow-namespace team-a=shared',
    );
  });
});

describe('identityOf', () => {
  const annotated = (name: string): Instance => ({
    ...instance,
    metadata: { ...instance.metadata, annotations: { 'planwright.dev/service-account': name } },
  });
  const policy: TenancyPolicy = {
    posture: 'multi-tenant',
    serviceAccounts: { default: 'tenant', allowed: [{ from: 'team-a', to: 'builder' }] },
  };

  it('the manager itself without a default or an annotation', () => {
    expect(identityOf(kudo, instance)).toEqual({ kind: 'manager' });
  });

  it("the default ServiceAccount of the Instance's namespace", () => {
    expect(identityOf(policy, instance)).toMatchObject({
      kind: 'serviceAccount',
      namespace: 'team-a',
      name: 'tenant',
    });
  });

  it('an annotation naming the default or an allowed name', () => {
    expect(identityOf(policy, annotated('tenant'))).toMatchObject({ name: 'tenant' });
    expect(identityOf(policy, annotated('builder'))).toMatchObject({
      kind: 'serviceAccount',
      name: 'builder',
      source: 'annotation planwright.dev/service-account',
    });
    const everywhere: TenancyPolicy = {
      posture: 'kudo',
      serviceAccounts: { allowed: [{ from: '*', to: 'builder' }] },
    };
    expect(identityOf(everywhere, annotated('builder'))).toMatchObject({ name: 'builder' });
  });

  it('refuses a name not allowed for the namespace, naming the flag that allows it', () => {
    const refused = identityOf(policy, annotated('admin'));
    expect(refused.kind).toBe('refuse');
    expect(refused).toMatchObject({
      message: expect.stringContaining('planwright start --allow-service-account team-a=admin'),
    });
    const elsewhere: TenancyPolicy = {
      posture: 'kudo',
      serviceAccounts: { allowed: [{ from: 'team-b', to: 'builder' }] },
    };
    expect(identityOf(elsewhere, annotated('builder')).kind).toBe('refuse');
    // No default and no allowance: the annotation cannot make the plan act as anyone.
    expect(identityOf(kudo, annotated('builder')).kind).toBe('refuse');
  });

  it('refuses what is not a ServiceAccount name', () => {
    for (const bad of ['', 'Admin', 'a/b', 'x'.repeat(254)]) {
      expect(identityOf(policy, annotated(bad))).toMatchObject({
        kind: 'refuse',
        message: expect.stringContaining('is not a ServiceAccount name'),
      });
    }
  });
});
