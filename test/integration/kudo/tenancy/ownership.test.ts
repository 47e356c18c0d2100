// What Planwright deletes or overwrites it proves it owns from the live object, never from the
// Instance's status.inventory, which the tenant can write (docs/security.md, "Ownership").
// A tenant whose Role grants kudo.dev `*` (instances/status included) and reading ConfigMaps
// in its own namespace — a client certificate of its own — tries, against `planwright start`
// in both postures (the built CLI, as users start it), to make the manager delete, overwrite,
// claim or patch what is not the Instance's. Each case ends with the victim unchanged (same
// resourceVersion) and a message naming what was refused: a Warning Event or the plan's.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { ApiError, KubeClient } from '../../../../src/kube/index.ts';
import type { Instance, OperatorVersion } from '../../../../src/kudo/api/index.ts';
import {
  createTestNamespace,
  kubeConfig,
  mintUser,
  testCluster,
  uniqueName,
} from '../../../support/cluster.ts';
import { installKudoCrds } from '../../../support/kudo.ts';
import {
  applyStepsOperatorVersion,
  createKudoObject,
  instanceObject,
  operatorVersionObject,
  serialPlan,
} from '../../../support/kudo-objects.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../../support/planwright-start.ts';
import { grantTenant as grantRole } from '../../../support/tenant.ts';
import { waitFor } from '../../../support/wait.ts';

type Json = Record<string, unknown>;
type Posture = 'kudo' | 'multi-tenant';

const admin = new KubeClient(kubeConfig());
let tenant: KubeClient;
let tenantUser: string;
/** Another tenant's namespace, where the victims of cross-namespace attempts live. */
let victimNs: string;
const clusterRole = uniqueName('victim-role');

const kudoPath = (ns: string, plural: string, name = ''): string =>
  `/apis/kudo.dev/v1beta1/namespaces/${ns}/${plural}${name ? `/${name}` : ''}`;
const cmPath = (ns: string, name = ''): string =>
  `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;

async function get(path: string): Promise<Json | undefined> {
  try {
    return await admin.request<Json>({ path });
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 404) return undefined;
    throw err;
  }
}

/** What "unchanged" compares: the object's resourceVersion (any write moves it) and uid. */
async function version(path: string): Promise<string> {
  const obj = await get(path);
  const meta = (obj?.['metadata'] ?? {}) as Json;
  return `${String(meta['uid'])}@${String(meta['resourceVersion'])}`;
}

/** The tenant's Role: kudo.dev objects (status too) and reading ConfigMaps and pods. */
function grantTenant(ns: string): Promise<void> {
  return grantRole(admin, ns, tenantUser, [
    { apiGroups: ['kudo.dev'], resources: ['*'], verbs: ['*'] },
    { apiGroups: [''], resources: ['configmaps', 'pods'], verbs: ['get', 'list', 'watch'] },
  ]);
}

async function adminConfigMap(ns: string, name: string): Promise<void> {
  await admin.request({
    method: 'POST',
    path: cmPath(ns),
    body: { metadata: { name }, data: { owner: 'admin' } },
  });
}

function configMap(name: string, extra: Json = {}, data: Json = { owner: 'tenant' }): string {
  return stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data });
}

async function install(
  ns: string,
  name: string,
  ov: OperatorVersion,
  parameters: Record<string, string> = {},
): Promise<void> {
  await createKudoObject(tenant, ns, 'operatorversions', ov);
  await createKudoObject(tenant, ns, 'instances', {
    ...instanceObject(name, ov.metadata.name ?? '', { namespace: ns }),
    spec: { operatorVersion: { name: ov.metadata.name }, parameters },
  });
}

async function instance(ns: string, name: string): Promise<Instance> {
  return admin.request<Instance>({ path: kudoPath(ns, 'instances', name) });
}

/** The scheduled run once terminal (or once its text names `until`): status and words. */
async function outcome(
  ns: string,
  name: string,
  until?: string,
): Promise<{ status: string; text: string }> {
  return waitFor(
    `Instance ${ns}/${name}'s scheduled plan`,
    async () => {
      const i = await instance(ns, name);
      const pe = i.spec?.planExecution;
      const ps = i.status?.planStatus?.[pe?.planName ?? ''];
      if (!ps || ps.uid !== pe?.uid) return undefined;
      // Messages quote names ("x"): compare with the JSON escapes undone.
      const text = JSON.stringify(ps).replace(/\\"/g, '"');
      if (until !== undefined)
        return text.includes(until) ? { status: ps.status ?? '', text } : undefined;
      return ['COMPLETE', 'FATAL_ERROR'].includes(ps.status ?? '')
        ? { status: ps.status ?? '', text }
        : undefined;
    },
    { timeoutMs: 60_000 },
  );
}

async function update(ns: string, name: string, parameters: Record<string, string>): Promise<void> {
  await tenant.request({
    method: 'PATCH',
    path: kudoPath(ns, 'instances', name),
    contentType: 'application/merge-patch+json',
    body: { spec: { parameters } },
  });
}

/** The tenant appends `entries` to the Instance's status.inventory (instances/status). */
async function inject(ns: string, name: string, entries: Json[]): Promise<void> {
  const i = await instance(ns, name);
  const inventory = [...((i.status?.inventory ?? []) as Json[]), ...entries];
  await tenant.request({
    method: 'PATCH',
    path: `${kudoPath(ns, 'instances', name)}/status`,
    contentType: 'application/merge-patch+json',
    body: { status: { inventory } },
  });
}

async function inventoryNames(ns: string, name: string): Promise<string[]> {
  return ((await instance(ns, name)).status?.inventory ?? []).map((e) =>
    [e['cluster'], e['kind'], e['namespace'], e['name']].filter(Boolean).join(' '),
  );
}

/** The Warning Event of `reason` whose message contains `text`. */
async function warning(ns: string, reason: string, text: string): Promise<string> {
  return waitFor(`a ${reason} Event naming "${text}"`, async () => {
    const list = await admin.request<{ items: Array<{ reason?: string; message?: string }> }>({
      path: `/api/v1/namespaces/${ns}/events`,
    });
    return list.items.find((e) => e.reason === reason && e.message?.includes(text))?.message;
  });
}

/** A Pipe task's package: its pod never runs here (no nodes), so it stays while it waits. */
function pipeOperatorVersion(name: string): OperatorVersion {
  return operatorVersionObject(name, {
    operator: { name, kind: 'Operator' },
    version: '1.0',
    templates: {
      'pod.yaml': stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        spec: {
          volumes: [{ name: 'd', emptyDir: {} }],
          initContainers: [
            {
              name: 'i',
              image: 'registry.invalid/x:1',
              volumeMounts: [{ name: 'd', mountPath: '/out' }],
            },
          ],
        },
      }),
    },
    tasks: [
      {
        name: 'pipe',
        kind: 'Pipe',
        spec: { pod: 'pod.yaml', pipe: [{ file: '/out/f', kind: 'ConfigMap', key: 'f' }] },
      },
    ],
    plans: { deploy: serialPlan([{ name: 's', tasks: ['pipe'] }]) },
  });
}

beforeAll(async () => {
  await installKudoCrds();
  victimNs = await createTestNamespace('victims');
  tenantUser = uniqueName('tenant');
  tenant = new KubeClient(kubeConfig((await mintUser(tenantUser)).kubeconfigPath));
  await adminConfigMap(victimNs, 'victim');
  await admin.request({
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    body: { metadata: { name: clusterRole }, rules: [] },
  });
  await createKudoObject(
    admin,
    victimNs,
    'operatorversions',
    applyStepsOperatorVersion('theirs', { 'cm.yaml': configMap('theirs') }),
  );
});

afterAll(() => {
  admin.close();
  tenant?.close();
});

describe.each<Posture>(['kudo', 'multi-tenant'])('the %s posture', (posture) => {
  let ns: string;
  let planwright: StartedPlanwright;
  const victims: Record<string, string> = {};

  beforeAll(async () => {
    ns = await createTestNamespace(posture === 'kudo' ? 'own-kudo' : 'own-mt');
    await grantTenant(ns);
    for (const name of ['admin-owned', 'admin-once', 'admin-adopt', 'admin-del'])
      await adminConfigMap(ns, name);
    // A ServiceAccount for the pipe pods (nothing makes one in a bare cluster).
    await admin.request({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/serviceaccounts`,
      body: { metadata: { name: 'default' } },
    });
    for (const path of [
      cmPath(victimNs, 'victim'),
      `/apis/rbac.authorization.k8s.io/v1/clusterroles/${clusterRole}`,
      ...['admin-owned', 'admin-once', 'admin-adopt', 'admin-del'].map((n) => cmPath(ns, n)),
    ])
      victims[path] = await version(path);
    // One Planwright per cluster at a time: each posture's block starts its own.
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [ns],
      args: ['--tenancy', posture],
    });
  });

  afterAll(async () => {
    await planwright?.stop();
  });

  it('inventory entries the tenant wrote: out of scope dropped, in scope proven from the live object', async () => {
    const ov = applyStepsOperatorVersion('inject', {
      'cm.yaml': configMap('{{ .Name }}-cm', {}, { v: '{{ .Params.V }}' }),
    });
    ov.spec!.parameters = [{ name: 'V', default: '1' }];
    await install(ns, 'inject', ov);
    expect((await outcome(ns, 'inject')).status).toBe('COMPLETE');
    const entry = { version: 'v1', kind: 'ConfigMap', task: 't0' };
    await inject(ns, 'inject', [
      { ...entry, namespace: victimNs, name: 'victim' },
      { ...entry, namespace: ns, name: 'admin-owned' },
      {
        group: 'rbac.authorization.k8s.io',
        version: 'v1',
        kind: 'ClusterRole',
        name: clusterRole,
        task: 't0',
      },
      { ...entry, namespace: ns, name: 'inject-cm', cluster: `secret:${victimNs}/kc/value` },
    ]);
    // A new run prunes what task t0 no longer renders: the entries the tenant added.
    await update(ns, 'inject', { V: '2' });
    expect((await outcome(ns, 'inject')).status).toBe('COMPLETE');
    expect(await warning(ns, 'InventoryEntryIgnored', `ConfigMap ${victimNs}/victim`)).toContain(
      `outside the namespace ${ns} of Instance ${ns}/inject; the entry was dropped and the object left alone`,
    );
    expect(
      await warning(ns, 'InventoryEntryIgnored', `in cluster secret:${victimNs}/kc/value`),
    ).toContain('which is not the target of Instance');
    expect(await warning(ns, 'PruneSkipped', `ConfigMap ${ns}/admin-owned`)).toContain(
      `prune of task t0: ConfigMap ${ns}/admin-owned does not carry the owner reference or planwright.dev/instance-uid label of Instance ${ns}/inject`,
    );
    if (posture === 'kudo') {
      expect(await warning(ns, 'PruneSkipped', `ClusterRole ${clusterRole}`)).toContain(
        'left in place',
      );
    } else {
      expect(await warning(ns, 'InventoryEntryIgnored', `ClusterRole ${clusterRole}`)).toContain(
        'a cluster-scoped object, which the multi-tenant posture does not let',
      );
    }
    expect(await inventoryNames(ns, 'inject')).toEqual([`ConfigMap ${ns} inject-cm`]);
    for (const path of [
      cmPath(victimNs, 'victim'),
      cmPath(ns, 'admin-owned'),
      `/apis/rbac.authorization.k8s.io/v1/clusterroles/${clusterRole}`,
    ])
      expect(await version(path)).toBe(victims[path]);
  });

  it('apply: once never claims an object it did not create, so prune never reaches it', async () => {
    const ov = applyStepsOperatorVersion('once', {
      'cm.yaml': configMap('{{ .Name }}-cm'),
      'once.yaml': `{{ if eq .Params.ONCE "yes" }}${configMap('admin-once', {
        annotations: { 'planwright.dev/apply': 'once' },
      })}{{ end }}`,
    });
    ov.spec!.parameters = [{ name: 'ONCE', default: 'yes' }];
    await install(ns, 'once', ov);
    expect((await outcome(ns, 'once')).status).toBe('COMPLETE');
    expect(await warning(ns, 'NotClaimed', `ConfigMap ${ns}/admin-once`)).toContain(
      'planwright.dev/apply: once creates only what is absent, so it was left as it is',
    );
    expect(await inventoryNames(ns, 'once')).toEqual([`ConfigMap ${ns} once-cm`]);
    await update(ns, 'once', { ONCE: 'no' });
    expect((await outcome(ns, 'once')).status).toBe('COMPLETE');
    expect(await version(cmPath(ns, 'admin-once'))).toBe(victims[cmPath(ns, 'admin-once')]);
  });

  it('a Delete task leaves an object it did not create, naming it', async () => {
    await install(
      ns,
      'deleter',
      operatorVersionObject('deleter', {
        operator: { name: 'deleter', kind: 'Operator' },
        version: '1.0',
        templates: { 'victim.yaml': configMap('admin-del') },
        tasks: [{ name: 'remove', kind: 'Delete', spec: { resources: ['victim.yaml'] } }],
        plans: { deploy: serialPlan([{ name: 'remove', tasks: ['remove'] }]) },
      }),
    );
    expect((await outcome(ns, 'deleter')).status).toBe('COMPLETE');
    expect(await warning(ns, 'DeleteSkipped', `ConfigMap ${ns}/admin-del`)).toContain(
      `task remove: ConfigMap ${ns}/admin-del does not carry the owner reference or planwright.dev/instance-uid label of Instance ${ns}/deleter`,
    );
    expect(await version(cmPath(ns, 'admin-del'))).toBe(victims[cmPath(ns, 'admin-del')]);
  });

  it('a KudoOperator task whose instanceName names another Instance: not patched, not recorded', async () => {
    await createKudoObject(admin, ns, 'operators', {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'Operator',
      metadata: { name: 'plain' },
      spec: {},
    });
    const plain = applyStepsOperatorVersion('plain-1.0', { 'cm.yaml': configMap('{{ .Name }}-p') });
    plain.spec!.parameters = [{ name: 'P', default: 'admin' }];
    await createKudoObject(admin, ns, 'operatorversions', plain);
    await createKudoObject(admin, ns, 'instances', instanceObject('victim-inst', 'plain-1.0'));
    expect((await outcome(ns, 'victim-inst')).status).toBe('COMPLETE');
    const before = await version(kudoPath(ns, 'instances', 'victim-inst'));
    await install(
      ns,
      'parent',
      operatorVersionObject('parent', {
        operator: { name: 'parent', kind: 'Operator' },
        version: '1.0',
        parameters: [{ name: 'P', default: 'tenant' }],
        templates: { 'params.yaml': 'P: {{ .Params.P }}\n' },
        tasks: [
          {
            name: 'child',
            kind: 'KudoOperator',
            spec: {
              package: 'plain',
              operatorVersion: '1.0',
              instanceName: 'victim-inst',
              parameterFile: 'params.yaml',
            },
          },
        ],
        plans: { deploy: serialPlan([{ name: 'child', tasks: ['child'] }]) },
      }),
    );
    const result = await outcome(ns, 'parent');
    expect(result.status).toBe('FATAL_ERROR');
    expect(result.text).toContain(
      `child Instance ${ns}/victim-inst exists and is not a child of Instance ${ns}/parent`,
    );
    expect(await inventoryNames(ns, 'parent')).toEqual([]);
    expect(await version(kudoPath(ns, 'instances', 'victim-inst'))).toBe(before);
  });

  it('Pipe pods of Instances whose names sanitise alike: never deleted or used by the other', async () => {
    await createKudoObject(tenant, ns, 'operatorversions', pipeOperatorVersion('piper'));
    await createKudoObject(tenant, ns, 'instances', instanceObject('pp-x', 'piper'));
    const podName = 'ppx.deploy.main.s.pipe.pipepod';
    const podPath = `/api/v1/namespaces/${ns}/pods/${podName}`;
    await waitFor(`pipe pod ${podName} of pp-x`, () => get(podPath));
    const before = await version(podPath);
    await createKudoObject(tenant, ns, 'instances', instanceObject('ppx', 'piper'));
    const result = await outcome(
      ns,
      'ppx',
      `pipe pod Pod ${ns}/${podName} exists and is not this Instance's`,
    );
    expect(result.text).toContain('owner: Instance');
    expect(result.text).toContain('rename one of the Instances');
    const pod = await get(podPath);
    expect(await version(podPath)).toBe(before);
    expect((pod?.['metadata'] as Json)['deletionTimestamp']).toBeUndefined();
  });

  if (posture === 'multi-tenant') {
    it("an OperatorVersion of another namespace: refused at admission with KUDO's text", async () => {
      const err = await createKudoObject(tenant, ns, 'instances', {
        ...instanceObject('foreign', 'theirs', { namespace: ns }),
        spec: { operatorVersion: { name: 'theirs', namespace: victimNs } },
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).message).toContain(
        `InstanceController: Error getting operatorVersion theirs for instance ${ns}/foreign: OperatorVersion ${victimNs}/theirs is in another namespace`,
      );
      expect((err as ApiError).message).toContain(`--allow-operator-version ${ns}=${victimNs}`);
      expect(await get(kudoPath(ns, 'instances', 'foreign'))).toBeUndefined();
    });
  } else {
    it("an OperatorVersion of another namespace: used as KUDO did, its objects in the Instance's namespace", async () => {
      await createKudoObject(tenant, ns, 'instances', {
        ...instanceObject('foreign', 'theirs', { namespace: ns }),
        spec: { operatorVersion: { name: 'theirs', namespace: victimNs } },
      });
      expect((await outcome(ns, 'foreign')).status).toBe('COMPLETE');
      // What it rendered landed at home; the other namespace's objects are untouched.
      expect(await get(cmPath(ns, 'theirs'))).toBeDefined();
      expect(await version(cmPath(victimNs, 'victim'))).toBe(victims[cmPath(victimNs, 'victim')]);
    });
  }

  if (posture === 'multi-tenant') {
    it('a refused adoption is never recorded: the next run refuses it again, injected or not', async () => {
      const ov = applyStepsOperatorVersion('adopt', {
        'cm.yaml': configMap('admin-adopt', {}, { v: '{{ .Params.V }}' }),
      });
      ov.spec!.parameters = [{ name: 'V', default: '1' }];
      await install(ns, 'adopt', ov);
      const first = await outcome(ns, 'adopt');
      expect(first.status).toBe('FATAL_ERROR');
      expect(first.text).toContain(
        `ConfigMap ${ns}/admin-adopt exists and does not belong to Instance ${ns}/adopt`,
      );
      expect(await inventoryNames(ns, 'adopt')).toEqual([]);
      // The tenant records it by hand; the next run still proves ownership from the object.
      await inject(ns, 'adopt', [
        { version: 'v1', kind: 'ConfigMap', namespace: ns, name: 'admin-adopt', task: 't0' },
      ]);
      await update(ns, 'adopt', { V: '2' });
      const second = await outcome(ns, 'adopt');
      expect(second.status).toBe('FATAL_ERROR');
      expect(second.text).toContain('the multi-tenant posture never takes over an object');
      expect(await inventoryNames(ns, 'adopt')).toEqual([]);
      expect(await version(cmPath(ns, 'admin-adopt'))).toBe(victims[cmPath(ns, 'admin-adopt')]);
    });
  }

  it('afterwards: nothing of the other namespace or cluster-wide changed', async () => {
    expect(await version(cmPath(victimNs, 'victim'))).toBe(victims[cmPath(victimNs, 'victim')]);
    const path = `/apis/rbac.authorization.k8s.io/v1/clusterroles/${clusterRole}`;
    expect(await version(path)).toBe(victims[path]);
    const theirs = await admin.request<{ items: unknown[] }>({ path: cmPath(victimNs) });
    expect(theirs.items).toHaveLength(1);
  });
});
