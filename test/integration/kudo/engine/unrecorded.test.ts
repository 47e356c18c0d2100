// Restart safety of the one-write plan: owned objects are applied before their inventory
// record is written (it rides on the COMPLETE write). Planwright (`planwright start`, against
// the shared apiserver) is stopped after it applied a plan's three ConfigMaps and before that
// write — a validating webhook of this test refuses the Instance's status writes, so the record
// never reaches the apiserver. While no engine runs, a parameter change schedules a new run
// that no longer renders one of the ConfigMaps. A new engine must find and prune it, and the
// Instance reach COMPLETE with only the objects it renders now in its inventory.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { KubeClient } from '../../../../src/kube/index.ts';
import type { Instance } from '../../../../src/kudo/api/types.ts';
import { allow, denyForbidden, StaticCertificateSource } from '../../../../src/server/index.ts';
import { loopbackWebhookServer } from '../../../support/admission.ts';
import {
  createTestNamespace,
  kubeConfig,
  testCluster,
  uniqueName,
} from '../../../support/cluster.ts';
import { capturingLogger } from '../../../support/https.ts';
import { installKudoCrds, kudoObjects, mergePatchInstance } from '../../../support/kudo.ts';
import {
  createKudoObject,
  instanceObject,
  operatorVersionObject,
  serialPlan,
} from '../../../support/kudo-objects.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../../support/planwright-start.ts';
import { waitFor } from '../../../support/wait.ts';

const cm = (i: number): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-${i}\ndata:\n  v: "{{ .Params.VALUE }}"\n`;

describe('objects applied by a run whose record never reached the apiserver', () => {
  const stop = new AbortController();
  const kc = kubeConfig();
  const client = new KubeClient(kc);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const hooks = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
  const hookName = uniqueName('pw-hold-status');
  const engines: StartedPlanwright[] = [];
  let ns: string;
  /** While true, the test's webhook refuses status writes of Instances in `ns`. */
  let holding = true;
  const refused: string[] = [];

  beforeAll(async () => {
    await installKudoCrds();
    ns = await createTestNamespace('unrecorded');
    const loopback = StaticCertificateSource.forLoopback('unrecorded-test');
    const server = loopbackWebhookServer(loopback.source, capturingLogger().logger);
    server.registerValidating('instance-status', (request) => {
      const name = (request.object?.['metadata'] as { name?: string } | undefined)?.name ?? '';
      if (!holding || request.namespace !== ns) return Promise.resolve(allow());
      refused.push(name);
      return Promise.resolve(denyForbidden('status writes are held by the test'));
    });
    const { port } = await server.listen(stop.signal);
    await hooks.createValidatingWebhookConfiguration({
      body: {
        metadata: { name: hookName },
        webhooks: [
          {
            name: 'hold-status.unrecorded-test.planwright.dev',
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            failurePolicy: 'Fail',
            timeoutSeconds: 5,
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
            rules: [
              {
                apiGroups: ['kudo.dev'],
                apiVersions: ['v1beta1'],
                resources: ['instances/status'],
                operations: ['UPDATE'],
                scope: 'Namespaced',
              },
            ],
            clientConfig: {
              url: `https://127.0.0.1:${port}/validate/instance-status`,
              caBundle: Buffer.from(loopback.caPem).toString('base64'),
            },
          },
        ],
      },
    });
    // Active once a status write of a probe Instance is refused.
    await createKudoObject(client, ns, 'instances', instanceObject('probe', 'none'));
    await waitFor('the holding webhook to refuse status writes', async () => {
      const probe = await client.request<Instance>({
        path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances/probe`,
      });
      try {
        await client.request({
          method: 'PUT',
          path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances/probe/status`,
          body: { ...probe, status: { conditions: [] } },
        });
        return false;
      } catch (err) {
        return /held by the test/.test(String(err));
      }
    });
  });

  afterAll(async () => {
    for (const engine of engines) await engine.stop().catch(() => undefined);
    await hooks.deleteValidatingWebhookConfiguration({ name: hookName }).catch(() => undefined);
    stop.abort();
    client.close();
  });

  const configMap = (name: string): Promise<k8s.V1ConfigMap | undefined> =>
    core.readNamespacedConfigMap({ name, namespace: ns }).catch(() => undefined);

  it('are found and pruned by the next run, which no longer renders one of them', async () => {
    await createKudoObject(
      client,
      ns,
      'operatorversions',
      operatorVersionObject('three', {
        version: '1.0',
        parameters: [
          { name: 'VALUE', default: 'one' },
          { name: 'THIRD', default: 'yes' },
        ],
        templates: {
          'cm0.yaml': cm(0),
          'cm1.yaml': cm(1),
          'cm2.yaml': `{{ if eq .Params.THIRD "yes" }}${cm(2)}{{ end }}`,
        },
        tasks: [
          { name: 'all', kind: 'Apply', spec: { resources: ['cm0.yaml', 'cm1.yaml', 'cm2.yaml'] } },
        ],
        plans: { deploy: serialPlan([{ name: 'all', tasks: ['all'] }]) },
      }),
    );
    // Created while no Planwright runs: the run is scheduled as its webhook would, by spec.planExecution.
    await createKudoObject(
      client,
      ns,
      'instances',
      instanceObject('app', 'three', { planExecution: { planName: 'deploy', uid: 'first' } }),
    );

    const first = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [ns],
    });
    engines.push(first);
    await waitFor('the three ConfigMaps applied and the COMPLETE write refused', async () => {
      const all = await Promise.all([0, 1, 2].map((i) => configMap(`app-${i}`)));
      return all.every((c) => c !== undefined) && refused.includes('app');
    });
    await first.stop(); // the engine dies before its record reached the apiserver
    const objects = kudoObjects(custom);
    const held = await objects.getInstance(ns, 'app');
    expect(held?.status?.inventory ?? []).toEqual([]);
    expect(held?.status?.planStatus?.['deploy']?.status).toBeUndefined();

    holding = false;
    await mergePatchInstance(custom, ns, 'app', {
      spec: {
        parameters: { THIRD: 'no', VALUE: 'two' },
        planExecution: { planName: 'deploy', uid: 'second' },
      },
    });
    const second = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [ns],
    });
    engines.push(second);
    const done = await waitFor('the second run COMPLETE', async () => {
      const app = await objects.getInstance(ns, 'app');
      const ps = app?.status?.planStatus?.['deploy'];
      return ps?.uid === 'second' && ps.status === 'COMPLETE' ? app : undefined;
    });
    await waitFor('app-2 pruned', async () => (await configMap('app-2')) === undefined);
    expect((await configMap('app-0'))?.data?.['v']).toBe('two');
    expect((await configMap('app-1'))?.data?.['v']).toBe('two');
    expect((done.status?.inventory ?? []).map((e) => e['name']).sort()).toEqual(['app-0', 'app-1']);
    expect(done.metadata.finalizers).toBeUndefined();
    expect(second.log()).toContain(
      'found an object a run applied without its record reaching the API server',
    );
    await second.stop();
  });
});
