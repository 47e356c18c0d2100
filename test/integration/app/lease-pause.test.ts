// Disruptive: the kube-apiserver of a dedicated control plane is paused (SIGSTOP) for longer
// than the lease while plans run (each held at its last step, a Deployment that only becomes
// healthy when the test says so: this control plane runs no controllers). Planwright, started
// as users start it (`planwright start --install`, the built CLI in a child process, leader
// election on with shorter Lease timings set by its flags), loses the Lease: its controllers
// stop, yet its webhook keeps answering reviews sent to it directly and the process does not
// exit. After SIGCONT it leads again and every plan finishes, once — with every default
// (the watches' inactivity timeout included) as shipped.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { installCrds } from '../../../src/cli/install.ts';
import { KubeClient } from '../../../src/kube/index.ts';
import type { Instance, OperatorVersion } from '../../../src/kudo/api/types.ts';
import { startLocalCluster, type LocalCluster } from '../../../src/localcluster/index.ts';
import { testCluster } from '../../support/cluster.ts';
import { waitFor } from '../../support/wait.ts';
import { leaderStatus, WebhookProbe } from '../../support/planwright-probe.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../support/planwright-start.ts';
import { applyStepsOperatorVersion } from '../../support/kudo-objects.ts';

const NS = 'default';
const INSTANCES = 16;
/** ConfigMap steps, then the gate: a Deployment step. */
const CONFIGMAPS = 5;
const STEPS = CONFIGMAPS + 1;
/** Shorter than the defaults (15 s, 10 s, 2 s): the pause needs to outlast only the lease. */
const RENEW_DEADLINE_MS = 3_000;
const LEASE_FLAGS = [
  '--leader-elect-lease-duration',
  '4s',
  '--leader-elect-renew-deadline',
  `${RENEW_DEADLINE_MS / 1000}s`,
  '--leader-elect-retry-period',
  '500ms',
];
/** Longer than the lease: the leader must step down while the apiserver is gone. */
const PAUSE_MS = 10_000;
const GROUP = { group: 'kudo.dev', version: 'v1beta1' } as const;

function operatorVersion(): OperatorVersion {
  const templates: Record<string, string> = {};
  for (let i = 0; i < CONFIGMAPS; i++) {
    templates[`cm${i}.yaml`] =
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-cm${i}\ndata:\n  step: "${i}"\n`;
  }
  // No kube-controller-manager here: the Deployment stays unhealthy (its plan IN_PROGRESS)
  // until the test writes its status, so the pause is sure to find every plan under way.
  templates['gate.yaml'] = [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    '  name: {{ .Name }}-gate',
    'spec:',
    '  replicas: 1',
    '  selector:',
    '    matchLabels:',
    '      gate: {{ .Name }}',
    '  template:',
    '    metadata:',
    '      labels:',
    '        gate: {{ .Name }}',
    '    spec:',
    '      containers:',
    '        - name: pause',
    '          image: registry.k8s.io/pause:3.10',
    '',
  ].join('\n');
  return applyStepsOperatorVersion('paused', templates, { namespace: NS });
}

describe('apiserver paused longer than the lease (dedicated control plane, child process)', () => {
  let cluster: LocalCluster;
  let client: KubeClient;
  let custom: k8s.CustomObjectsApi;
  let child: StartedPlanwright | undefined;
  let paused = false;
  // Stopped in afterAll too: a failed assertion must not leave the probe's interval (or its
  // agent's sockets) keeping jest alive after the run.
  let probe: WebhookProbe | undefined;
  let stopped = false;

  beforeAll(async () => {
    cluster = await startLocalCluster({ binaries: testCluster().binaries });
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(cluster.kubeconfigPath);
    client = new KubeClient(kc);
    custom = kc.makeApiClient(k8s.CustomObjectsApi);
    await installCrds(client);
  });

  afterAll(async () => {
    probe?.stop();
    if (paused) process.kill(cluster.pids.kubeApiServer, 'SIGCONT');
    if (!stopped) await child?.stop();
    client?.close();
    await cluster?.stop();
  });

  it('keeps the webhook answering, stops the controllers, then leads again and finishes every plan once', async () => {
    // The Lease is the manager's own: `planwright-leader` in `default` (no --namespace).
    child = await startPlanwrightCli({
      kubeconfig: cluster.kubeconfigPath,
      watchNamespaces: [NS],
      args: LEASE_FLAGS,
    });
    const running = child;
    await waitFor('leader', async () => (await leaderStatus(running)) === 1, {
      timeoutMs: 30_000,
    });
    await custom.createNamespacedCustomObject({
      ...GROUP,
      namespace: NS,
      plural: 'operatorversions',
      body: operatorVersion(),
    });
    const names = Array.from({ length: INSTANCES }, (_, i) => `paused-${i}`);
    await Promise.all(
      names.map((name) =>
        custom.createNamespacedCustomObject({
          ...GROUP,
          namespace: NS,
          plural: 'instances',
          body: {
            apiVersion: 'kudo.dev/v1beta1',
            kind: 'Instance',
            metadata: { name },
            spec: { operatorVersion: { name: 'paused' } },
          },
        }),
      ),
    );
    const list = async (): Promise<Instance[]> =>
      (
        (await custom.listNamespacedCustomObject({
          ...GROUP,
          namespace: NS,
          plural: 'instances',
        })) as {
          items: Instance[];
        }
      ).items;
    // Pause while plans are under way: every plan has reached its gate, which holds it.
    const gates = async (): Promise<string[]> =>
      (
        await client.request<{ items: { metadata: { name: string } }[] }>({
          path: `/apis/apps/v1/namespaces/${NS}/deployments`,
        })
      ).items
        .map((d) => d.metadata.name)
        .filter((n) => n.startsWith('paused-'));
    await waitFor('every plan at its gate', async () => (await gates()).length === INSTANCES, {
      timeoutMs: 120_000,
      intervalMs: 250,
    });
    expect(
      (await list()).filter((i) => i.status?.planStatus?.['deploy']?.status === 'COMPLETE'),
    ).toEqual([]);
    const scheduled = new Map(
      (await list()).map((i) => [i.metadata.name ?? '', i.spec?.planExecution?.uid]),
    );
    const webhookProbe = new WebhookProbe(running, NS, 'paused');
    probe = webhookProbe;
    webhookProbe.start(50);
    process.kill(cluster.pids.kubeApiServer, 'SIGSTOP');
    paused = true;
    const pausedAt = Date.now();
    // The leader steps down at its renew deadline; its metric says so while the apiserver is
    // still gone (the webhook server, which serves /metrics, is up all along). The apiserver
    // stays paused until it has: the wait is a hang guard, many renew deadlines long, so a
    // busy machine only makes the step-down later, never the test fail.
    await waitFor('leadership given up', async () => (await leaderStatus(running)) === 0, {
      timeoutMs: 20 * RENEW_DEADLINE_MS,
      intervalMs: 100,
    }).catch((err: unknown) => {
      // What the manager said is the only way to tell why it kept the lease.
      throw new Error(`${String(err)}\nmanager log (tail):\n${running.log().slice(-4000)}`);
    });
    const steppedDownAfterMs = Date.now() - pausedAt;
    const duringPause = webhookProbe.latenciesMs.length;
    // The apiserver stays paused for PAUSE_MS, and at least until the webhook has answered
    // more than 10 reviews without a leader (on a busy machine the step-down comes late).
    await waitFor(
      'the pause to last and the webhook to answer without a leader',
      () => Date.now() - pausedAt >= PAUSE_MS && webhookProbe.latenciesMs.length - duringPause > 10,
      { timeoutMs: 120_000, intervalMs: 50 },
    );
    const answeredWhilePaused = webhookProbe.latenciesMs.length - duringPause;
    const pauseLatency = webhookProbe.summary();
    process.kill(cluster.pids.kubeApiServer, 'SIGCONT');
    paused = false;
    const resumedAt = Date.now();
    expect(running.proc.exitCode).toBeNull();
    expect(webhookProbe.failures).toEqual([]);
    expect(answeredWhilePaused).toBeGreaterThan(10);

    await waitFor('leader again', async () => (await leaderStatus(running)) === 1, {
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    const leadsAgainAfterMs = Date.now() - resumedAt;
    // The new term finds every plan at its gate; the "controller" makes the gates healthy.
    for (const name of await gates()) {
      await client.request({
        method: 'PATCH',
        path: `/apis/apps/v1/namespaces/${NS}/deployments/${name}/status`,
        contentType: 'application/merge-patch+json',
        body: {
          status: {
            observedGeneration: 1,
            replicas: 1,
            updatedReplicas: 1,
            readyReplicas: 1,
            availableReplicas: 1,
          },
        },
      });
    }
    await waitFor(
      'every plan COMPLETE',
      async () =>
        (await list()).filter((i) => i.status?.planStatus?.['deploy']?.status === 'COMPLETE')
          .length === INSTANCES,
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    webhookProbe.stop();
    // Each plan ran once: the run the webhook scheduled (same uid), every step COMPLETE, and at
    // most one PlanFinished event per Instance.
    for (const instance of await list()) {
      const name = instance.metadata.name ?? '';
      const ps = instance.status?.planStatus?.['deploy'];
      expect({ name, uid: ps?.uid, status: ps?.status }).toEqual({
        name,
        uid: scheduled.get(name),
        status: 'COMPLETE',
      });
      expect(ps?.phases?.[0]?.steps?.map((s) => s.status)).toEqual(Array(STEPS).fill('COMPLETE'));
    }
    const events = (await kcCore(cluster).listNamespacedEvent({ namespace: NS })).items.filter(
      (e) => e.reason === 'PlanFinished' && e.involvedObject.kind === 'Instance',
    );
    const finished = new Map<string, number>();
    for (const e of events) {
      const key = e.involvedObject.name ?? '';
      finished.set(key, (finished.get(key) ?? 0) + (e.count ?? 1));
    }
    // Never twice (an Event lost while the apiserver was gone would make it 0, not 2).
    expect(Math.max(...names.map((n) => finished.get(n) ?? 0))).toBeLessThanOrEqual(1);
    expect(running.log()).toMatch(/leadership lost; controllers stopped, rejoining the election/);
    console.log(
      `apiserver paused ${PAUSE_MS} ms: leader stepped down after ${steppedDownAfterMs} ms; webhook answered ${answeredWhilePaused} reviews while paused (p50 ${pauseLatency.p50.toFixed(1)} ms, p99 ${pauseLatency.p99.toFixed(1)} ms, max ${pauseLatency.max.toFixed(1)} ms); led again ${leadsAgainAfterMs} ms after SIGCONT; PlanFinished events per Instance: ${names.map((n) => finished.get(n) ?? 0).join(',')}`,
    );
    stopped = true;
    expect(await running.stop()).toBe(0);
  }, 300_000);
});

function kcCore(cluster: LocalCluster): k8s.CoreV1Api {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  return kc.makeApiClient(k8s.CoreV1Api);
}
