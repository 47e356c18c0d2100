// A plan that waits for a Deployment to become ready (minReadySeconds on a workloads cluster:
// the real Deployment controller writes the status) reads the Deployment from the controller's
// watch cache and is woken by its watch events: Planwright GETs it at most once per run, where
// polling on the backoff timer would GET it on every look. Planwright runs as `planwright
// start` (a child process) with a kubeconfig pointing at a counting proxy in front of the
// apiserver, so its requests are counted on the way; the test's own reads go straight to the
// apiserver. The Deployment is the one of the bench's waiting workload (bench/vs-kudo.ts,
// deployments).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import type { PlanStatus } from '../../../../src/kudo/api/types.ts';
import { deploymentTemplates } from '../../../../bench/support/bench-operator.ts';
import { createTestNamespace, kubeConfig, testCluster } from '../../../support/cluster.ts';
import { startCountingProxy, type CountingProxy } from '../../../support/counting-proxy.ts';
import { installKudoCrds, kudoObjects, mergePatchInstance } from '../../../support/kudo.ts';
import { applyStepsOperatorVersion, instanceObject } from '../../../support/kudo-objects.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../../support/planwright-start.ts';
import { waitFor } from '../../../support/wait.ts';

const OPERATOR = 'waiter';
const INSTANCE = 'w';
const DEPLOYMENT = `${INSTANCE}-web`;
// Long enough for polling on the backoff timer (1 s, doubling) to look several times.
const MIN_READY_S = 12;

describe('a plan waiting for a Deployment reads it from the watch cache', () => {
  const kc = kubeConfig();
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const { create, getInstance } = kudoObjects(custom);
  let namespace = '';
  let planwright: StartedPlanwright;
  let proxy: CountingProxy;
  const deploymentGets = (): number =>
    proxy.count('GET', `/apis/apps/v1/namespaces/${namespace}/deployments/${DEPLOYMENT}`);

  const deployPlan = async (): Promise<PlanStatus | undefined> =>
    (await getInstance(namespace, INSTANCE))?.status?.planStatus?.['deploy'];
  const updatePlan = async (): Promise<PlanStatus | undefined> => {
    const status = (await getInstance(namespace, INSTANCE))?.status;
    return status?.planStatus?.['update'] ?? status?.planStatus?.['deploy'];
  };
  /** The run of `plan` with uid other than `not`, once it waits naming the Deployment. */
  const waitingOn = (plan: () => Promise<PlanStatus | undefined>, not?: string) =>
    waitFor(
      'the plan waiting for the Deployment',
      async () => {
        const ps = await plan();
        return ps?.uid !== not &&
          ps?.status === 'IN_PROGRESS' &&
          /Deployment/.test(ps.message ?? '')
          ? ps
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
  const complete = (plan: () => Promise<PlanStatus | undefined>, uid: string) =>
    waitFor(
      'the plan COMPLETE',
      async () => {
        const ps = await plan();
        if (ps?.uid === uid && ps.status === 'FATAL_ERROR') throw new Error(ps.message);
        return ps?.uid === uid && ps.status === 'COMPLETE' ? ps : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
  /** The Deployment read by LIST (not the path counted). */
  const deployment = async (): Promise<k8s.V1Deployment | undefined> =>
    (
      await apps.listNamespacedDeployment({
        namespace,
        fieldSelector: `metadata.name=${DEPLOYMENT}`,
      })
    ).items[0];

  beforeAll(async () => {
    await installKudoCrds();
    namespace = await createTestNamespace('kudo-wait');
    proxy = await startCountingProxy(testCluster().kubeconfigPath);
    planwright = await startPlanwrightCli({
      kubeconfig: proxy.kubeconfigPath,
      watchNamespaces: [namespace],
    });
  });

  afterAll(async () => {
    await planwright?.stop();
    await proxy?.close();
  });

  it('waits, completes when the Deployment is available, and GETs it at most once', async () => {
    await create(namespace, 'operators', {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'Operator',
      metadata: { name: OPERATOR },
      spec: {},
    });
    const ov = applyStepsOperatorVersion(`${OPERATOR}-1.0`, deploymentTemplates(MIN_READY_S), {
      parameters: [{ name: 'V', default: 'a' }],
    });
    await create(namespace, 'operatorversions', ov);
    proxy.reset();
    await create(namespace, 'instances', instanceObject(INSTANCE, ov.metadata.name ?? ''));

    const waiting = await waitingOn(deployPlan);
    const done = await complete(deployPlan, waiting.uid ?? '');
    expect(done.status).toBe('COMPLETE');
    const d = await deployment();
    expect({
      observed: d?.status?.observedGeneration,
      available: d?.status?.availableReplicas,
    }).toEqual({ observed: d?.metadata?.generation, available: 1 });
    // One GET before the first apply: whether the Deployment already exists and is someone
    // else's (tenancy's adoption check); at most one more while waiting, where the watch
    // cache cannot vouch for the copy it holds.
    expect(deploymentGets()).toBeLessThanOrEqual(2);
  });

  it('a change of the Deployment is not judged on the cached copy from before it', async () => {
    const before = await deployment();
    const generation = before?.metadata?.generation ?? 0;
    const previous = (await updatePlan())?.uid;
    proxy.reset();
    await mergePatchInstance(custom, namespace, INSTANCE, { spec: { parameters: { V: 'b' } } });

    const waiting = await waitingOn(updatePlan, previous);
    await complete(updatePlan, waiting.uid ?? '');
    // COMPLETE only once the Deployment controller rolled out the new generation.
    const d = await deployment();
    expect(d?.metadata?.generation).toBe(generation + 1);
    expect({
      observed: d?.status?.observedGeneration,
      updated: d?.status?.updatedReplicas,
      available: d?.status?.availableReplicas,
    }).toEqual({ observed: generation + 1, updated: 1, available: 1 });
    // One look before writing the changed Deployment (the cached copy differs), none after.
    expect(deploymentGets()).toBeLessThanOrEqual(1);
  });
});
