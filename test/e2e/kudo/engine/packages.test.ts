// Real KUDO packages on the shared mixed cluster (kube-controller-manager, scheduler, a real
// node for the images the local registry holds, kwok nodes for application images that cannot
// exist here): every shared package but cowsay (its Pipe pod downloads from the internet,
// which no pod reaches here: pipe.test.ts) installs and its deploy plan
// reaches COMPLETE on real controller-written status with the Instance Ready=True; a Job that
// fails ends the plan in FATAL_ERROR with the Job's reason; a Deployment edited so that it
// cannot become ready turns Ready False naming it; deleting an Instance's namespace finishes.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { Condition, PlanStatus } from '../../../../src/kudo/api/types.ts';
import { loadPackage } from '../../../../src/kudo/package/index.ts';
import { createTestNamespace, kubeConfig, testCluster } from '../../../support/cluster.ts';
import { installKudoCrds, KUDO_PACKAGES, kudoObjects } from '../../../support/kudo.ts';
import { waitFor } from '../../../support/wait.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../../support/planwright-start.ts';
import {
  instanceObject,
  operatorVersionObject,
  serialPlan,
} from '../../../support/kudo-objects.ts';

// cowsay's init container downloads its page: pipe.test.ts runs it, as shipped and offline.
const PACKAGES = readdirSync(KUDO_PACKAGES)
  .filter((p) => p !== 'cowsay')
  .sort();
const PLAN_TIMEOUT_MS = 300_000;

describe('real KUDO packages on a workloads cluster', () => {
  let planwright: StartedPlanwright;
  const kc = kubeConfig();
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const namespaces = new Map<string, string>();
  let failing = '';

  const { create, getInstance } = kudoObjects(custom);
  const ready = async (namespace: string, name: string): Promise<Condition | undefined> =>
    (await getInstance(namespace, name))?.status?.conditions?.find((c) => c.type === 'Ready');
  const terminal = (namespace: string, name: string): Promise<PlanStatus> =>
    waitFor(
      `${namespace}/${name} deploy plan terminal`,
      async () => {
        const ps = (await getInstance(namespace, name))?.status?.planStatus?.['deploy'];
        return ps?.status === 'COMPLETE' || ps?.status === 'FATAL_ERROR' ? ps : undefined;
      },
      { timeoutMs: PLAN_TIMEOUT_MS, intervalMs: 500 },
    ).catch(async (err: unknown) => {
      const i = await getInstance(namespace, name);
      throw new Error(
        `${(err as Error).message}; plan status: ${JSON.stringify(i?.status?.planStatus?.['deploy'])}; ` +
          (await podsAndEvents(namespace)),
      );
    });

  /** What a plan that did not end was waiting on: its namespace's pods, claims and events. */
  const podsAndEvents = async (namespace: string): Promise<string> => {
    const pods = (await core.listNamespacedPod({ namespace })).items.map((p) => ({
      pod: p.metadata?.name,
      node: p.spec?.nodeName,
      phase: p.status?.phase,
      notTrue: (p.status?.conditions ?? [])
        .filter((c) => c.status !== 'True')
        .map((c) => `${c.type}: ${c.reason ?? ''} ${c.message ?? ''}`),
    }));
    const claims = (await core.listNamespacedPersistentVolumeClaim({ namespace })).items.map(
      (c) => `${c.metadata?.name ?? ''} ${c.status?.phase ?? ''}`,
    );
    const events = (await core.listNamespacedEvent({ namespace })).items
      .filter((e) => e.type !== 'Normal')
      .map(
        (e) =>
          `${e.involvedObject.kind ?? ''}/${e.involvedObject.name ?? ''} ${e.reason ?? ''} ×${e.count ?? 1}: ${e.message ?? ''}`,
      );
    return `pods: ${JSON.stringify(pods)}; claims: ${JSON.stringify(claims)}; warnings: ${JSON.stringify(events.slice(-20))}`;
  };

  beforeAll(async () => {
    await installKudoCrds();
    for (const p of PACKAGES) namespaces.set(p, await createTestNamespace(`kudo-${p}`));
    failing = await createTestNamespace('kudo-failjob');
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [...namespaces.values(), failing],
    });
  });

  afterAll(async () => {
    await planwright?.stop();
  });

  it.each(PACKAGES)(
    '%s: deploy reaches COMPLETE and the Instance is Ready',
    async (name) => {
      const namespace = namespaces.get(name) ?? '';
      const pkg = await loadPackage(join(KUDO_PACKAGES, name), { namespace });
      await create(namespace, 'operators', pkg.operator);
      await create(namespace, 'operatorversions', pkg.operatorVersion);
      await create(namespace, 'instances', pkg.instance);
      const instanceName = pkg.instance.metadata.name ?? '';
      const ps = await terminal(namespace, instanceName);
      expect(`${ps.status} ${ps.message ?? ''}`).toBe('COMPLETE ');
      for (const phase of ps.phases ?? []) {
        expect({ phase: phase.name, status: phase.status }).toEqual({
          phase: phase.name,
          status: 'COMPLETE',
        });
      }
      const condition = await waitFor(`${name} Ready=True`, async () => {
        const c = await ready(namespace, instanceName);
        return c?.status === 'True' ? c : undefined;
      });
      expect(condition.reason).toBe('ResourcesReady');
      // COMPLETE means rolled out, on the controllers' own status.
      const selector = `heritage=kudo,kudo.dev/instance=${instanceName}`;
      const sets = [
        ...(await apps.listNamespacedDeployment({ namespace, labelSelector: selector })).items,
        ...(await apps.listNamespacedStatefulSet({ namespace, labelSelector: selector })).items,
      ];
      expect(sets.length).toBeGreaterThan(0);
      for (const set of sets) {
        expect({ name: set.metadata?.name, ready: set.status?.readyReplicas }).toEqual({
          name: set.metadata?.name,
          ready: set.spec?.replicas ?? 1,
        });
      }
      // Their pods carry the Instance's labels (readiness selects by them).
      const pods = await core.listNamespacedPod({ namespace, labelSelector: selector });
      expect(pods.items.length).toBeGreaterThan(0);
      // Packages written for policy/v1beta1 got a policy/v1 PodDisruptionBudget, and a warning.
      const events = await core.listNamespacedEvent({
        namespace,
        fieldSelector: `involvedObject.name=${instanceName},reason=ConvertedRemovedAPI`,
      });
      const converted = events.items.map((e) => e.message ?? '');
      if (name === 'redis' || name === 'zookeeper') {
        expect(converted).toHaveLength(1);
        expect(converted[0]).toMatch(/^template pdb\.yaml: .*applied it as policy\/v1/);
      } else {
        expect(converted).toEqual([]);
      }
    },
    PLAN_TIMEOUT_MS + 60_000,
  );

  it('a Deployment edited so that it cannot become ready turns Ready False, naming it', async () => {
    const namespace = namespaces.get('first-operator') ?? '';
    const instanceName = 'first-operator-instance';
    expect((await ready(namespace, instanceName))?.status).toBe('True');
    // A readiness probe that always fails, run by the real node's kubelet.
    const probe = { exec: { command: ['false'] }, periodSeconds: 1 };
    await apps.patchNamespacedDeployment(
      {
        namespace,
        name: 'nginx-deployment',
        body: {
          spec: { template: { spec: { containers: [{ name: 'nginx', readinessProbe: probe }] } } },
        },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );
    // Once the Deployment controller has rolled out what it can: one new pod that never
    // becomes ready, the old ones kept. The new pod is Pending for a moment before it runs:
    // the condition follows it, so wait for the state it settles in.
    const condition = await waitFor(
      'Ready=False after the rollout stalled',
      async () => {
        const c = await ready(namespace, instanceName);
        return c?.status === 'False' &&
          c.message?.includes('1 updated') &&
          c.message.includes('is Running and not Ready')
          ? c
          : undefined;
      },
      { timeoutMs: 120_000 },
    );
    expect(condition.reason).toBe('ResourceNotReady');
    expect(condition.message).toContain(
      `Deployment ${namespace}/nginx-deployment 2/2 replicas ready, 1 updated, 2 available, 2 replicas of an older revision remain`,
    );
    expect(condition.message).toMatch(
      /Pod [^ ]+\/nginx-deployment-[^ ]+ is Running and not Ready: container nginx is running/,
    );
    // The edit was not undone: no plan runs, and changes by others stay (kudo-compat.md).
    const deployment = await apps.readNamespacedDeployment({
      namespace,
      name: 'nginx-deployment',
    });
    expect(deployment.spec?.template.spec?.containers[0]?.readinessProbe).toMatchObject(probe);
  });

  it(
    'a Job that fails ends the plan in FATAL_ERROR with the Job’s reason',
    async () => {
      await create(
        failing,
        'operatorversions',
        operatorVersionObject('failjob-0.1.0', {
          operator: { name: 'failjob' },
          version: '0.1.0',
          templates: {
            'job.yaml': [
              'apiVersion: batch/v1',
              'kind: Job',
              'metadata:',
              '  name: failing-job',
              'spec:',
              '  backoffLimit: 0',
              '  template:',
              '    spec:',
              '      restartPolicy: Never',
              '      containers: [{name: main, image: alpine, command: ["false"]}]',
            ].join('\n'),
          },
          tasks: [{ name: 'app', kind: 'Apply', spec: { resources: ['job.yaml'] } }],
          plans: { deploy: serialPlan([{ name: 'everything', tasks: ['app'] }]) },
        }),
      );
      await create(
        failing,
        'instances',
        instanceObject('failjob', 'failjob-0.1.0', { labels: { 'kudo.dev/operator': 'failjob' } }),
      );
      const ps = await terminal(failing, 'failjob');
      expect(ps.status).toBe('FATAL_ERROR');
      const step = ps.phases?.[0]?.steps?.[0];
      expect(step?.status).toBe('FATAL_ERROR');
      expect(step?.message).toContain(
        `Job ${failing}/failing-job failed: BackoffLimitExceeded: Job has reached the specified backoff limit`,
      );
      expect(await ready(failing, 'failjob')).toMatchObject({
        status: 'Unknown',
        reason: 'PlanInFatalError',
      });
    },
    PLAN_TIMEOUT_MS,
  );

  it('deleting an Instance’s namespace finishes', async () => {
    const namespace = namespaces.get('mysql') ?? '';
    await core.deleteNamespace({ name: namespace });
    await waitFor(
      `namespace ${namespace} gone`,
      async () => {
        try {
          await core.readNamespace({ name: namespace });
          return false;
        } catch {
          return true;
        }
      },
      { timeoutMs: 240_000, intervalMs: 1_000 },
    ).catch(async (err: unknown) => {
      const left = await getInstance(namespace, 'mysql-instance');
      const ns = await core.readNamespace({ name: namespace }).catch(() => undefined);
      throw new Error(
        `${(err as Error).message}; namespace status: ${JSON.stringify(ns?.status)}; Instance: ${JSON.stringify(left?.metadata)}`,
      );
    });
  }, 300_000);
});
