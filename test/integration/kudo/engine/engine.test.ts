// The Instance controller and the real webhook in-process against the shared control plane:
// cleanup on deletion (cleanup plan, inventory incl. cluster-scoped objects, never another
// Instance's object, finalizer removed), render errors, aborts, and every real KUDO package's
// deploy plan rendering and applying (waiting, clearly reported, where pods would be needed).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { Instance } from '../../../../src/kudo/api/types.ts';
import { loadPackage } from '../../../../src/kudo/package/index.ts';
import {
  createTestNamespace,
  kubeConfig,
  uniqueName,
  testCluster,
} from '../../../support/cluster.ts';
import {
  installKudoCrds,
  KUDO_PACKAGES,
  kudoObjects,
  mergePatchInstance,
} from '../../../support/kudo.ts';
import { waitFor } from '../../../support/wait.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../../support/planwright-start.ts';
import { operatorVersionObject } from '../../../support/kudo-objects.ts';

const packages = readdirSync(KUDO_PACKAGES).sort();

describe('Instance controller (in-process, real webhook)', () => {
  let planwright: StartedPlanwright;
  let custom: k8s.CustomObjectsApi;
  let core: k8s.CoreV1Api;
  let rbac: k8s.RbacAuthorizationV1Api;
  let ns: string;
  const pkgNamespaces = new Map<string, string>();

  const create = (namespace: string, plural: string, body: object): Promise<unknown> =>
    kudoObjects(custom).create(namespace, plural, body);
  const get = (namespace: string, name: string): Promise<Instance | undefined> =>
    kudoObjects(custom).getInstance(namespace, name);
  const planOf = async (namespace: string, name: string, plan = 'deploy') =>
    (await get(namespace, name))?.status?.planStatus?.[plan];
  const deleteAndWait = async (namespace: string, name: string): Promise<void> => {
    await custom.deleteNamespacedCustomObject({
      group: 'kudo.dev',
      version: 'v1beta1',
      namespace,
      plural: 'instances',
      name,
    });
    await waitFor(`${name} to be gone`, async () => (await get(namespace, name)) === undefined);
  };
  const instance = (name: string, ov: string, parameters: Record<string, string> = {}) => ({
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'Instance',
    metadata: { name, labels: { 'kudo.dev/operator': ov } },
    spec: { operatorVersion: { name: ov }, parameters },
  });

  beforeAll(async () => {
    await installKudoCrds();
    const kc = kubeConfig();
    custom = kc.makeApiClient(k8s.CustomObjectsApi);
    core = kc.makeApiClient(k8s.CoreV1Api);
    rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    ns = await createTestNamespace('engine');
    for (const p of packages)
      pkgNamespaces.set(p, await createTestNamespace(`pkg-${p}`.slice(0, 20)));
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [ns, ...pkgNamespaces.values()],
    });
  });

  afterAll(async () => {
    await planwright?.stop();
  });

  it('deletion runs the cleanup plan, deletes the inventory (cluster-scoped too) but not another Instance’s object, then drops the finalizer', async () => {
    const role = uniqueName('pw-cleanup-role');
    await create(
      ns,
      'operatorversions',
      operatorVersionObject('cleaner', {
        version: '1.0',
        templates: {
          'own.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-own\n',
          'shared.yaml':
            'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata:\n  owner: {{ .Name }}\n',
          'role.yaml': `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${role}-{{ .Name }}\nrules: []\n`,
        },
        tasks: [
          {
            name: 'app',
            kind: 'Apply',
            spec: { resources: ['own.yaml', 'shared.yaml', 'role.yaml'] },
          },
          { name: 'bye', kind: 'Dummy', spec: { done: true } },
        ],
        plans: {
          deploy: {
            strategy: 'serial',
            phases: [{ name: 'p', strategy: 'serial', steps: [{ name: 's', tasks: ['app'] }] }],
          },
          cleanup: {
            strategy: 'serial',
            phases: [{ name: 'c', strategy: 'serial', steps: [{ name: 'c', tasks: ['bye'] }] }],
          },
        },
      }),
    );
    await create(ns, 'instances', instance('a', 'cleaner'));
    await waitFor('a COMPLETE', async () => (await planOf(ns, 'a'))?.status === 'COMPLETE');
    // b takes over the ConfigMap "shared" (server-side apply with force): it is b's now.
    await create(ns, 'instances', instance('b', 'cleaner'));
    await waitFor('b COMPLETE', async () => (await planOf(ns, 'b'))?.status === 'COMPLETE');
    const a = await get(ns, 'a');
    expect(a?.metadata.finalizers).toContain('kudo.dev.instance.cleanup');
    expect(a?.status?.inventory).toHaveLength(3);

    await deleteAndWait(ns, 'a');
    await expect(core.readNamespacedConfigMap({ name: 'a-own', namespace: ns })).rejects.toThrow();
    await expect(rbac.readClusterRole({ name: `${role}-a` })).rejects.toThrow();
    const shared = await core.readNamespacedConfigMap({ name: 'shared', namespace: ns });
    expect(shared.data?.['owner']).toBe('b');
    const events = await core.listNamespacedEvent({
      namespace: ns,
      fieldSelector: 'involvedObject.name=a,reason=PlanFinished',
    });
    // KUDO's text and component, which KUDO's tests assert (kudo-compat.md, Events).
    expect(events.items.map((e) => [e.message, e.type, e.source?.component])).toContainEqual([
      'Execution of plan cleanup finished with status COMPLETE',
      'Normal',
      'instance-controller',
    ]);
    const started = await core.listNamespacedEvent({
      namespace: ns,
      fieldSelector: 'involvedObject.name=a,reason=PlanStarted',
    });
    expect(started.items.map((e) => e.message)).toEqual(
      expect.arrayContaining([
        'Execution of plan deploy started',
        'Execution of plan cleanup started',
      ]),
    );
    await expect(rbac.readClusterRole({ name: `${role}-b` })).resolves.toBeDefined();
  });

  it('without a cleanup plan the finalizer comes with the first object the garbage collector misses, and deletion removes that object', async () => {
    const role = uniqueName('pw-scoped-role');
    await create(
      ns,
      'operatorversions',
      operatorVersionObject('scoped', {
        version: '1.0',
        templates: {
          'own.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-own\n',
          'role.yaml': `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${role}\nrules: []\n`,
        },
        tasks: [
          { name: 'own', kind: 'Apply', spec: { resources: ['own.yaml'] } },
          { name: 'role', kind: 'Apply', spec: { resources: ['role.yaml'] } },
        ],
        plans: {
          deploy: {
            strategy: 'serial',
            phases: [
              {
                name: 'p',
                strategy: 'serial',
                steps: [
                  { name: 'own', tasks: ['own'] },
                  { name: 'role', tasks: ['role'] },
                ],
              },
            ],
          },
        },
      }),
    );
    await create(ns, 'instances', instance('scoped', 'scoped'));
    await waitFor(
      'scoped COMPLETE',
      async () => (await planOf(ns, 'scoped'))?.status === 'COMPLETE',
    );
    const scoped = await get(ns, 'scoped');
    expect(scoped?.metadata.finalizers).toEqual(['kudo.dev.instance.cleanup']);
    expect(
      (scoped?.status?.inventory ?? []).map((e) => (e as { kind?: string }).kind).sort(),
    ).toEqual(['ClusterRole', 'ConfigMap']);
    await deleteAndWait(ns, 'scoped');
    await expect(rbac.readClusterRole({ name: role })).rejects.toThrow();
  });

  it('a plan of owned objects that completes in its first pass is one write: its inventory rides on the COMPLETE write, no finalizer', async () => {
    const templates: Record<string, string> = {};
    for (const i of [0, 1, 2])
      templates[`cm${i}.yaml`] =
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-${i}\n`;
    await create(ns, 'operatorversions', {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'OperatorVersion',
      metadata: { name: 'one-pass' },
      spec: {
        version: '1.0',
        templates,
        tasks: [{ name: 'all', kind: 'Apply', spec: { resources: Object.keys(templates) } }],
        plans: { deploy: { phases: [{ name: 'p', steps: [{ name: 's', tasks: ['all'] }] }] } },
      },
    });
    const listed = (await custom.listNamespacedCustomObject({
      group: 'kudo.dev',
      version: 'v1beta1',
      namespace: ns,
      plural: 'instances',
    })) as { metadata: { resourceVersion: string } };
    const seen: { type: string; object: Instance }[] = [];
    const watching = await new k8s.Watch(kubeConfig()).watch(
      `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances`,
      { resourceVersion: listed.metadata.resourceVersion, fieldSelector: 'metadata.name=one' },
      (type: string, object: Instance) => seen.push({ type, object }),
      () => undefined,
    );
    try {
      await create(ns, 'instances', instance('one', 'one-pass'));
      await waitFor('one COMPLETE', async () => (await planOf(ns, 'one'))?.status === 'COMPLETE');
      await waitFor('the watch to see COMPLETE', () =>
        seen.some((e) => e.object.status?.planStatus?.['deploy']?.status === 'COMPLETE'),
      );
    } finally {
      watching.abort();
    }
    // Created; then one write: COMPLETE with the inventory (no IN_PROGRESS write with the
    // inventory before applying), and no finalizer — the garbage collector alone deletes what
    // it owns, and it has no cleanup plan.
    expect(seen.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']);
    expect(seen[1]?.object.metadata.finalizers).toBeUndefined();
    expect(seen[1]?.object.status?.planStatus?.['deploy']?.status).toBe('COMPLETE');
    expect(
      (seen[1]?.object.status?.inventory ?? []).map((e) => (e as { name?: string }).name).sort(),
    ).toEqual(['one-0', 'one-1', 'one-2']);
    for (const i of [0, 1, 2]) {
      const cm = await core.readNamespacedConfigMap({ name: `one-${i}`, namespace: ns });
      expect(cm.metadata?.ownerReferences?.[0]?.uid).toBe(seen[0]?.object.metadata.uid);
    }
  });

  it('a template error is FATAL_ERROR naming the template and line; an abort makes a waiting plan ABORTED', async () => {
    await create(
      ns,
      'operatorversions',
      operatorVersionObject('broken', {
        version: '1.0',
        templates: {
          'bad.yaml':
            'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  v: "{{ .Params.MISSING }}"\n',
          'deploy.yaml':
            'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Name }}\nspec:\n  selector:\n    matchLabels: {app: x}\n  template:\n    metadata:\n      labels: {app: x}\n    spec:\n      containers:\n      - name: c\n        image: nginx\n',
        },
        tasks: [
          { name: 'bad', kind: 'Apply', spec: { resources: ['bad.yaml'] } },
          { name: 'wait', kind: 'Apply', spec: { resources: ['deploy.yaml'] } },
        ],
        plans: {
          deploy: { phases: [{ name: 'p', steps: [{ name: 's', tasks: ['bad'] }] }] },
          slow: { phases: [{ name: 'p', steps: [{ name: 'w', tasks: ['wait'] }] }] },
        },
      }),
    );
    await create(ns, 'instances', instance('broken', 'broken'));
    const fatal = await waitFor('FATAL_ERROR', async () => {
      const ps = await planOf(ns, 'broken');
      return ps?.status === 'FATAL_ERROR' ? ps : undefined;
    });
    expect(fatal.message).toMatch(/template bad\.yaml line 6: .*MISSING/);
    const ready = (await get(ns, 'broken'))?.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'Unknown', reason: 'PlanInFatalError' });

    // Request the "slow" plan directly; it waits on a Deployment no controller will roll out.
    await mergePatchInstance(custom, ns, 'broken', {
      spec: { planExecution: { planName: 'slow', uid: '' } },
    });
    const waiting = await waitFor('slow waiting', async () => {
      const ps = await planOf(ns, 'broken', 'slow');
      return ps?.status === 'IN_PROGRESS' && ps.message ? ps : undefined;
    });
    expect(waiting.message).toContain(`Deployment ${ns}/broken has no status yet`);
    await mergePatchInstance(custom, ns, 'broken', { spec: { planExecution: { abort: true } } });
    const aborted = await waitFor('ABORTED', async () => {
      const ps = await planOf(ns, 'broken', 'slow');
      return ps?.status === 'ABORTED' ? ps : undefined;
    });
    expect(aborted.message).toMatch(/^aborted by /);
  });

  it.each(packages)(
    'real package %s: deploy renders and applies (or reports clearly why not)',
    async (pkgName) => {
      const namespace = pkgNamespaces.get(pkgName) ?? '';
      const pkg = await loadPackage(join(KUDO_PACKAGES, pkgName), { namespace });
      await create(namespace, 'operators', pkg.operator);
      await create(namespace, 'operatorversions', pkg.operatorVersion);
      const name = `${pkgName}-instance`;
      await create(namespace, 'instances', instance(name, pkg.operatorVersion.metadata.name ?? ''));
      const usesPipe = (pkg.operatorVersion.spec?.tasks ?? []).some((t) => t.kind === 'Pipe');
      const settled = async () => {
        const i = await get(namespace, name);
        const p = i?.status?.planStatus?.['deploy'];
        if (p?.status === 'COMPLETE' || p?.status === 'FATAL_ERROR') return p;
        return p?.status === 'IN_PROGRESS' && p.message && (i?.status?.inventory?.length ?? 0) > 0
          ? p
          : undefined;
      };
      const ps = await waitFor(`${pkgName} deploy to apply or to wait`, settled).catch(
        async (err: unknown) => {
          const i = await get(namespace, name);
          throw new Error(`${(err as Error).message}; status: ${JSON.stringify(i?.status)}`);
        },
      );
      if (usesPipe) {
        // A bare control plane schedules nothing: the pipe pod exists and is waited for, said
        // plainly (test/e2e/kudo/tasks/pipe.test.ts runs it to COMPLETE on a workloads cluster).
        expect(ps.status).toBe('IN_PROGRESS');
        expect(ps.message).toMatch(/pipe pod Pod \S+\/\S+ is Pending and not Ready/);
        return;
      }
      expect(`${ps.status ?? ''} ${ps.message ?? ''}`).not.toMatch(/^FATAL_ERROR/);
      if (ps.status === 'IN_PROGRESS') {
        // Waiting on workloads that need a kubelet/controllers: said plainly in status.
        expect(ps.message).toMatch(
          /has no status yet|not scheduled|not Bound|replicas ready|not completed/,
        );
      }
    },
  );
});
