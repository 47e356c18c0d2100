// kudo.dev/dependencies-hash through the real engine and API server: a Deployment applied in
// the step after its ConfigMap gets the hash from the digest the inventory recorded; a
// Secret created by someone else comes from the live object (KUDO's last-applied form when
// present); a missing one counts as zeros; an update of the ConfigMap's parameter changes the
// pod template's hash (which rolls the pods), a change elsewhere does not.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import type { ApplyObject } from '../../../../src/kube/apply.ts';
import {
  ANNOTATION_DEPENDENCIES_HASH,
  ANNOTATION_LAST_APPLIED,
  ZERO_DIGEST,
  combineDigests,
  objectDigest,
} from '../../../../src/kudo/tasks/dependencies-hash/index.ts';
import { createTestNamespace, kubeConfig, testCluster } from '../../../support/cluster.ts';
import { installKudoCrds, kudoObjects, mergePatchInstance } from '../../../support/kudo.ts';
import { waitFor } from '../../../support/wait.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../../support/planwright-start.ts';
import {
  instanceObject,
  operatorVersionObject,
  serialPlan,
} from '../../../support/kudo-objects.ts';

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: {{ .Params.REPLICAS }}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      imagePullSecrets: [{name: registry}]
      containers: [{name: web, image: nginx}]
      volumes:
      - {name: config, configMap: {name: web-config}}
      - {name: creds, secret: {secretName: external}}
`;

describe('kudo.dev/dependencies-hash on applied pod templates', () => {
  const kc = kubeConfig();
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  let planwright: StartedPlanwright;
  let ns = '';

  const templateAnnotations = async (): Promise<Record<string, string>> =>
    (await apps.readNamespacedDeployment({ name: 'web', namespace: ns })).spec?.template.metadata
      ?.annotations ?? {};

  beforeAll(async () => {
    await installKudoCrds();
    ns = await createTestNamespace('dephash');
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [ns],
    });
  });

  afterAll(async () => {
    await planwright?.stop();
  });

  it('comes from the inventory digest, the live object and zeros, and follows the ConfigMap', async () => {
    const applied = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'external', labels: { owner: 'someone' } },
      stringData: { password: 'p' },
    };
    // Applied by "KUDO" earlier: the live Secret differs (data, type), its annotation does not.
    await core.createNamespacedSecret({
      namespace: ns,
      body: {
        ...applied,
        metadata: {
          ...applied.metadata,
          annotations: { [ANNOTATION_LAST_APPLIED]: JSON.stringify(applied) },
        },
      },
    });
    const { create, getInstance } = kudoObjects(custom);
    await create(
      ns,
      'operatorversions',
      operatorVersionObject('hashed-1.0.0', {
        operator: { name: 'hashed' },
        version: '1.0.0',
        parameters: [
          { name: 'MESSAGE', default: 'hello' },
          { name: 'REPLICAS', default: '1' },
        ],
        templates: {
          'config.yaml':
            'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\ndata:\n  message: {{ .Params.MESSAGE | quote }}\n',
          'deployment.yaml': DEPLOYMENT,
        },
        tasks: [
          { name: 'config', kind: 'Apply', spec: { resources: ['config.yaml'] } },
          { name: 'app', kind: 'Apply', spec: { resources: ['deployment.yaml'] } },
        ],
        plans: {
          deploy: serialPlan([
            { name: 'config', tasks: ['config'] },
            { name: 'app', tasks: ['app'] },
          ]),
        },
      }),
    );
    await create(
      ns,
      'instances',
      instanceObject('hashed', 'hashed-1.0.0', { labels: { 'kudo.dev/operator': 'hashed' } }),
    );
    const first = await waitFor('the Deployment with its hash', async () => {
      const empty: Record<string, string> = {};
      const a = await templateAnnotations().catch(() => empty);
      return a[ANNOTATION_DEPENDENCIES_HASH];
    });

    // The ConfigMap's digest is in the inventory, and equals the live ConfigMap's (the
    // cleaned form drops everything the server adds).
    const liveConfig = (await core.readNamespacedConfigMap({
      name: 'web-config',
      namespace: ns,
    })) as ApplyObject;
    const inventory = (await getInstance(ns, 'hashed'))?.status?.inventory ?? [];
    const entry = inventory.find((e) => e['kind'] === 'ConfigMap' && e['name'] === 'web-config');
    expect(entry?.['digest']).toBe(objectDigest(liveConfig));
    expect(inventory.find((e) => e['kind'] === 'Deployment')?.['digest']).toBeUndefined();
    // ConfigMap web-config, Secret external (last-applied form), Secret registry (missing).
    expect(first).toBe(
      combineDigests([objectDigest(liveConfig), objectDigest(applied), ZERO_DIGEST]),
    );
    expect((await templateAnnotations())['kudo.dev/operator-version']).toBe('1.0.0');

    // A new message: the ConfigMap changes, so does the hash on the pod template.
    await mergePatchInstance(custom, ns, 'hashed', { spec: { parameters: { MESSAGE: 'hi' } } });
    const second = await waitFor('a new hash', async () => {
      const h = (await templateAnnotations())[ANNOTATION_DEPENDENCIES_HASH];
      return h !== first ? h : undefined;
    });
    const changed = (await core.readNamespacedConfigMap({
      name: 'web-config',
      namespace: ns,
    })) as ApplyObject;
    expect(changed.data).toEqual({ message: 'hi' });
    expect(second).toBe(
      combineDigests([objectDigest(changed), objectDigest(applied), ZERO_DIGEST]),
    );

    // Replicas only: the Deployment changes, its dependencies and the hash do not.
    await mergePatchInstance(custom, ns, 'hashed', { spec: { parameters: { REPLICAS: '2' } } });
    await waitFor(
      'replicas 2',
      async () =>
        (await apps.readNamespacedDeployment({ name: 'web', namespace: ns })).spec?.replicas === 2,
    );
    expect((await templateAnnotations())[ANNOTATION_DEPENDENCIES_HASH]).toBe(second);
  });
});
