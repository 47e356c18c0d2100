// What drift keeps in memory, seen through `planwright_drift_baselines`: one baseline per
// applied object of an Instance with drift on, none for Instances with drift off (the default),
// and an Instance's baselines go when its drift is turned off. The compact baseline still
// names the field an edit changed (home cluster, real apiserver normalisation). And what the
// caches of applied kinds hold, seen through `planwright_cache_objects`: the objects Planwright
// applied (`heritage=kudo`), not every object of the kind in the namespaces it watches.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { createTestNamespace, kubeConfig, testCluster } from '../../../support/cluster.ts';
import { installKudoCrds, kudoObjects, mergePatchInstance } from '../../../support/kudo.ts';
import { operatorVersionObject, serialPlan } from '../../../support/kudo-objects.ts';
import {
  metricSum,
  startPlanwrightCli,
  type StartedPlanwright,
} from '../../../support/planwright-start.ts';
import { waitFor } from '../../../support/wait.ts';

const OV = operatorVersionObject('drift-app', {
  version: '1.0',
  templates: {
    'cm.yaml': [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: {{ .Name }}-cm',
      'data:',
      '  value: "v1"',
      '  other: "o"',
      '',
    ].join('\n'),
    'limits.yaml': [
      'apiVersion: v1',
      'kind: LimitRange',
      'metadata:',
      '  name: {{ .Name }}-limits',
      'spec:',
      '  limits:',
      '    - type: Container',
      '      default: { cpu: 1000m }',
      '',
    ].join('\n'),
  },
  tasks: [{ name: 'app', kind: 'Apply', spec: { resources: ['cm.yaml', 'limits.yaml'] } }],
  plans: { deploy: serialPlan([{ name: 's', tasks: ['app'] }]) },
});

describe('drift baselines', () => {
  let core: k8s.CoreV1Api;
  let custom: k8s.CustomObjectsApi;
  let planwright: StartedPlanwright;
  let ns: string;

  const baselines = async (): Promise<number> => {
    return metricSum(await planwright.metrics(), 'planwright_drift_baselines');
  };
  const complete = (name: string) =>
    waitFor(`${name} COMPLETE`, async () => {
      const i = await kudoObjects(custom).getInstance(ns, name);
      return i?.status?.planStatus?.['deploy']?.status === 'COMPLETE';
    });
  const instance = (name: string, annotations: Record<string, string>) => ({
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'Instance',
    metadata: { name, annotations },
    spec: { operatorVersion: { name: 'drift-app' } },
  });

  beforeAll(async () => {
    await installKudoCrds();
    const kc = kubeConfig();
    core = kc.makeApiClient(k8s.CoreV1Api);
    custom = kc.makeApiClient(k8s.CustomObjectsApi);
    ns = await createTestNamespace('drift-mem');
    await kudoObjects(custom).create(ns, 'operatorversions', OV);
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [ns],
    });
  });

  afterAll(async () => {
    await planwright?.stop();
  });

  it('keeps nothing with drift off, one per object with it on, and names the edited field', async () => {
    await kudoObjects(custom).create(ns, 'instances', instance('off', {}));
    await complete('off');
    expect(await baselines()).toBe(0);

    await kudoObjects(custom).create(
      ns,
      'instances',
      instance('on', { 'planwright.dev/drift': 'report' }),
    );
    await complete('on');
    expect(await baselines()).toBe(2);

    // The server answered cpu "1" for the applied "1000m": that is not drift; an edit is.
    await core.patchNamespacedConfigMap(
      { name: 'on-cm', namespace: ns, body: { data: { value: 'edited', other: 'o' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    const drifted = await waitFor('Drifted condition', async () =>
      (await kudoObjects(custom).getInstance(ns, 'on'))?.status?.conditions?.find(
        (c) => c.type === 'Drifted' && c.status === 'True',
      ),
    );
    expect(drifted.message).toBe(`ConfigMap ${ns}/on-cm: data.value`);

    await mergePatchInstance(custom, ns, 'on', {
      metadata: { annotations: { 'planwright.dev/drift': null } },
    });
    await waitFor('baselines dropped', async () => (await baselines()) === 0);
  });

  it("keeps only applied objects in the caches of applied kinds, not the namespace's others", async () => {
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'bystander' }, data: { owner: 'someone else' } },
    });
    // Drift on: the Instance holds the cache of every kind it applied.
    await kudoObjects(custom).create(
      ns,
      'instances',
      instance('kept', { 'planwright.dev/drift': 'report' }),
    );
    await complete('kept');
    const applied = (
      await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'heritage=kudo' })
    ).items.length;
    const all = (await core.listNamespacedConfigMap({ namespace: ns })).items.length;
    expect(all).toBeGreaterThan(applied);
    const held = async (view: string): Promise<number> =>
      metricSum(await planwright.metrics(), 'planwright_cache_objects', {
        gvk: 'v1/ConfigMap',
        view,
      });
    await waitFor(
      'the ConfigMap cache to hold every applied ConfigMap',
      async () => (await held('heritage=kudo|')) === applied,
    );
    // No cache of every ConfigMap: the bystander is in none.
    expect(
      (await planwright.metrics()).match(
        /planwright_cache_objects\{[^}]*gvk="v1\/ConfigMap"[^}]*view=""/,
      ),
    ).toBeNull();
  });
});
