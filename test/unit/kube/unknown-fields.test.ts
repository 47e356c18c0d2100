// Which fields a group/version's OpenAPI v3 document does not know, on a document shaped as
// kube-apiserver publishes them ($ref inside allOf, shared ObjectMeta, maps, lists, CRD
// schemas with x-kubernetes-preserve-unknown-fields and embedded resources, a $ref cycle).
// The integration test (test/integration/kube/openapi-schemas.test.ts) runs the same code on
// the documents of a real kube-apiserver.
import { describe, expect, it } from '@jest/globals';
import { pruneUnknownFields, reduceDocument } from '../../../src/kube/unknown-fields.ts';

const ref = (name: string): { allOf: Array<{ $ref: string }>; default: object } => ({
  allOf: [{ $ref: `#/components/schemas/${name}` }],
  default: {},
});

const DOCUMENT = {
  openapi: '3.0.0',
  components: {
    schemas: {
      ObjectMeta: {
        description: 'standard object metadata',
        type: 'object',
        properties: {
          name: { type: 'string' },
          labels: { type: 'object', additionalProperties: { type: 'string', default: '' } },
          annotations: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
      Deployment: {
        type: 'object',
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: ref('ObjectMeta'),
          spec: ref('DeploymentSpec'),
        },
        'x-kubernetes-group-version-kind': [{ group: 'apps', version: 'v1', kind: 'Deployment' }],
      },
      DeploymentSpec: {
        type: 'object',
        properties: { replicas: { type: 'integer' }, template: ref('PodTemplateSpec') },
      },
      PodTemplateSpec: {
        type: 'object',
        properties: { metadata: ref('ObjectMeta'), spec: ref('PodSpec') },
      },
      PodSpec: {
        type: 'object',
        properties: {
          containers: { type: 'array', items: ref('Container') },
          extra: { $ref: '#/components/schemas/RawExtension' },
        },
      },
      Container: { type: 'object', properties: { name: { type: 'string' } } },
      RawExtension: { type: 'object', description: 'anything' },
      // A kind whose schema refers to itself (JSONSchemaProps does).
      Node: {
        type: 'object',
        properties: {
          kind: { type: 'string' },
          child: { $ref: '#/components/schemas/Node' },
          missing: { $ref: '#/components/schemas/NotInTheDocument' },
        },
        'x-kubernetes-group-version-kind': [{ group: 'apps', version: 'v1', kind: 'Node' }],
      },
      DeleteOptions: {
        type: 'object',
        properties: { kind: { type: 'string' } },
        'x-kubernetes-group-version-kind': [
          { group: 'apps', version: 'v1', kind: 'DeleteOptions' },
          { group: '', version: 'v1', kind: 'DeleteOptions' },
        ],
      },
    },
  },
};

const CRD_DOCUMENT = {
  components: {
    schemas: {
      'dev.example.v1.Widget': {
        type: 'object',
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { $ref: '#/components/schemas/ObjectMeta' },
          spec: {
            type: 'object',
            properties: {
              size: { type: 'integer' },
              config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              template: {
                type: 'object',
                'x-kubernetes-embedded-resource': true,
                properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } },
              },
            },
          },
        },
        'x-kubernetes-group-version-kind': [
          { group: 'example.dev', version: 'v1', kind: 'Widget' },
        ],
      },
      'dev.example.v1.Gadget': {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: { apiVersion: { type: 'string' }, kind: { type: 'string' } },
        'x-kubernetes-group-version-kind': [
          { group: 'example.dev', version: 'v1', kind: 'Gadget' },
        ],
      },
      ObjectMeta: { type: 'object', properties: { name: { type: 'string' } } },
    },
  },
};

describe('fields a schema does not know', () => {
  const apps = reduceDocument(DOCUMENT, 'apps', 'v1');

  it('drops a removed field of a pod template and keeps every known one', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web' }, initializers: { pending: [] } },
      spec: {
        replicas: 1,
        template: {
          metadata: { labels: { app: 'web' }, initializers: { pending: [] } },
          spec: {
            containers: [{ name: 'a' }, { name: 'b', removedField: true }],
            extra: { free: { form: 1 } },
          },
        },
        paused: 'unknown here',
      },
    };
    const result = pruneUnknownFields(deployment, 'Deployment', apps);
    expect(result?.dropped).toEqual([
      'metadata.initializers',
      'spec.template.metadata.initializers',
      'spec.template.spec.containers[1].removedField',
      'spec.paused',
    ]);
    expect(result?.object).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 1,
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'a' }, { name: 'b' }], extra: { free: { form: 1 } } },
        },
      },
    });
    // The input is left as it was.
    expect(deployment.metadata.initializers).toEqual({ pending: [] });
  });

  it('returns the object itself when nothing is unknown, and nothing for a kind it lacks', () => {
    const known = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' } };
    const result = pruneUnknownFields(known, 'Deployment', apps);
    expect(result?.dropped).toEqual([]);
    expect(result?.object).toBe(known);
    expect(pruneUnknownFields({ kind: 'StatefulSet' }, 'StatefulSet', apps)).toBeUndefined();
  });

  it('names keys that are not identifiers in brackets', () => {
    const odd = { metadata: { 'a.b/c': 1, 'with space': 2 } };
    expect(pruneUnknownFields(odd, 'Deployment', apps)?.dropped).toEqual([
      'metadata["a.b/c"]',
      'metadata["with space"]',
    ]);
  });

  it('follows a schema that refers to itself, and keeps what an unresolved $ref covers', () => {
    const node = { kind: 'Node', child: { child: { gone: 1 }, missing: { anything: 1 } } };
    expect(pruneUnknownFields(node, 'Node', apps)?.dropped).toEqual(['child.child.gone']);
  });

  it('takes a kind whose schema names it alone over a schema every kind claims', () => {
    expect(apps.kinds.get('DeleteOptions')).toBe('DeleteOptions');
    expect(apps.kinds.get('Deployment')).toBe('Deployment');
  });

  describe('custom resources', () => {
    const crd = reduceDocument(CRD_DOCUMENT, 'example.dev', 'v1');

    it('drops what a structural schema lacks, keeps preserved and embedded fields', () => {
      const widget = {
        apiVersion: 'example.dev/v1',
        kind: 'Widget',
        metadata: { name: 'w' },
        spec: {
          size: 2,
          colour: 'red',
          config: { whatever: { nested: true } },
          template: {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: 'p' },
            spec: { a: 'x', b: 'y' },
          },
        },
      };
      const result = pruneUnknownFields(widget, 'Widget', crd);
      expect(result?.dropped).toEqual(['spec.colour', 'spec.template.spec.b']);
      expect(result?.object.spec.config).toEqual({ whatever: { nested: true } });
      expect(result?.object.spec.template.kind).toBe('Pod');
    });

    it('keeps everything of a CRD without a structural schema', () => {
      const gadget = { apiVersion: 'example.dev/v1', kind: 'Gadget', spec: { any: 'thing' } };
      expect(pruneUnknownFields(gadget, 'Gadget', crd)).toEqual({ object: gadget, dropped: [] });
    });
  });
});
