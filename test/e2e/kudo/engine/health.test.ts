// Health as a real kubelet reports it: Planwright (started as `planwright start` starts it)
// judges objects whose pods run on the real node of the shared cluster. An image the cluster's
// registry lacks fails to pull for real, and a container that exits 1 really exits 1; the
// Instance's Ready condition and the plan's status say so in words naming the object and why.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import type { Condition, PlanStatus } from '../../../../src/kudo/api/types.ts';
import { NODE_KIND_LABEL } from '../../../../src/localcluster/index.ts';
import { createTestNamespace, kubeConfig, testCluster } from '../../../support/cluster.ts';
import { deployTerminal, installKudoCrds, kudoObjects } from '../../../support/kudo.ts';
import { applyStepsOperatorVersion, instanceObject } from '../../../support/kudo-objects.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../../support/planwright-start.ts';
import { requireRealNode } from '../../../support/real-node.ts';
import { waitFor } from '../../../support/wait.ts';

const MISSING_IMAGE = 'nginx:no-such-tag';
// On the mixed cluster a pod whose image the registry lacks goes to a kwok node (where it
// "runs"); one that selects the real node stays there and really fails to pull.
const ON_REAL_NODE = { [NODE_KIND_LABEL]: 'real' };

const web = JSON.stringify({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: {
    replicas: 1,
    strategy: { type: 'Recreate' },
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        nodeSelector: ON_REAL_NODE,
        terminationGracePeriodSeconds: 0,
        containers: [{ name: 'web', image: 'nginx:1.7.9' }],
      },
    },
  },
});

const failingJob = JSON.stringify({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'fails' },
  spec: {
    backoffLimit: 0,
    template: {
      spec: {
        restartPolicy: 'Never',
        terminationGracePeriodSeconds: 0,
        containers: [{ name: 'main', image: 'busybox', command: ['false'] }],
      },
    },
  },
});

describe('health on real kubelet status', () => {
  const kc = kubeConfig();
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const objects = kudoObjects(custom);
  const { create, getInstance } = objects;
  let planwright: StartedPlanwright | undefined;
  let ns = '';

  const terminal = (name: string): Promise<PlanStatus> =>
    deployTerminal(objects, { namespace: ns, name });

  const ready = async (name: string): Promise<Condition | undefined> =>
    (await getInstance(ns, name))?.status?.conditions?.find((c: Condition) => c.type === 'Ready');

  beforeAll(async () => {
    requireRealNode('health on real kubelet status');
    await installKudoCrds();
    ns = await createTestNamespace('health');
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: ns,
    });
  });

  afterAll(async () => {
    await planwright?.stop();
  });

  async function install(operator: string, templates: Record<string, string>): Promise<void> {
    await create(ns, 'operatorversions', applyStepsOperatorVersion(`${operator}-1.0`, templates));
    await create(
      ns,
      'instances',
      instanceObject(operator, `${operator}-1.0`, {
        labels: { 'kudo.dev/operator': `${operator}-1.0` },
      }),
    );
  }

  it('a Deployment whose image does not exist turns the Instance Ready=False, naming the Deployment, the pod and the image', async () => {
    await install('site', { 'web.yaml': web });
    const ps = await terminal('site');
    expect(`${ps.status} ${ps.message ?? ''}`).toBe('COMPLETE ');
    expect(await ready('site')).toMatchObject({ status: 'True', reason: 'ResourcesReady' });

    // Someone points the Deployment at an image nobody has.
    await apps.patchNamespacedDeployment(
      {
        namespace: ns,
        name: 'web',
        body: {
          spec: { template: { spec: { containers: [{ name: 'web', image: MISSING_IMAGE }] } } },
        },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );
    const pullFailure = new RegExp(
      `Pod ${ns}/web-\\S+ is Pending and not Ready: container web is waiting: ` +
        `(ErrImagePull|ImagePullBackOff): [^;]*${MISSING_IMAGE}`,
    );
    const notReady = await waitFor(
      'Ready=False naming the image',
      async () => {
        const c = await ready('site');
        return c?.status === 'False' && pullFailure.test(c.message ?? '') ? c : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(notReady.reason).toBe('ResourceNotReady');
    expect(notReady.message).toMatch(
      new RegExp(`^Deployment ${ns}/web 0/1 replicas ready, 1 updated, 0 available, `),
    );
    // What the kubelet reported: the pull really failed on the real node.
    const pods = await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=web' });
    const pod = pods.items.find((p) => p.spec?.containers[0]?.image === MISSING_IMAGE);
    const node = await core.readNode({ name: pod?.spec?.nodeName ?? '' });
    expect(node.metadata?.labels?.[NODE_KIND_LABEL]).toBe('real');
    expect(pod?.status?.containerStatuses?.[0]?.state?.waiting?.reason).toMatch(
      /^(ErrImagePull|ImagePullBackOff)$/,
    );
  }, 300_000);

  it('a Job whose container exits 1 makes the plan FATAL_ERROR with the Job’s reason', async () => {
    await install('batch', { 'job.yaml': failingJob });
    const ps = await terminal('batch');
    expect(ps.status).toBe('FATAL_ERROR');
    const step = ps.phases?.[0]?.steps?.[0];
    expect(step?.status).toBe('FATAL_ERROR');
    expect(step?.message).toContain(`Job ${ns}/fails`);
    expect(step?.message).toContain(
      'BackoffLimitExceeded: Job has reached the specified backoff limit',
    );
    // The kubelet's report of the one attempt: exit code 1, on the real node.
    const pods = await core.listNamespacedPod({
      namespace: ns,
      labelSelector: 'batch.kubernetes.io/job-name=fails',
    });
    expect(pods.items).toHaveLength(1);
    const pod = pods.items[0] as k8s.V1Pod;
    expect(pod.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 1,
      reason: 'Error',
    });
    const node = await core.readNode({ name: pod.spec?.nodeName ?? '' });
    expect(node.metadata?.labels?.[NODE_KIND_LABEL]).toBe('real');
  }, 300_000);
});
