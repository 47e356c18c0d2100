// KUDO compatibility of what a plan renders and applies, on the node-less control plane
// (kudo-compat.md, apply-and-inventory.md "Removed APIs"): labels vs annotations on objects
// and pod templates, removed API versions converted and applied with a Warning Event once per
// run, kinds nothing serves failing the plan with a message naming template and kind, a custom
// resource applied in the step after its CRD, empty array parameters, plan entries for every
// plan, and the Ready condition recomputed from the Instance's workloads while no plan runs.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import type { Instance, Plan } from '../../../../src/kudo/api/types.ts';
import {
  createTestNamespace,
  kubeConfig,
  uniqueName,
  testCluster,
} from '../../../support/cluster.ts';
import { installKudoCrds, kudoObjects } from '../../../support/kudo.ts';
import { waitFor } from '../../../support/wait.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../../support/planwright-start.ts';
import {
  instanceObject,
  parallelPlan,
  phaseStatus,
  serialPlan,
} from '../../../support/kudo-objects.ts';

type Obj = Record<string, unknown>;

const yaml = (lines: string[]): string => `${lines.join('\n')}\n`;
const plan = (...steps: Array<[string, string[]]>): Plan =>
  serialPlan(steps.map(([name, tasks]) => ({ name, tasks })));

describe('KUDO compatibility of rendering and applying (bare control plane)', () => {
  let planwright: StartedPlanwright;
  let custom: k8s.CustomObjectsApi;
  let core: k8s.CoreV1Api;
  let apps: k8s.AppsV1Api;
  let ns: string;
  const group = `${uniqueName('compat').replace(/-/g, '')}.example.com`;

  const create = (plural: string, body: object): Promise<unknown> =>
    kudoObjects(custom).create(ns, plural, body);
  const getInstance = (name: string): Promise<Instance | undefined> =>
    kudoObjects(custom).getInstance(ns, name);
  const settled = (name: string, plan = 'deploy') =>
    waitFor(`${name} ${plan} terminal`, async () => {
      const ps = (await getInstance(name))?.status?.planStatus?.[plan];
      return ps?.status === 'COMPLETE' || ps?.status === 'FATAL_ERROR' ? ps : undefined;
    });
  const install = async (
    name: string,
    spec: Obj,
    parameters: Record<string, string> = {},
  ): Promise<void> => {
    await create('operatorversions', {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'OperatorVersion',
      metadata: { name: `${name}-1.0` },
      spec: { operator: { name: `${name}-op` }, version: '1.0', ...spec },
    });
    await create(
      'instances',
      instanceObject(name, `${name}-1.0`, {
        labels: { 'kudo.dev/operator': `${name}-op` },
        parameters,
      }),
    );
  };

  beforeAll(async () => {
    await installKudoCrds();
    const kc = kubeConfig();
    custom = kc.makeApiClient(k8s.CustomObjectsApi);
    core = kc.makeApiClient(k8s.CoreV1Api);
    apps = kc.makeApiClient(k8s.AppsV1Api);
    ns = await createTestNamespace('compat');
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [ns],
    });
  });

  afterAll(async () => {
    await planwright?.stop();
    await kubeConfig()
      .makeApiClient(k8s.ApiextensionsV1Api)
      .deleteCustomResourceDefinition({ name: `gadgets.${group}` })
      .catch(() => undefined);
    await kubeConfig()
      .makeApiClient(k8s.ApiextensionsV1Api)
      .deleteCustomResourceDefinition({ name: `widgets.${group}` })
      .catch(() => undefined);
  });

  it('labels heritage/instance/operator, plan annotations, pod templates without plan/phase/step; empty array parameters; an entry for every plan', async () => {
    await install('labels', {
      parameters: [{ name: 'EXTRA_ENV', 'value-type': 'array' }],
      templates: {
        'deploy.yaml': yaml([
          'apiVersion: apps/v1',
          'kind: StatefulSet',
          'metadata:',
          '  name: {{ .Name }}-sts',
          'spec:',
          '  serviceName: x',
          '  selector: {matchLabels: {app: x}}',
          '  template:',
          '    metadata: {labels: {app: x}}',
          '    spec:',
          '      containers:',
          '      - name: c',
          '        image: nginx',
          '        env: {{ if .Params.EXTRA_ENV }}{{ toYaml .Params.EXTRA_ENV | nindent 8 }}{{ else }}[]{{ end }}',
          '  volumeClaimTemplates:',
          '  - metadata: {name: data}',
          '    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}',
          '  updateStrategy: {type: OnDelete}',
        ]),
      },
      tasks: [{ name: 'app', kind: 'Apply', spec: { resources: ['deploy.yaml'] } }],
      plans: {
        deploy: plan(['one', ['app']]),
        backup: { phases: [{ name: 'b', steps: [{ name: 's1' }, { name: 's2' }] }] },
      },
    });
    const ps = await settled('labels');
    expect(`${ps.status} ${ps.message ?? ''}`).toBe('COMPLETE ');
    const instance = await getInstance('labels');
    expect(instance?.status?.planStatus?.['backup']).toEqual({
      name: 'backup',
      status: 'NEVER_RUN',
      phases: [phaseStatus('b', 'NEVER_RUN', ['s1', 's2'])],
    });
    const sts = await apps.readNamespacedStatefulSet({ name: 'labels-sts', namespace: ns });
    const owner = {
      heritage: 'kudo',
      'kudo.dev/instance': 'labels',
      'kudo.dev/operator': 'labels-op',
    };
    // KUDO's three owner labels, and Planwright's proof of ownership (the Instance's uid; never
    // on pod templates or claim templates, whose change would roll pods or be refused).
    expect(sts.metadata?.labels).toEqual({
      ...owner,
      'planwright.dev/instance-uid': instance?.metadata.uid ?? 'missing',
    });
    expect(sts.metadata?.annotations).toMatchObject({
      'kudo.dev/plan': 'deploy',
      'kudo.dev/phase': 'main',
      'kudo.dev/step': 'one',
      'kudo.dev/last-plan-execution-uid': instance?.spec?.planExecution?.uid ?? 'missing',
    });
    expect(sts.spec?.template.metadata?.labels).toEqual({ app: 'x', ...owner });
    expect(sts.spec?.template.metadata?.annotations).toEqual({
      'kudo.dev/operator-version': '1.0',
    });
    expect(sts.spec?.volumeClaimTemplates?.[0]?.metadata?.labels).toEqual(owner);
    expect(sts.spec?.template.spec?.containers[0]?.env).toBeUndefined();
  });

  it('removed API versions are converted, applied and reported once per run; a CR is applied the step after its CRD', async () => {
    const crd = yaml([
      'apiVersion: apiextensions.k8s.io/v1beta1',
      'kind: CustomResourceDefinition',
      'metadata:',
      `  name: widgets.${group}`,
      'spec:',
      `  group: ${group}`,
      '  version: v1',
      '  names: {plural: widgets, kind: Widget}',
      '  validation:',
      '    openAPIV3Schema:',
      '      properties:',
      '        spec:',
      '          properties:',
      '            size: {type: integer}',
    ]);
    await install('removed', {
      templates: {
        'crd.yaml': crd,
        'widget.yaml': yaml([
          `apiVersion: ${group}/v1`,
          'kind: Widget',
          'metadata: {name: w}',
          'spec: {size: 3, colour: blue, nested: {kept: true}}',
        ]),
        'pdb.yaml': yaml([
          'apiVersion: policy/v1beta1',
          'kind: PodDisruptionBudget',
          'metadata: {name: {{ .Name }}-pdb}',
          'spec:',
          '  selector: {matchLabels: {app: zk}}',
          '  maxUnavailable: 1',
        ]),
        'rbac.yaml': yaml([
          'apiVersion: rbac.authorization.k8s.io/v1beta1',
          'kind: Role',
          'metadata: {name: {{ .Name }}-role}',
          'rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]',
        ]),
        'ingress.yaml': yaml([
          'apiVersion: networking.k8s.io/v1beta1',
          'kind: Ingress',
          'metadata: {name: {{ .Name }}-ing}',
          'spec:',
          '  rules:',
          '  - http:',
          '      paths:',
          '      - path: /',
          '        backend: {serviceName: web, servicePort: 80}',
        ]),
      },
      tasks: [
        { name: 'crd', kind: 'Apply', spec: { resources: ['crd.yaml'] } },
        {
          name: 'rest',
          kind: 'Apply',
          spec: { resources: ['widget.yaml', 'pdb.yaml', 'rbac.yaml', 'ingress.yaml'] },
        },
      ],
      plans: { deploy: plan(['crd', ['crd']], ['rest', ['rest']]) },
    });
    const ps = await settled('removed');
    expect(`${ps.status} ${ps.message ?? ''}`).toBe('COMPLETE ');

    const pdb = await kubeConfig()
      .makeApiClient(k8s.PolicyV1Api)
      .readNamespacedPodDisruptionBudget({ name: 'removed-pdb', namespace: ns });
    expect(pdb.spec?.selector).toEqual({ matchLabels: { app: 'zk' } });
    expect(pdb.metadata?.labels?.['kudo.dev/instance']).toBe('removed');
    const ingress = await kubeConfig()
      .makeApiClient(k8s.NetworkingV1Api)
      .readNamespacedIngress({ name: 'removed-ing', namespace: ns });
    expect(ingress.spec?.rules?.[0]?.http?.paths[0]).toEqual({
      path: '/',
      pathType: 'ImplementationSpecific',
      backend: { service: { name: 'web', port: { number: 80 } } },
    });
    await kubeConfig()
      .makeApiClient(k8s.RbacAuthorizationV1Api)
      .readNamespacedRole({ name: 'removed-role', namespace: ns });
    // v1beta1 kept unknown fields; so does the converted CRD.
    const widget = (await custom.getNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: ns,
      plural: 'widgets',
      name: 'w',
    })) as { spec: Obj };
    expect(widget.spec).toEqual({ size: 3, colour: 'blue', nested: { kept: true } });

    const events = await core.listNamespacedEvent({
      namespace: ns,
      fieldSelector: 'involvedObject.name=removed,reason=ConvertedRemovedAPI',
    });
    const messages = events.items.map((e) => e.message ?? '').sort();
    expect(messages).toHaveLength(4);
    expect(events.items.every((e) => e.type === 'Warning' && (e.count ?? 1) === 1)).toBe(true);
    expect(messages.find((m) => m.startsWith('template crd.yaml:'))).toMatch(
      /uses apiextensions\.k8s\.io\/v1beta1 CustomResourceDefinition, .* applied it as apiextensions\.k8s\.io\/v1 /,
    );
    expect(messages.find((m) => m.startsWith('template pdb.yaml:'))).toContain(
      'uses policy/v1beta1 PodDisruptionBudget, which Kubernetes stopped serving in 1.25; applied it as policy/v1',
    );
  });

  it('a kind nothing serves is FATAL_ERROR naming the template, the kind and what to do', async () => {
    await install('unserved', {
      templates: {
        'cm.yaml': yaml(['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: ok}']),
        'psp.yaml': yaml([
          'apiVersion: policy/v1beta1',
          'kind: PodSecurityPolicy',
          'metadata: {name: {{ .Name }}-psp}',
          'spec: {}',
        ]),
      },
      tasks: [{ name: 'app', kind: 'Apply', spec: { resources: ['cm.yaml', 'psp.yaml'] } }],
      plans: { deploy: plan(['one', ['app']]) },
    });
    const ps = await settled('unserved');
    expect(ps.status).toBe('FATAL_ERROR');
    const step = ps.phases?.[0]?.steps?.[0];
    expect(step?.status).toBe('FATAL_ERROR');
    expect(step?.message).toContain(
      'template psp.yaml: PodSecurityPolicy unserved-psp is of kind PodSecurityPolicy (apiVersion policy/v1beta1), which no API version of this cluster serves',
    );
    expect(step?.message).toContain("change the template's apiVersion");

    await install('typo', {
      templates: {
        'd.yaml': yaml(['apiVersion: apps/v1', 'kind: Deploymnet', 'metadata: {name: d}']),
        'svc.yaml': yaml([
          'apiVersion: v2',
          'kind: Service',
          'metadata: {name: s}',
          'spec: {ports: [{port: 80}]}',
        ]),
      },
      tasks: [
        { name: 'd', kind: 'Apply', spec: { resources: ['d.yaml'] } },
        { name: 's', kind: 'Apply', spec: { resources: ['svc.yaml'] } },
      ],
      plans: {
        deploy: parallelPlan([
          { name: 'a', tasks: ['d'] },
          { name: 'b', tasks: ['s'] },
        ]),
      },
    });
    const typo = await settled('typo');
    expect(typo.status).toBe('FATAL_ERROR');
    const [a, b] = typo.phases?.[0]?.steps ?? [];
    expect(a?.message).toContain('template d.yaml: Deploymnet');
    expect(b?.message).toContain('this cluster serves Service only as v1');
  });

  it('a Toggle task on an undefined or non-boolean parameter is FATAL_ERROR as in KUDO', async () => {
    await install('toggle', {
      parameters: [{ name: 'ENABLED', default: 'maybe' }],
      templates: { 'cm.yaml': yaml(['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: t}']) },
      tasks: [
        { name: 'missing', kind: 'Toggle', spec: { parameter: 'NOPE', resources: ['cm.yaml'] } },
        { name: 'bad', kind: 'Toggle', spec: { parameter: 'ENABLED', resources: ['cm.yaml'] } },
      ],
      plans: {
        deploy: parallelPlan([
          { name: 'a', tasks: ['missing'] },
          { name: 'b', tasks: ['bad'] },
        ]),
      },
    });
    const ps = await settled('toggle');
    expect(ps.status).toBe('FATAL_ERROR');
    const [a, b] = ps.phases?.[0]?.steps ?? [];
    expect(a?.message).toContain('task missing: no value for parameter NOPE found');
    expect(b?.message).toContain('task bad: parameter ENABLED must be true or false');
  });

  it('Ready follows the Instance’s workloads while no plan runs, naming what is not ready', async () => {
    await install('ready', {
      templates: { 'cm.yaml': yaml(['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: r}']) },
      tasks: [{ name: 'app', kind: 'Apply', spec: { resources: ['cm.yaml'] } }],
      plans: { deploy: plan(['one', ['app']]) },
    });
    expect((await settled('ready')).status).toBe('COMPLETE');
    const ready = async () =>
      (await getInstance('ready'))?.status?.conditions?.find((c) => c.type === 'Ready');
    expect(await ready()).toMatchObject({ status: 'True', reason: 'ResourcesReady' });
    const conditions = (await getInstance('ready'))?.status?.conditions ?? [];
    expect(conditions.map((c) => c.type)).toEqual(['Ready']);

    // Nothing schedules pods on this control plane: a pod labelled for the Instance stays
    // Pending, which the Instance must report.
    await core
      .createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'default' } } })
      .catch(() => undefined);
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: {
          name: 'worker',
          labels: { heritage: 'kudo', 'kudo.dev/instance': 'ready', app: 'w' },
        },
        spec: {
          automountServiceAccountToken: false,
          containers: [{ name: 'c', image: 'nginx' }],
        },
      },
    });
    const notReady = await waitFor('Ready=False', async () => {
      const c = await ready();
      return c?.status === 'False' ? c : undefined;
    });
    expect(notReady).toMatchObject({ reason: 'ResourceNotReady' });
    expect(notReady.message).toContain(`Pod ${ns}/worker is not scheduled to a node yet`);
    await core.deleteNamespacedPod({ namespace: ns, name: 'worker', gracePeriodSeconds: 0 });
    const back = await waitFor('Ready=True again', async () => {
      const c = await ready();
      return c?.status === 'True' ? c : undefined;
    });
    expect(back.reason).toBe('ResourcesReady');
  });
});
