// KudoOperator tasks through the real engine, webhook and API server (parent/child fixture
// packages under test/fixtures/packages, resolved by the package library as install does):
// the parent creates its child with KUDO's name and parameter file, waits for the child's
// plan, passes a parameter update on, and on deletion removes the child — awaiting its own
// cleanup — before its finalizer goes. Then the failure table: a missing child package, a
// dependency cycle, a child whose plan fails, a task without resolved versions, and a pipe
// key used twice — each a FATAL_ERROR that says what and where.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type {
  Instance,
  OperatorVersion,
  PlanStatus,
  Task,
} from '../../../../src/kudo/api/types.ts';
import { packageResolver, resolveDependencies } from '../../../../src/kudo/package/index.ts';
import { createTestNamespace, kubeConfig, testCluster } from '../../../support/cluster.ts';
import { installKudoCrds, kudoObjects, mergePatchInstance } from '../../../support/kudo.ts';
import { repositoryRoot } from '../../../../src/localcluster/paths.ts';
import { waitFor } from '../../../support/wait.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../../support/planwright-start.ts';

const FIXTURE_PACKAGES = join(repositoryRoot(), 'test', 'fixtures', 'packages');
const noRepository = (): Promise<never> => Promise.reject(new Error('no repository in tests'));

function plan(phases: Array<{ name: string; steps: Array<{ name: string; tasks: string[] }> }>) {
  return { strategy: 'serial', phases: phases.map((p) => ({ ...p, strategy: 'serial' })) };
}

/** A small OperatorVersion: its deploy plan runs the given tasks, one step each. */
function operatorVersion(
  name: string,
  version: string,
  tasks: object[],
  extra: Record<string, unknown> = {},
): OperatorVersion {
  return {
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'OperatorVersion',
    metadata: { name: `${name}-${version}` },
    spec: {
      operator: { name, kind: 'Operator' },
      version,
      tasks: tasks as Task[],
      plans: {
        deploy: plan([
          {
            name: 'main',
            steps: tasks.map((t) => ({
              name: (t as { name: string }).name,
              tasks: [(t as { name: string }).name],
            })),
          },
        ]),
      },
      ...extra,
    },
  };
}

describe('KudoOperator tasks (in-process Planwright, real webhook)', () => {
  const kc = kubeConfig();
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const { create, getInstance } = kudoObjects(custom);
  let planwright: StartedPlanwright;
  let ns = '';
  let failures = '';

  const terminal = (namespace: string, name: string, planName = 'deploy'): Promise<PlanStatus> =>
    waitFor(
      `${namespace}/${name} ${planName} terminal`,
      async () => {
        const i = await getInstance(namespace, name);
        const pe = i?.spec?.planExecution;
        const ps = i?.status?.planStatus?.[planName];
        return ps && ps.uid === pe?.uid && ['COMPLETE', 'FATAL_ERROR'].includes(ps.status ?? '')
          ? ps
          : undefined;
      },
      { timeoutMs: 60_000 },
    );

  const operator = (namespace: string, name: string): Promise<unknown> =>
    create(namespace, 'operators', {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'Operator',
      metadata: { name },
      spec: {},
    });

  const instance = (namespace: string, name: string, ov: string, op: string) =>
    create(namespace, 'instances', {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'Instance',
      metadata: { name, labels: { 'kudo.dev/operator': op } },
      spec: { operatorVersion: { name: ov } },
    });

  beforeAll(async () => {
    await installKudoCrds();
    ns = await createTestNamespace('kudo-op');
    failures = await createTestNamespace('kudo-op-fail');
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [ns, failures],
    });
  });

  afterAll(async () => {
    await planwright?.stop();
  });

  it('creates the child, waits for it, passes parameter updates on, and removes it first on deletion', async () => {
    const resolver = packageResolver({ cwd: FIXTURE_PACKAGES, repository: noRepository });
    const resolved = await resolveDependencies(await resolver.resolve('./dependency-parent'));
    for (const pkg of resolved.creationOrder) {
      const ov = structuredClone(pkg.resources.operatorVersion);
      // The child gets a cleanup plan here, so its deletion has work of its own to do.
      if (ov.metadata.name === 'dependency-child-0.2.0' && ov.spec) {
        ov.spec.tasks = [
          ...(ov.spec.tasks ?? []),
          { name: 'bye', kind: 'Dummy', spec: { done: true } },
        ];
        ov.spec.plans = {
          ...ov.spec.plans,
          cleanup: plan([{ name: 'c', steps: [{ name: 'bye', tasks: ['bye'] }] }]),
        };
      }
      const op = pkg.resources.operator;
      await create(ns, 'operators', { ...op, metadata: { ...op.metadata, namespace: ns } });
      await create(ns, 'operatorversions', { ...ov, metadata: { ...ov.metadata, namespace: ns } });
    }
    await instance(ns, 'web', 'dependency-parent-1.0.0-0.1.0', 'dependency-parent');
    const parentPlan = await terminal(ns, 'web');
    expect(`${parentPlan.status} ${parentPlan.message ?? ''}`).toBe('COMPLETE ');

    const child = (await getInstance(ns, 'web-dependency-child')) as Instance;
    // The webhook put the child in its parent's shard (api/shard.ts).
    const web = (await getInstance(ns, 'web')) as Instance;
    expect(child.metadata.labels).toEqual({
      'kudo.dev/operator': 'dependency-child',
      'planwright.dev/shard': web.metadata.labels?.['planwright.dev/shard'],
    });
    expect(child.metadata.ownerReferences).toEqual([
      expect.objectContaining({ apiVersion: 'kudo.dev/v1beta1', kind: 'Instance', name: 'web' }),
    ]);
    expect(child.metadata.ownerReferences?.[0]?.controller).toBeUndefined();
    expect(child.spec?.operatorVersion?.name).toBe('dependency-child-0.2.0');
    // The parent's parameter file, rendered with the parent's values.
    expect(child.spec?.parameters).toEqual({ MESSAGE: 'hello from web', REPLICAS: '2' });
    expect(child.status?.planStatus?.['deploy']?.status).toBe('COMPLETE');
    const childConfig = await core.readNamespacedConfigMap({
      namespace: ns,
      name: 'web-dependency-child-config',
    });
    expect(childConfig.data).toEqual({ message: 'hello from web', replicas: '2' });
    const parent = (await getInstance(ns, 'web')) as Instance;
    expect(parent.status?.inventory).toContainEqual(
      expect.objectContaining({
        kind: 'Instance',
        name: 'web-dependency-child',
        group: 'kudo.dev',
      }),
    );

    // A parent parameter that goes through the parameter file reaches the child.
    await mergePatchInstance(custom, ns, 'web', { spec: { parameters: { GREETING: 'hey' } } });
    await waitFor('the child’s ConfigMap updated', async () => {
      const cm = await core.readNamespacedConfigMap({
        namespace: ns,
        name: 'web-dependency-child-config',
      });
      return cm.data?.['message'] === 'hey from web';
    });
    // The parent has no update plan: the change runs deploy again, which patches the child.
    const updated = await terminal(ns, 'web');
    expect(updated.status).toBe('COMPLETE');
    expect(updated.uid).not.toBe(parentPlan.uid);
    expect((await getInstance(ns, 'web-dependency-child'))?.spec?.parameters).toEqual({
      MESSAGE: 'hey from web',
      REPLICAS: '2',
    });

    // Deleting the parent deletes the child (and waits for it), then everything else.
    await custom.deleteNamespacedCustomObject({
      group: 'kudo.dev',
      version: 'v1beta1',
      namespace: ns,
      plural: 'instances',
      name: 'web',
    });
    await waitFor('parent and child gone', async () => {
      const [p, c] = await Promise.all([
        getInstance(ns, 'web'),
        getInstance(ns, 'web-dependency-child'),
      ]);
      return p === undefined && c === undefined;
    });
    const left = await core.listNamespacedConfigMap({
      namespace: ns,
      labelSelector: 'heritage=kudo',
    });
    expect(left.items.map((c) => c.metadata?.name)).toEqual([]);
    // The child's own cleanup ran before it went.
    const events = await core.listNamespacedEvent({
      namespace: ns,
      fieldSelector: 'involvedObject.name=web-dependency-child,reason=PlanFinished',
    });
    expect(events.items.map((e) => e.message)).toContain(
      'Execution of plan cleanup finished with status COMPLETE',
    );
  });

  it.each([
    {
      title: 'a child package that is not installed',
      setup: async () => {
        await operator(failures, 'lonely');
        await create(
          failures,
          'operatorversions',
          operatorVersion('lonely', '1.0.0', [
            {
              name: 'dep',
              kind: 'KudoOperator',
              spec: { package: 'ghost', operatorVersion: '9.9.9' },
            },
          ]),
        );
        return { instance: 'lonely', ov: 'lonely-1.0.0', op: 'lonely' };
      },
      planMessage: `failed to resolve the dependencies of OperatorVersion {ns}/lonely-1.0.0: task dep needs package ghost version 9.9.9, but OperatorVersion ghost-9.9.9 does not exist in namespace {ns}`,
    },
    {
      title: 'a dependency cycle',
      setup: async () => {
        for (const [me, other] of [
          ['ping', 'pong'],
          ['pong', 'ping'],
        ] as const) {
          await operator(failures, me);
          await create(
            failures,
            'operatorversions',
            operatorVersion(me, '1.0.0', [
              {
                name: 'dep',
                kind: 'KudoOperator',
                spec: { package: other, operatorVersion: '1.0.0' },
              },
            ]),
          );
        }
        return { instance: 'ping', ov: 'ping-1.0.0', op: 'ping' };
      },
      planMessage: 'cyclic package dependency found when adding package pong-1.0.0 -> ping-1.0.0',
    },
  ])('$title fails the plan before any step runs', async ({ setup, planMessage }) => {
    const { instance: name, ov, op } = await setup();
    await instance(failures, name, ov, op);
    const ps = await terminal(failures, name);
    expect(ps.status).toBe('FATAL_ERROR');
    expect(ps.message).toContain(planMessage.replaceAll('{ns}', failures));
    expect(ps.phases?.[0]?.steps?.[0]?.status).toBe('PENDING');
    expect(
      await getInstance(failures, `${name}-${name === 'ping' ? 'pong' : 'ghost'}`),
    ).toBeUndefined();
  });

  it('a child whose plan fails fails the parent’s step, naming the child and its plan', async () => {
    await operator(failures, 'doomed');
    await create(
      failures,
      'operatorversions',
      operatorVersion('doomed', '0.1.0', [
        { name: 'boom', kind: 'Dummy', spec: { wantErr: true, fatal: true } },
      ]),
    );
    await operator(failures, 'hopeful');
    await create(
      failures,
      'operatorversions',
      operatorVersion('hopeful', '0.1.0', [
        {
          name: 'dep',
          kind: 'KudoOperator',
          spec: { package: 'doomed', operatorVersion: '0.1.0', instanceName: 'the-doomed-one' },
        },
      ]),
    );
    await instance(failures, 'hopeful', 'hopeful-0.1.0', 'hopeful');
    const ps = await terminal(failures, 'hopeful');
    expect(ps.status).toBe('FATAL_ERROR');
    const step = ps.phases?.[0]?.steps?.[0];
    expect(step?.status).toBe('FATAL_ERROR');
    expect(step?.message).toContain(
      `task dep: child Instance ${failures}/the-doomed-one: plan deploy ended FATAL_ERROR`,
    );
    expect(
      (await getInstance(failures, 'the-doomed-one'))?.status?.planStatus?.['deploy']?.status,
    ).toBe('FATAL_ERROR');
  });

  it('a KudoOperator task without resolved versions is a build error of the step', async () => {
    await operator(failures, 'unresolved');
    await create(
      failures,
      'operatorversions',
      operatorVersion('unresolved', '0.1.0', [
        { name: 'dep', kind: 'KudoOperator', spec: { package: '../some-folder' } },
      ]),
    );
    await instance(failures, 'unresolved', 'unresolved-0.1.0', 'unresolved');
    const ps = await terminal(failures, 'unresolved');
    expect(ps.phases?.[0]?.steps?.[0]?.message).toContain(
      'task dep: cannot build the KudoOperator task: it needs package and operatorVersion (it has package "../some-folder", operatorVersion "")',
    );
  });

  it('a pipe key used twice in a plan fails the plan before any step runs', async () => {
    const pipe = (name: string) => ({
      name,
      kind: 'Pipe',
      spec: { pod: 'pod.yaml', pipe: [{ file: '/tmp/a', kind: 'ConfigMap', key: 'same' }] },
    });
    await create(
      failures,
      'operatorversions',
      operatorVersion('piper', '0.1.0', [pipe('one'), pipe('two')], {
        templates: {
          'pod.yaml':
            'apiVersion: v1\nkind: Pod\nspec:\n  volumes: [{name: d, emptyDir: {}}]\n  initContainers: [{name: i, image: x, volumeMounts: [{name: d, mountPath: /tmp}]}]\n',
        },
      }),
    );
    await instance(failures, 'piper', 'piper-0.1.0', 'piper');
    const ps = await terminal(failures, 'piper');
    expect(ps.status).toBe('FATAL_ERROR');
    expect(ps.message).toMatch(/^could not make task pipes: duplicated pipe key same: plan deploy/);
    expect(ps.phases?.every((p) => p.status === 'PENDING')).toBe(true);
    const pods = await core.listNamespacedPod({ namespace: failures });
    expect(pods.items).toEqual([]);
  });
});
