import { describe, expect, it } from '@jest/globals';
import { isUnchanged, normalizeForCompare } from '../../../../src/kube/apply.ts';
import type { Instance, OperatorVersion } from '../../../../src/kudo/api/types.ts';
import {
  RenderError,
  TemplateCache,
  decorate,
  ownedByInstance,
  renderObjects,
  templateParams,
  templateVariables,
} from '../../../../src/kudo/render/index.ts';

const ov: OperatorVersion = {
  metadata: { name: 'op-1.0', namespace: 'default', uid: 'ov1', resourceVersion: '1' },
  spec: {
    operator: { name: 'op' },
    version: '1.0',
    appVersion: '2.3',
    parameters: [
      { name: 'REPLICAS', default: '3' },
      { name: 'LIST', default: '[a, b]', 'value-type': 'array' },
      { name: 'EMPTY' },
    ],
    templates: {
      'two.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-a\ndata:\n  r: "{{ .Params.REPLICAS }}"\n  first: {{ index .Params.LIST 0 }}\n  plan: {{ .PlanName }}/{{ .PhaseName }}/{{ .StepName }}\n---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-b\n',
      'bad.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  v: {{ .Params.NOPE }}\n',
      'unparsable.yaml': 'line one\n{{ if }}\n',
      'notyaml.yaml': 'apiVersion: v1\nkind: [\n',
    },
  },
};
const instance: Instance = {
  metadata: { name: 'inst', namespace: 'ns1', uid: 'i1' },
  spec: { operatorVersion: { name: 'op-1.0' }, parameters: { REPLICAS: '5' } },
};
const at = { plan: 'deploy', phase: 'main', step: 'everything' };
const d = {
  instance,
  operatorName: 'op',
  operatorVersion: '1.0',
  at: { ...at, planUid: 'run-1' },
  namespaced: true,
};

describe('render', () => {
  it('renders multi-document templates with KUDO variables; scalars stay strings, arrays parse', () => {
    const params = templateParams(instance, ov);
    expect({ ...params }).toEqual({ REPLICAS: '5', LIST: ['a', 'b'], EMPTY: '' });
    const objs = renderObjects(
      new TemplateCache(),
      ov,
      'two.yaml',
      templateVariables(instance, ov, at, params),
    );
    expect(objs.map((o) => o.metadata?.name)).toEqual(['inst-a', 'inst-b']);
    expect(objs[0]?.['data']).toEqual({ r: '5', first: 'a', plan: 'deploy/main/everything' });
  });

  it('missing keys, parse errors and invalid YAML are RenderErrors naming template and line', () => {
    const vars = templateVariables(instance, ov, at);
    const cache = new TemplateCache();
    expect(() => renderObjects(cache, ov, 'bad.yaml', vars)).toThrow(RenderError);
    expect(() => renderObjects(cache, ov, 'bad.yaml', vars)).toThrow(/template bad.yaml line 6/);
    expect(() => renderObjects(cache, ov, 'unparsable.yaml', vars)).toThrow(
      /template unparsable.yaml line 2/,
    );
    expect(() => renderObjects(cache, ov, 'notyaml.yaml', vars)).toThrow(/not valid YAML/);
    expect(() => renderObjects(cache, ov, 'absent.yaml', vars)).toThrow(
      /does not exist in OperatorVersion default\/op-1.0/,
    );
  });

  it('decorates: namespace default, owner labels and uid, plan annotations, owner reference only in the Instance namespace', () => {
    const cm = decorate({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, d);
    expect(cm.metadata?.namespace).toBe('ns1');
    expect(cm.metadata?.labels).toEqual({
      'kudo.dev/instance': 'inst',
      'kudo.dev/operator': 'op',
      heritage: 'kudo',
      'planwright.dev/instance-uid': 'i1',
    });
    expect(cm.metadata?.annotations).toEqual({
      'kudo.dev/plan': 'deploy',
      'kudo.dev/phase': 'main',
      'kudo.dev/step': 'everything',
      'kudo.dev/last-plan-execution-uid': 'run-1',
      'planwright.dev/instance': 'ns1/inst',
    });
    expect(cm.metadata?.['ownerReferences']).toEqual([
      {
        apiVersion: 'kudo.dev/v1beta1',
        kind: 'Instance',
        name: 'inst',
        uid: 'i1',
        controller: true,
      },
    ]);
    const other = decorate(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'elsewhere' } },
      d,
    );
    expect(other.metadata?.['ownerReferences']).toBeUndefined();
    const crd = decorate(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', namespace: 'x' } },
      { ...d, namespaced: false },
    );
    expect(crd.metadata?.namespace).toBeUndefined();
    // What proves ownership is the uid: the label where no owner reference can be.
    expect(other.metadata?.labels?.['planwright.dev/instance-uid']).toBe('i1');
    expect(crd.metadata?.labels?.['planwright.dev/instance-uid']).toBe('i1');
    for (const obj of [cm, other, crd]) expect(ownedByInstance(obj, instance)).toBe(true);
    const sameName = { metadata: { name: 'inst', namespace: 'ns1', uid: 'another-uid' } };
    for (const obj of [cm, other, crd]) expect(ownedByInstance(obj, sameName)).toBe(false);
    // A template cannot claim another Instance's uid: decorate writes its own.
    const forged = decorate(
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'f', labels: { 'planwright.dev/instance-uid': 'victim' } },
      },
      { ...d, namespaced: false },
    );
    expect(forged.metadata?.labels?.['planwright.dev/instance-uid']).toBe('i1');
  });

  it('pod templates get the owner labels and the operator version, never plan/phase/step', () => {
    const owner = { heritage: 'kudo', 'kudo.dev/instance': 'inst', 'kudo.dev/operator': 'op' };
    const podTemplate = (labels?: Record<string, string>) => ({
      metadata: { ...(labels ? { labels } : {}), annotations: { keep: 'me' } },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
    const workloads: Array<[string, string, string[]]> = [
      ['apps/v1', 'Deployment', ['spec', 'template']],
      ['apps/v1', 'StatefulSet', ['spec', 'template']],
      ['apps/v1', 'DaemonSet', ['spec', 'template']],
      ['apps/v1', 'ReplicaSet', ['spec', 'template']],
      ['v1', 'ReplicationController', ['spec', 'template']],
      ['batch/v1', 'Job', ['spec', 'template']],
      ['extensions/v1beta1', 'Deployment', ['spec', 'template']],
      ['batch/v1', 'CronJob', ['spec', 'jobTemplate', 'spec', 'template']],
    ];
    for (const [apiVersion, kind, path] of workloads) {
      const nest = (value: unknown, keys: string[]): unknown =>
        keys.length === 0 ? value : { [keys[0]!]: nest(value, keys.slice(1)) };
      const obj = {
        apiVersion,
        kind,
        metadata: { name: 'w' },
        ...(nest(podTemplate({ app: 'x' }), path) as Record<string, unknown>),
      };
      const out = decorate(obj, d) as Record<string, unknown>;
      const template = path.reduce<unknown>(
        (cur, key) => (cur as Record<string, unknown>)[key],
        out,
      ) as { metadata: { labels: unknown; annotations: unknown }; spec: unknown };
      expect({ kind, labels: template.metadata.labels }).toEqual({
        kind,
        labels: { app: 'x', ...owner },
      });
      expect({ kind, annotations: template.metadata.annotations }).toEqual({
        kind,
        annotations: { keep: 'me', 'kudo.dev/operator-version': '1.0' },
      });
      expect(template.spec).toEqual(podTemplate().spec);
      // The input is not changed.
      expect(
        path.reduce<unknown>((cur, key) => (cur as Record<string, unknown>)[key], obj),
      ).toEqual(podTemplate({ app: 'x' }));
    }
    // A template without metadata gets one; a StatefulSet's claim templates get the labels only.
    const sts = decorate(
      {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 's' },
        spec: {
          template: { spec: {} },
          volumeClaimTemplates: [
            { metadata: { name: 'data', labels: { a: 'b' } }, spec: {} },
            { metadata: { name: 'logs' } },
          ],
        },
      },
      { ...d, podTemplateAnnotations: () => ({ 'kudo.dev/dependencies-hash': 'h' }) },
    ) as { spec: { template: { metadata: unknown }; volumeClaimTemplates: unknown } };
    expect(sts.spec.template.metadata).toEqual({
      labels: owner,
      annotations: { 'kudo.dev/operator-version': '1.0', 'kudo.dev/dependencies-hash': 'h' },
    });
    expect(sts.spec.volumeClaimTemplates).toEqual([
      { metadata: { name: 'data', labels: { a: 'b', ...owner } }, spec: {} },
      { metadata: { name: 'logs', labels: owner } },
    ]);
    // Same kind name in another group, or a workload without a template: left alone.
    const custom = decorate(
      { apiVersion: 'example.com/v1', kind: 'Deployment', metadata: { name: 'c' }, spec: {} },
      d,
    );
    expect(custom['spec']).toEqual({});
    const bare = decorate(
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'b' } },
      d,
    );
    expect(bare['spec']).toBeUndefined();
  });

  it('undefined variables and parameters are render errors', () => {
    const withStep: OperatorVersion = {
      ...ov,
      metadata: { ...ov.metadata, resourceVersion: '2' },
      spec: {
        ...ov.spec,
        templates: {
          'step.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .StepNumber }}\n',
        },
      },
    };
    expect(() =>
      renderObjects(
        new TemplateCache(),
        withStep,
        'step.yaml',
        templateVariables(instance, ov, at),
      ),
    ).toThrow(/template step.yaml line 4: .*StepNumber/);
  });

  it('compares normalized desired objects with live ones', () => {
    const desired = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      stringData: { a: 'x' },
    };
    expect(normalizeForCompare(desired)['data']).toEqual({ a: 'eA==' });
    expect(
      isUnchanged(desired, {
        ...desired,
        stringData: undefined,
        data: { a: 'eA==' },
        type: 'Opaque',
      }),
    ).toBe(true);
    expect(isUnchanged(desired, { ...desired, stringData: undefined, data: { a: 'eQ==' } })).toBe(
      false,
    );
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { ports: [{ port: 80 }] },
    };
    expect(
      isUnchanged(svc, {
        ...svc,
        spec: { ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], clusterIP: '10.0.0.1' },
      }),
    ).toBe(true);
  });
});
