// Disruptive: a dedicated control plane and Planwright as a child process (the real
// entry point, `src/main.ts start --kubeconfig`), killed with SIGKILL at random moments of
// multi-step plans. Afterwards every plan finishes once, nothing is lost, a change made while
// the manager was down is executed, and with everything COMPLETE a restart writes nothing.
// No webhook is registered here (the child dies repeatedly, and failurePolicy Fail would block
// our writes): the test schedules runs the way the webhook would, by setting
// spec.planExecution {planName, uid}.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { installCrds } from '../../../../src/cli/install.ts';
import { KubeClient } from '../../../../src/kube/index.ts';
import type { Instance, OperatorVersion } from '../../../../src/kudo/api/types.ts';
import { startLocalCluster, type LocalCluster } from '../../../../src/localcluster/index.ts';
import { testCluster } from '../../../support/cluster.ts';
import { mergePatchInstance } from '../../../support/kudo.ts';
import {
  apiserverWriteCounts,
  startManagerProcess,
  waitForControllerStarted,
  waitForManagerCaughtUp,
  type ManagerProcess,
} from '../../../support/manager-process.ts';
import { waitFor } from '../../../support/wait.ts';
import { applyStepsOperatorVersion } from '../../../support/kudo-objects.ts';

const NS = 'default';
const STEPS = 8;
const INSTANCES = 12;
const IDLE_INSTANCES = 100;
/** The kinds Planwright writes here, whose write counts must not move when it is idle. */
const WRITTEN = ['instances', 'configmaps', 'events', 'operatorversions'];

function operatorVersion(name: string, steps: number): OperatorVersion {
  const templates: Record<string, string> = {};
  for (let i = 0; i < steps; i++) {
    templates[`cm${i}.yaml`] =
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-cm${i}\ndata:\n  value: "{{ .Params.VALUE }}"\n  plan: {{ .PlanName }}\n`;
  }
  return applyStepsOperatorVersion(name, templates, {
    namespace: NS,
    parameters: [{ name: 'VALUE', default: 'one' }],
  });
}

describe('restart safety and quiet when idle (dedicated control plane, child process)', () => {
  let cluster: LocalCluster;
  let client: KubeClient;
  let custom: k8s.CustomObjectsApi;
  let core: k8s.CoreV1Api;
  const children: ManagerProcess[] = [];

  beforeAll(async () => {
    cluster = await startLocalCluster({ binaries: testCluster().binaries });
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(cluster.kubeconfigPath);
    client = new KubeClient(kc);
    custom = kc.makeApiClient(k8s.CustomObjectsApi);
    core = kc.makeApiClient(k8s.CoreV1Api);
    await installCrds(client);
  });

  afterAll(async () => {
    for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
    client?.close();
    await cluster?.stop();
  });

  const instances = async (): Promise<Instance[]> =>
    (
      (await custom.listNamespacedCustomObject({
        group: 'kudo.dev',
        version: 'v1beta1',
        namespace: NS,
        plural: 'instances',
      })) as { items: Instance[] }
    ).items;

  const createInstance = (
    name: string,
    ov: string,
    params: Record<string, string> = {},
  ): Promise<unknown> =>
    custom.createNamespacedCustomObject({
      group: 'kudo.dev',
      version: 'v1beta1',
      namespace: NS,
      plural: 'instances',
      body: {
        apiVersion: 'kudo.dev/v1beta1',
        kind: 'Instance',
        metadata: { name, namespace: NS, labels: { 'kudo.dev/operator': ov } },
        spec: {
          operatorVersion: { name: ov },
          parameters: params,
          planExecution: { planName: 'deploy', uid: randomUUID() },
        },
      },
    });

  const allComplete = async (prefix: string, count: number): Promise<boolean> => {
    const list = (await instances()).filter((i) => i.metadata.name?.startsWith(prefix));
    return (
      list.length === count &&
      list.every((i) => {
        const pe = i.spec?.planExecution;
        const ps = pe?.planName ? i.status?.planStatus?.[pe.planName] : undefined;
        return ps?.uid === pe?.uid && ps?.status === 'COMPLETE';
      })
    );
  };

  it('SIGKILLed at random moments, every plan finishes once with nothing lost; a change made while down runs', async () => {
    await client.request({
      method: 'POST',
      path: `/apis/kudo.dev/v1beta1/namespaces/${NS}/operatorversions`,
      body: operatorVersion('multi', STEPS),
    });
    for (let i = 0; i < INSTANCES; i++) await createInstance(`r${i}`, 'multi');
    for (let round = 0; round < 4; round++) {
      const child = await startManagerProcess(cluster.kubeconfigPath);
      children.push(child);
      await waitForControllerStarted(child);
      // No webhook registration on this cluster: nothing tells installations apart, so there
      // is no lease duration to wait before the controllers run (src/cli/registration-gate.ts).
      expect(child.log).toContain('no webhook registration');
      expect(child.log).not.toContain('waiting a lease duration');
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 400)));
      child.proc.kill('SIGKILL');
      await child.exited;
      if (round === 2) {
        // While the manager is down: change a parameter and schedule a new run of deploy.
        await mergePatchInstance(custom, NS, 'r0', {
          spec: {
            parameters: { VALUE: 'two' },
            planExecution: { planName: 'deploy', uid: 'changed-while-down' },
          },
        });
      }
    }
    const final = await startManagerProcess(cluster.kubeconfigPath);
    children.push(final);
    // Wait for it to be up even if the plans are already COMPLETE: the SIGTERM below tests a
    // graceful stop, not a signal landing before the process has installed its handlers.
    await waitForControllerStarted(final);
    await waitFor('every multi-step plan to be COMPLETE', () => allComplete('r', INSTANCES), {
      timeoutMs: 120_000,
      intervalMs: 300,
    });
    const list = await instances();
    const r0 = list.find((i) => i.metadata.name === 'r0');
    expect(r0?.status?.planStatus?.['deploy']?.uid).toBe('changed-while-down');
    for (const inst of list.filter((i) => i.metadata.name?.startsWith('r'))) {
      const steps = inst.status?.planStatus?.['deploy']?.phases?.[0]?.steps ?? [];
      expect(steps.map((s) => s.status)).toEqual(Array(STEPS).fill('COMPLETE'));
      // Every object of every step exists with the values of the last run, and is recorded.
      for (let s = 0; s < STEPS; s++) {
        const cm = await core.readNamespacedConfigMap({
          name: `${inst.metadata.name ?? ''}-cm${s}`,
          namespace: NS,
        });
        expect(cm.data?.['value']).toBe(inst.metadata.name === 'r0' ? 'two' : 'one');
      }
      expect(inst.status?.inventory).toHaveLength(STEPS);
      // Finished once: at most one PlanFinished per run (an Event may be lost to a SIGKILL, never doubled).
      const events = await core.listNamespacedEvent({
        namespace: NS,
        fieldSelector: `involvedObject.name=${inst.metadata.name ?? ''},reason=PlanFinished`,
      });
      const total = events.items.reduce((n, e) => n + (e.count ?? 1), 0);
      expect(total).toBeLessThanOrEqual(inst.metadata.name === 'r0' ? 2 : 1);
    }
    final.proc.kill('SIGTERM');
    expect(await final.exited).toBe(0);
  }, 300_000);

  it('with 100 COMPLETE Instances, a manager restart writes nothing', async () => {
    await client.request({
      method: 'POST',
      path: `/apis/kudo.dev/v1beta1/namespaces/${NS}/operatorversions`,
      body: operatorVersion('idle', 1),
    });
    for (let i = 0; i < IDLE_INSTANCES; i++) await createInstance(`idle${i}`, 'idle');
    const first = await startManagerProcess(cluster.kubeconfigPath);
    children.push(first);
    await waitFor('100 Instances COMPLETE', () => allComplete('idle', IDLE_INSTANCES), {
      timeoutMs: 120_000,
      intervalMs: 300,
    });
    first.proc.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const before = await apiserverWriteCounts(cluster.kubeconfigPath, WRITTEN);
    const second = await startManagerProcess(cluster.kubeconfigPath);
    children.push(second);
    // Wait until the restarted manager has reconciled every Instance (its own metrics say so).
    await waitForManagerCaughtUp(second, IDLE_INSTANCES + INSTANCES, 120_000);
    const after = await apiserverWriteCounts(cluster.kubeconfigPath, WRITTEN);
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    const diff = Object.fromEntries(
      Object.entries(after)
        .filter(([k, v]) => v !== (before[k] ?? 0))
        .map(([k, v]) => [k, v - (before[k] ?? 0)]),
    );
    expect(diff).toEqual({});
  }, 300_000);
});
