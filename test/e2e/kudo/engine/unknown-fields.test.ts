// A package written for an old cluster (test/fixtures/packages/old-fields: `initializers` in a
// Deployment's pod template, `topologyKeys` in a Service, a custom resource field its CRD does
// not declare) on the shared workloads cluster, with Planwright started as users start it:
// server-side apply would refuse every one of those objects, so Planwright drops the fields the
// cluster's schema does not know before applying. The deploy plan reaches COMPLETE on the
// controllers' own status, a Warning Event names each dropped field, and the fields the schema
// knows — the Widget's size and its preserved settings, the Service's port, the Deployment's
// minReadySeconds and labels — are applied.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { join } from 'node:path';
import { loadPackage } from '../../../../src/kudo/package/index.ts';
import { repositoryRoot } from '../../../../src/localcluster/index.ts';
import { createTestNamespace, kubeConfig, testCluster } from '../../../support/cluster.ts';
import { deployTerminal, installKudoCrds, kudoObjects } from '../../../support/kudo.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../../support/planwright-start.ts';
import { waitFor } from '../../../support/wait.ts';

const PACKAGE = join(repositoryRoot(), 'test', 'fixtures', 'packages', 'old-fields');

describe('a package carrying fields this cluster does not know', () => {
  const kc = kubeConfig();
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const objects = kudoObjects(custom);
  let planwright: StartedPlanwright | undefined;
  let ns = '';

  beforeAll(async () => {
    await installKudoCrds();
    ns = await createTestNamespace('old-fields');
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: ns,
    });
  });

  afterAll(async () => {
    await planwright?.stop();
    // The package's CRD is cluster-scoped: it outlives the test's namespace.
    await kc
      .makeApiClient(k8s.ApiextensionsV1Api)
      .deleteCustomResourceDefinition({ name: 'widgets.old-fields.planwright.dev' })
      .catch(() => undefined);
  });

  it('reaches COMPLETE, names every dropped field, and applies every known one', async () => {
    const pkg = await loadPackage(PACKAGE, { namespace: ns });
    await objects.create(ns, 'operators', pkg.operator);
    await objects.create(ns, 'operatorversions', pkg.operatorVersion);
    await objects.create(ns, 'instances', pkg.instance);
    const name = pkg.instance.metadata.name ?? '';
    const plan = await deployTerminal(objects, { namespace: ns, name });
    expect(`${plan.status} ${plan.message ?? ''}`).toBe('COMPLETE ');

    const events = await waitFor('three DroppedUnknownFields Events', async () => {
      const list = await core.listNamespacedEvent({
        namespace: ns,
        fieldSelector: `involvedObject.name=${name},reason=DroppedUnknownFields`,
      });
      const messages = list.items.filter((e) => e.type === 'Warning').map((e) => e.message ?? '');
      return messages.length >= 3 ? messages.sort() : undefined;
    });
    expect(events).toEqual([
      `template deployment.yaml: Deployment ${ns}/${name}: this cluster's schema of apps/v1 Deployment has no field spec.template.metadata.initializers; applied without it. Remove it from the package`,
      `template service.yaml: Service ${ns}/${name}: this cluster's schema of v1 Service has no field spec.topologyKeys; applied without it. Remove it from the package`,
      `template widget.yaml: Widget ${ns}/${name}: this cluster's schema of old-fields.planwright.dev/v1 Widget has no field spec.colour; applied without it. Remove it from the package`,
    ]);

    const deployment = await apps.readNamespacedDeployment({ namespace: ns, name });
    expect(deployment.spec?.minReadySeconds).toBe(1);
    expect(deployment.spec?.template.metadata?.labels?.['app']).toBe(name);
    expect(deployment.status?.readyReplicas).toBe(1);
    const service = await core.readNamespacedService({ namespace: ns, name });
    expect(service.spec?.ports?.map((p) => [p.port, p.targetPort])).toEqual([[80, 8080]]);
    const widget = (await custom.getNamespacedCustomObject({
      group: 'old-fields.planwright.dev',
      version: 'v1',
      namespace: ns,
      plural: 'widgets',
      name,
    })) as { spec: Record<string, unknown> };
    expect(widget.spec).toEqual({ size: 3, settings: { anything: 'goes' } });
  }, 300_000);
});
