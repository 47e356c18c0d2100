// Removed API versions converted by src/kube/removed-apis, checked against Kubernetes' own
// code (the conversion oracle: k8s.io/kubernetes and apiextensions-apiserver v1.34). For each
// row, the API server's path for the old object (decode with the old version's defaults →
// internal → new version → new version's defaults) must give exactly what the same path gives
// for our converted object read as the new version. CRDs: the same for the API server's
// conversion step, and Kubernetes' v1 create validation must accept our final CRD.
import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  API_APPROVAL_ANNOTATION,
  CONVERTED_APPROVAL,
  REMOVED_APIS,
  convertCrdLikeTheApiServer,
  removedApi,
} from '../../../src/kube/removed-apis/index.ts';
import { askConversionOracle, conversionOracle } from '../../support/conversion-oracle.ts';

type Obj = Record<string, unknown>;

const podTemplate = (labels?: Record<string, string>): Obj => ({
  metadata: labels ? { labels } : {},
  spec: { containers: [{ name: 'c', image: 'nginx:1.7.9', ports: [{ containerPort: 80 }] }] },
});
const meta = (name: string, extra: Obj = {}): Obj => ({ name, namespace: 'ns', ...extra });

const ROWS: Array<[string, Obj]> = [
  [
    'extensions Deployment without selector or strategy: selector and labels from the template, maxUnavailable/maxSurge 1, MaxInt32 deadline and history',
    {
      apiVersion: 'extensions/v1beta1',
      kind: 'Deployment',
      metadata: meta('d1'),
      spec: { replicas: 2, template: podTemplate({ app: 'web', tier: 'front' }) },
    },
  ],
  [
    'extensions Deployment with rollbackTo, Recreate and its own labels/history',
    {
      apiVersion: 'extensions/v1beta1',
      kind: 'Deployment',
      metadata: meta('d2', { labels: { own: 'yes' } }),
      spec: {
        strategy: { type: 'Recreate' },
        revisionHistoryLimit: 5,
        rollbackTo: { revision: 3 },
        template: podTemplate({ app: 'web' }),
      },
    },
  ],
  [
    'extensions Deployment with a partial rollingUpdate',
    {
      apiVersion: 'extensions/v1beta1',
      kind: 'Deployment',
      metadata: meta('d3'),
      spec: {
        selector: { matchLabels: { app: 'web' } },
        strategy: { rollingUpdate: { maxSurge: '50%' } },
        template: podTemplate({ app: 'web', extra: 'label' }),
      },
    },
  ],
  [
    'apps/v1beta1 Deployment without selector: history 2',
    {
      apiVersion: 'apps/v1beta1',
      kind: 'Deployment',
      metadata: meta('d4'),
      spec: { template: podTemplate({ app: 'web' }) },
    },
  ],
  [
    'apps/v1beta2 Deployment',
    {
      apiVersion: 'apps/v1beta2',
      kind: 'Deployment',
      metadata: meta('d5'),
      spec: { selector: { matchLabels: { app: 'web' } }, template: podTemplate({ app: 'web' }) },
    },
  ],
  [
    'extensions DaemonSet without selector or strategy: OnDelete; templateGeneration kept',
    {
      apiVersion: 'extensions/v1beta1',
      kind: 'DaemonSet',
      metadata: meta('ds1'),
      spec: { templateGeneration: 2, template: podTemplate({ app: 'agent' }) },
    },
  ],
  [
    'extensions DaemonSet with RollingUpdate',
    {
      apiVersion: 'extensions/v1beta1',
      kind: 'DaemonSet',
      metadata: meta('ds2'),
      spec: {
        updateStrategy: { type: 'RollingUpdate' },
        template: podTemplate({ app: 'agent' }),
      },
    },
  ],
  [
    'apps/v1beta2 DaemonSet',
    {
      apiVersion: 'apps/v1beta2',
      kind: 'DaemonSet',
      metadata: meta('ds3'),
      spec: { selector: { matchLabels: { app: 'a' } }, template: podTemplate({ app: 'a' }) },
    },
  ],
  [
    'extensions ReplicaSet without selector',
    {
      apiVersion: 'extensions/v1beta1',
      kind: 'ReplicaSet',
      metadata: meta('rs1'),
      spec: { replicas: 3, template: podTemplate({ app: 'r' }) },
    },
  ],
  [
    'apps/v1beta2 ReplicaSet',
    {
      apiVersion: 'apps/v1beta2',
      kind: 'ReplicaSet',
      metadata: meta('rs2'),
      spec: { selector: { matchLabels: { app: 'r' } }, template: podTemplate({ app: 'r' }) },
    },
  ],
  [
    'apps/v1beta1 StatefulSet without selector or strategy: OnDelete, claim templates',
    {
      apiVersion: 'apps/v1beta1',
      kind: 'StatefulSet',
      metadata: meta('sts1'),
      spec: {
        serviceName: 'svc',
        replicas: 3,
        template: podTemplate({ app: 'zk' }),
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      },
    },
  ],
  [
    'apps/v1beta1 StatefulSet with a partitioned RollingUpdate',
    {
      apiVersion: 'apps/v1beta1',
      kind: 'StatefulSet',
      metadata: meta('sts2'),
      spec: {
        serviceName: 'svc',
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: {} },
        podManagementPolicy: 'Parallel',
        template: podTemplate({ app: 'zk' }),
      },
    },
  ],
  [
    'apps/v1beta2 StatefulSet',
    {
      apiVersion: 'apps/v1beta2',
      kind: 'StatefulSet',
      metadata: meta('sts3'),
      spec: {
        serviceName: 'svc',
        selector: { matchLabels: { app: 'zk' } },
        template: podTemplate({ app: 'zk' }),
      },
    },
  ],
  [
    'PodDisruptionBudget with matchLabels (zookeeper, redis)',
    {
      apiVersion: 'policy/v1beta1',
      kind: 'PodDisruptionBudget',
      metadata: meta('pdb1'),
      spec: {
        selector: { matchLabels: { app: 'zookeeper', 'kudo.dev/instance': 'zk' } },
        maxUnavailable: 1,
      },
    },
  ],
  [
    'PodDisruptionBudget with an empty selector: selects no pod in v1 either',
    {
      apiVersion: 'policy/v1beta1',
      kind: 'PodDisruptionBudget',
      metadata: meta('pdb2'),
      spec: { selector: {}, minAvailable: 2 },
    },
  ],
  [
    "PodDisruptionBudget with v1beta1's select-all selector",
    {
      apiVersion: 'policy/v1beta1',
      kind: 'PodDisruptionBudget',
      metadata: meta('pdb3'),
      spec: {
        selector: {
          matchExpressions: [
            {
              key: 'pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match',
              operator: 'DoesNotExist',
            },
          ],
        },
        minAvailable: '50%',
      },
    },
  ],
  [
    'PodDisruptionBudget mixing the reserved label with its own expressions',
    {
      apiVersion: 'policy/v1beta1',
      kind: 'PodDisruptionBudget',
      metadata: meta('pdb4'),
      spec: {
        selector: {
          matchLabels: { app: 'x' },
          matchExpressions: [
            {
              key: 'pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match',
              operator: 'Exists',
            },
            { key: 'tier', operator: 'In', values: ['a', 'b'] },
          ],
        },
        minAvailable: 1,
      },
    },
  ],
  [
    'PodDisruptionBudget without selector',
    {
      apiVersion: 'policy/v1beta1',
      kind: 'PodDisruptionBudget',
      metadata: meta('pdb5'),
      spec: { maxUnavailable: '25%' },
    },
  ],
  [
    'networking v1beta1 Ingress: backend renames, default backend, pathType defaulted',
    {
      apiVersion: 'networking.k8s.io/v1beta1',
      kind: 'Ingress',
      metadata: meta('ing1', { annotations: { a: 'b' } }),
      spec: {
        ingressClassName: 'nginx',
        backend: { serviceName: 'default', servicePort: 80 },
        tls: [{ hosts: ['example.com'], secretName: 'tls' }],
        rules: [
          {
            host: 'example.com',
            http: {
              paths: [
                { path: '/a', backend: { serviceName: 'a', servicePort: 8080 } },
                {
                  path: '/b',
                  pathType: 'Prefix',
                  backend: { serviceName: 'b', servicePort: 'http' },
                },
                { path: '/c', backend: { serviceName: 'c', servicePort: '9090' } },
              ],
            },
          },
          { http: { paths: [{ backend: { serviceName: 'd', servicePort: 1 } }] } },
        ],
      },
    },
  ],
  [
    'extensions Ingress with a resource backend',
    {
      apiVersion: 'extensions/v1beta1',
      kind: 'Ingress',
      metadata: meta('ing2'),
      spec: {
        backend: { resource: { apiGroup: 'example.com', kind: 'Bucket', name: 'static' } },
        rules: [
          {
            host: 'x.example.com',
            http: { paths: [{ path: '/', backend: { serviceName: 'x', servicePort: 80 } }] },
          },
        ],
      },
    },
  ],
  [
    'networking v1beta1 IngressClass',
    {
      apiVersion: 'networking.k8s.io/v1beta1',
      kind: 'IngressClass',
      metadata: { name: 'nginx' },
      spec: {
        controller: 'example.com/ingress',
        parameters: { apiGroup: 'example.com', kind: 'Params', name: 'p' },
      },
    },
  ],
  [
    'extensions NetworkPolicy',
    {
      apiVersion: 'extensions/v1beta1',
      kind: 'NetworkPolicy',
      metadata: meta('np'),
      spec: {
        podSelector: { matchLabels: { app: 'db' } },
        ingress: [
          { from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ port: 5432 }] },
        ],
        egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }],
      },
    },
  ],
  [
    'batch v1beta1 CronJob',
    {
      apiVersion: 'batch/v1beta1',
      kind: 'CronJob',
      metadata: meta('cj'),
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: {
          spec: {
            template: { spec: { ...(podTemplate().spec as Obj), restartPolicy: 'OnFailure' } },
          },
        },
      },
    },
  ],
  [
    'rbac v1beta1 Role',
    {
      apiVersion: 'rbac.authorization.k8s.io/v1beta1',
      kind: 'Role',
      metadata: meta('r'),
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
    },
  ],
  [
    'rbac v1beta1 ClusterRole with aggregation',
    {
      apiVersion: 'rbac.authorization.k8s.io/v1beta1',
      kind: 'ClusterRole',
      metadata: { name: 'cr' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: 'yes' } }] },
    },
  ],
  [
    'rbac v1beta1 RoleBinding: subject apiGroups defaulted',
    {
      apiVersion: 'rbac.authorization.k8s.io/v1beta1',
      kind: 'RoleBinding',
      metadata: meta('rb'),
      roleRef: { kind: 'Role', name: 'r' },
      subjects: [
        { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' },
        { kind: 'User', name: 'alice' },
        { kind: 'Group', name: 'devs' },
      ],
    },
  ],
  [
    'rbac v1beta1 ClusterRoleBinding',
    {
      apiVersion: 'rbac.authorization.k8s.io/v1beta1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'crb' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cr' },
      subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'ns' }],
    },
  ],
  [
    'scheduling v1beta1 PriorityClass',
    {
      apiVersion: 'scheduling.k8s.io/v1beta1',
      kind: 'PriorityClass',
      metadata: { name: 'high' },
      value: 1000,
      globalDefault: false,
      description: 'high',
    },
  ],
];

const crd = (spec: Obj, name = 'widgets.example.com'): Obj => ({
  apiVersion: 'apiextensions.k8s.io/v1beta1',
  kind: 'CustomResourceDefinition',
  metadata: { name },
  spec: { group: 'example.com', names: { plural: 'widgets', kind: 'Widget' }, ...spec },
});

const CRD_ROWS: Array<[string, Obj]> = [
  ['minimal: single version, no schema, scope defaulted', crd({ version: 'v1alpha1' })],
  [
    'top-level validation, subresources and printer columns move into every version',
    crd({
      scope: 'Cluster',
      version: 'v1',
      versions: [
        { name: 'v1', served: true, storage: true },
        { name: 'v1beta1', served: true, storage: false },
      ],
      validation: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: {
                replicas: { type: 'integer', minimum: 0 },
                image: { type: 'string', description: 'the image' },
              },
              required: ['image'],
            },
            status: { type: 'object', properties: { ready: { type: 'boolean' } } },
          },
        },
      },
      subresources: {
        status: {},
        scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
      },
      additionalPrinterColumns: [
        { name: 'Replicas', type: 'integer', JSONPath: '.spec.replicas' },
        { name: 'Age', type: 'date', JSONPath: '.metadata.creationTimestamp', priority: 1 },
      ],
    }),
  ],
  [
    'per-version schemas and printer columns',
    crd({
      versions: [
        {
          name: 'v2',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { a: { type: 'string' } } } },
          additionalPrinterColumns: [{ name: 'A', type: 'string', JSONPath: '.a' }],
        },
        {
          name: 'v1',
          served: true,
          storage: false,
          deprecated: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { b: { type: 'string' } } } },
        },
      ],
      preserveUnknownFields: false,
    }),
  ],
  [
    'a non-structural schema: missing types, junctors with types and descriptions, int-or-string idiom, uniqueItems, metadata restrictions, null default',
    crd({
      version: 'v1',
      validation: {
        openAPIV3Schema: {
          properties: {
            metadata: { properties: { name: { type: 'string', maxLength: 20 } } },
            spec: {
              properties: {
                port: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
                mode: {
                  description: 'a or b',
                  oneOf: [
                    { type: 'string', description: 'A', enum: ['a'] },
                    { type: 'string', description: 'B', enum: ['b'] },
                  ],
                },
                tags: { type: 'array', uniqueItems: true, items: { type: 'string' } },
                anything: { description: 'no type' },
                list: { type: 'array' },
                size: { type: 'string', default: null },
              },
              anyOf: [
                { required: ['port'], properties: { extra: { minLength: 1, type: 'string' } } },
                { required: ['mode'] },
              ],
              not: { properties: { forbidden: { type: 'string' } }, required: ['forbidden'] },
            },
          },
          // At the root Kubernetes checks that junctors only constrain declared fields.
          oneOf: [
            { properties: { spec: { required: ['port'] } } },
            { properties: { spec: { required: ['mode'] }, other: { items: { type: 'string' } } } },
          ],
        },
      },
    }),
  ],
  [
    'webhook conversion: client config and review versions move under conversion.webhook',
    crd({
      preserveUnknownFields: false,
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object' } },
        },
        {
          name: 'v2',
          served: true,
          storage: false,
          schema: { openAPIV3Schema: { type: 'object' } },
        },
      ],
      conversion: {
        strategy: 'Webhook',
        webhookClientConfig: {
          service: { namespace: 'ops', name: 'conv', path: '/convert' },
          caBundle: Buffer.from('not a real CA').toString('base64'),
        },
      },
    }),
  ],
  [
    'a protected group (*.k8s.io) gets the approval annotation a v1 create requires',
    crd({ group: 'widgets.k8s.io', version: 'v1' }, 'widgets.widgets.k8s.io'),
  ],
];

// Server-filled noise the API server's path adds to every object (the same on both sides).
function plain(obj: Obj | undefined): Obj | undefined {
  if (!obj) return obj;
  const rest = { ...obj };
  delete rest['status'];
  return rest;
}

describe('removed API conversions against Kubernetes’ own conversion code', () => {
  beforeAll(async () => {
    await conversionOracle((line) => process.stderr.write(`${line}\n`));
  }, 30 * 60_000);

  it('the table covers every conversion', () => {
    const covered = new Set(
      [...ROWS, ...CRD_ROWS].map(([, o]) => `${String(o['apiVersion'])}|${String(o['kind'])}`),
    );
    expect(REMOVED_APIS.map((r) => `${r.from}|${r.kind}`).filter((k) => !covered.has(k))).toEqual(
      [],
    );
  });

  it.each(ROWS)('%s', async (_name, input) => {
    const removed = removedApi(String(input['apiVersion']), String(input['kind']));
    expect(removed).toBeDefined();
    const ours = removed!.convert(input);
    expect(ours['apiVersion']).toBe(removed!.to);
    expect(input['apiVersion']).toBe(removed!.from); // the input is not changed
    const [fromOld, fromOurs] = await askConversionOracle([
      { op: 'normalize', to: removed!.to, object: input },
      { op: 'normalize', to: removed!.to, object: ours },
    ]);
    expect(fromOld?.error).toBeUndefined();
    expect(fromOurs?.error).toBeUndefined();
    expect(plain(fromOurs?.object)).toEqual(plain(fromOld?.object));
  });

  it.each(CRD_ROWS)('CRD: %s', async (_name, input) => {
    const removed = removedApi('apiextensions.k8s.io/v1beta1', 'CustomResourceDefinition')!;
    const step1 = structuredClone(input);
    convertCrdLikeTheApiServer(step1);
    const final = removed.convert(input);
    const [fromOld, fromStep1, validation] = await askConversionOracle([
      { op: 'normalize', to: 'apiextensions.k8s.io/v1', object: input },
      { op: 'normalize', to: 'apiextensions.k8s.io/v1', object: step1 },
      { op: 'validate-crd', object: final },
    ]);
    expect(fromOld?.error).toBeUndefined();
    expect(plain(fromStep1?.object)).toEqual(plain(fromOld?.object));
    expect(validation?.error).toBeUndefined();
    expect(validation?.errors ?? []).toEqual([]);
  });

  it('a CRD in a protected group is marked unapproved, unless the package set the annotation', () => {
    const removed = removedApi('apiextensions.k8s.io/v1beta1', 'CustomResourceDefinition')!;
    const annotations = (o: unknown): Record<string, string> | undefined =>
      (o as { metadata: { annotations?: Record<string, string> } }).metadata.annotations;
    for (const group of ['k8s.io', 'x.k8s.io', 'kubernetes.io', 'a.b.kubernetes.io']) {
      const out = removed.convert(crd({ group, version: 'v1' }, `widgets.${group}`));
      expect(annotations(out)).toEqual({ [API_APPROVAL_ANNOTATION]: CONVERTED_APPROVAL });
    }
    expect(CONVERTED_APPROVAL.startsWith('unapproved')).toBe(true);
    // Not protected: nothing added.
    for (const group of ['example.com', 'k8s.io.example.com', 'notk8s.io']) {
      expect(annotations(removed.convert(crd({ group, version: 'v1' })))).toBeUndefined();
    }
    // The package's own value stays; an empty one is "missing" to the API server.
    const own = crd({ group: 'x.k8s.io', version: 'v1' }, 'widgets.x.k8s.io');
    (own['metadata'] as Obj)['annotations'] = {
      [API_APPROVAL_ANNOTATION]: 'https://github.com/kubernetes/enhancements/pull/1111',
      keep: 'me',
    };
    expect(annotations(removed.convert(own))).toEqual({
      [API_APPROVAL_ANNOTATION]: 'https://github.com/kubernetes/enhancements/pull/1111',
      keep: 'me',
    });
    const empty = crd({ group: 'x.k8s.io', version: 'v1' }, 'widgets.x.k8s.io');
    (empty['metadata'] as Obj)['annotations'] = { [API_APPROVAL_ANNOTATION]: '' };
    expect(annotations(removed.convert(empty))).toEqual({
      [API_APPROVAL_ANNOTATION]: CONVERTED_APPROVAL,
    });
  });

  it('a v1beta1 CRD kept unknown fields everywhere: the v1 schema says so on every object', () => {
    const removed = removedApi('apiextensions.k8s.io/v1beta1', 'CustomResourceDefinition')!;
    const out = removed.convert(CRD_ROWS[1]![1]) as {
      spec: {
        preserveUnknownFields?: boolean;
        versions: Array<{ schema: { openAPIV3Schema: Obj } }>;
      };
    };
    expect(out.spec.preserveUnknownFields).toBeUndefined();
    const schema = out.spec.versions[0]!.schema.openAPIV3Schema as {
      'x-kubernetes-preserve-unknown-fields'?: boolean;
      properties: { spec: Obj & { properties: { image: Obj } } };
    };
    expect(schema['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect(schema.properties.spec['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect(schema.properties.spec.properties.image).toEqual({
      type: 'string',
      description: 'the image',
    });
    // With preserveUnknownFields: false only untyped nodes accept anything.
    const strict = removed.convert(CRD_ROWS[2]![1]) as typeof out;
    expect(strict.spec.versions[0]!.schema.openAPIV3Schema).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
    });
    const noSchema = removed.convert(CRD_ROWS[0]![1]) as typeof out;
    expect(noSchema.spec.versions[0]!.schema.openAPIV3Schema).toEqual({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });
});
