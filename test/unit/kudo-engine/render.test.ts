import { describe, expect, it } from '@jest/globals';
import { isUnchanged, normalizeForCompare } from '../../../src/kube/apply.ts';
import type { Instance, OperatorVersion } from '../../../src/kudo/api/types.ts';
import {
  RenderError,
  TemplateCache,
  decorate,
  ownedByAnother,
  renderObjects,
  templateParams,
  templateVariables,
} from '../../../src/kudo/render/index.ts';

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

describe('render', () => {
  it('renders multi-document templates with KUDO variables; scalars stay strings, arrays parse', () => {
    const params = templateParams(instance, ov);
    expect(params).toEqual({ REPLICAS: '5', LIST: ['a', 'b'], EMPTY: '' });
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

  it('decorates: namespace default, labels, owner reference only in the Instance namespace', () => {
    const d = { instance, operatorName: 'op', operatorVersion: '1.0', at, namespaced: true };
    const cm = decorate({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, d);
    expect(cm.metadata?.namespace).toBe('ns1');
    expect(cm.metadata?.labels).toMatchObject({
      'kudo.dev/instance': 'inst',
      'kudo.dev/operator': 'op',
      'kudo.dev/operator-version': '1.0',
      'kudo.dev/plan': 'deploy',
      'kudo.dev/phase': 'main',
      'kudo.dev/step': 'everything',
      heritage: 'kudo',
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
    expect(ownedByAnother(cm, instance)).toBe(false);
    expect(ownedByAnother(cm, { metadata: { name: 'inst', namespace: 'ns2' } })).toBe(true);
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
