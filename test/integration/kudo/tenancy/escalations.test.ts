// A tenant who may only write kudo.dev objects, ConfigMaps and Secrets in their own namespace
// (a namespaced Role, a client certificate of their own) tries to turn the shared Planwright
// against the cluster through packages and Instances. Planwright runs as the administrator
// (cluster-wide rights), in the multi-tenant posture for namespace `a`, in the default (KUDO)
// posture for namespace `d`. Every escalation is refused or ends FATAL_ERROR with a message
// naming the object and the rule; afterwards nothing was written outside the tenant's
// namespace and no request reached the tenant's chosen server. docs/security.md has the table.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stringify } from 'yaml';
import { ApiError, KubeClient } from '../../../../src/kube/index.ts';
import type { Instance, OperatorVersion } from '../../../../src/kudo/api/index.ts';
import {
  createTestNamespace,
  kubeConfig,
  mintUser,
  testCluster,
  uniqueName,
} from '../../../support/cluster.ts';
import { installKudoCrds } from '../../../support/kudo.ts';
import {
  applyStepsOperatorVersion,
  createKudoObject,
  instanceObject,
  operatorVersionObject,
  serialPlan,
} from '../../../support/kudo-objects.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../../support/planwright-start.ts';
import { grantTenant as grantRole } from '../../../support/tenant.ts';
import { waitFor } from '../../../support/wait.ts';

type Json = Record<string, unknown>;

const admin = new KubeClient(kubeConfig());
let tenant: KubeClient;
let tenantUser: string;
let a: string; // the multi-tenant namespace
let b: string; // another tenant's namespace (the victim)
let d: string; // a namespace served in the default posture
const victim = uniqueName('victim');
let multiTenant: StartedPlanwright;
let kudoPosture: StartedPlanwright;
let lure: Server;
let lureRequests = 0;
let lureUrl = '';

/** A Role of everything a tenant writes: kudo.dev objects, ConfigMaps, Secrets. */
function grantTenant(namespace: string, user: string): Promise<void> {
  return grantRole(admin, namespace, user, [
    { apiGroups: ['kudo.dev'], resources: ['*'], verbs: ['*'] },
    { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['*'] },
  ]);
}

async function create(path: string, body: Json): Promise<void> {
  await admin.request({ method: 'POST', path, body });
}

async function get(path: string): Promise<Json | undefined> {
  try {
    return await admin.request<Json>({ method: 'GET', path });
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 404) return undefined;
    throw err;
  }
}

function configMap(name: string, namespace: string, extra: Json = {}): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, ...extra },
    data: { owner: 'tenant' },
  });
}

/** The tenant installs a package (as themselves) and creates an Instance of it. */
async function install(
  namespace: string,
  name: string,
  ov: OperatorVersion,
  spec: Json = {},
): Promise<void> {
  await createKudoObject(tenant, namespace, 'operatorversions', ov);
  await createKudoObject(tenant, namespace, 'instances', {
    ...instanceObject(name, ov.metadata.name ?? '', { namespace }),
    spec: { operatorVersion: { name: ov.metadata.name }, ...spec },
  });
}

async function instanceStatus(namespace: string, name: string): Promise<Json> {
  const instance = await admin.request<Instance>({
    method: 'GET',
    path: `/apis/kudo.dev/v1beta1/namespaces/${namespace}/instances/${name}`,
  });
  return (instance.status ?? {}) as Json;
}

/** The deploy plan's status and message once it is terminal (or its text names `until`). */
async function outcome(
  namespace: string,
  name: string,
  until?: string,
): Promise<{ status: string; text: string }> {
  return waitFor(`Instance ${namespace}/${name} to finish its deploy plan`, async () => {
    const status = await instanceStatus(namespace, name);
    const plan = ((status['planStatus'] ?? {}) as Json)['deploy'] as Json | undefined;
    // Messages quote names ("u"): compare with the JSON escapes undone.
    const text = JSON.stringify(plan ?? {}).replace(/\\"/g, '"');
    const state = typeof plan?.['status'] === 'string' ? plan['status'] : '';
    if (until !== undefined) return text.includes(until) ? { status: state, text } : undefined;
    return state === 'COMPLETE' || state === 'FATAL_ERROR' ? { status: state, text } : undefined;
  });
}

async function events(namespace: string): Promise<Array<{ reason: string; message: string }>> {
  const list = await admin.request<{ items: Array<{ reason?: string; message?: string }> }>({
    method: 'GET',
    path: `/api/v1/namespaces/${namespace}/events`,
  });
  return list.items.map((e) => ({ reason: e.reason ?? '', message: e.message ?? '' }));
}

/** A target kubeconfig pointing at the lure, with `user`'s fields and `cluster`'s extra fields. */
function targetKubeconfig(user: Json, cluster: Json = {}): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 't', cluster: { server: lureUrl, ...cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'c', context: { cluster: 't', user: 'u' } }],
    'current-context': 'c',
  });
}

/** The tenant's Secret with the kubeconfig of `spelling`, and an Instance targeting it. */
async function installWithTarget(
  namespace: string,
  spelling: string,
  user: Json,
  cluster: Json,
): Promise<string> {
  const name = `kc-${KUBECONFIG_SPELLINGS.findIndex((s) => s[0] === spelling)}`;
  await tenant.request({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/secrets`,
    body: { metadata: { name }, stringData: { value: targetKubeconfig(user, cluster) } },
  });
  const ov = applyStepsOperatorVersion(name, { 'cm.yaml': configMap(name, '') });
  await install(namespace, name, ov, { kubeConfig: { secretRef: { name } } });
  return name;
}

const SA_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** Every spelling @kubernetes/client-node acts on by reading a file, running a program or proxying. */
const KUBECONFIG_SPELLINGS: ReadonlyArray<readonly [string, Json, Json, string]> = [
  ['token-file', { 'token-file': SA_TOKEN }, {}, 'user "u": token-file (reads a file'],
  [
    'auth-provider tokenFile',
    { 'auth-provider': { name: 'tokenFile', config: { tokenFile: SA_TOKEN } } },
    {},
    'user "u": auth-provider (runs an auth-provider plugin',
  ],
  [
    'exec',
    { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: '/bin/sh' } },
    {},
    'user "u": exec (runs a program',
  ],
  [
    'auth-provider gcp cmd-path',
    { 'auth-provider': { name: 'gcp', config: { 'cmd-path': '/bin/sh' } } },
    {},
    'user "u": auth-provider (runs',
  ],
  ['client-certificate', { 'client-certificate': '/etc/passwd' }, {}, 'client-certificate (reads'],
  ['client-key', { 'client-key': '/etc/shadow' }, {}, 'user "u": client-key (reads a file'],
  [
    'certificate-authority',
    { token: 'x' },
    { 'certificate-authority': SA_TOKEN },
    'cluster "t": certificate-authority (reads a file',
  ],
  [
    'proxy-url',
    { token: 'x' },
    { 'proxy-url': 'http://127.0.0.1:1' },
    'cluster "t": proxy-url (sends the traffic through a proxy',
  ],
  ['as (impersonation)', { token: 'x', as: 'system:admin' }, {}, 'user "u": as (impersonates'],
];

beforeAll(async () => {
  await installKudoCrds();
  [a, b, d] = await Promise.all([
    createTestNamespace('tenant-a'),
    createTestNamespace('tenant-b'),
    createTestNamespace('tenant-d'),
  ]);
  tenantUser = uniqueName('tenant');
  const creds = await mintUser(tenantUser);
  tenant = new KubeClient(kubeConfig(creds.kubeconfigPath));
  await grantTenant(a, tenantUser);
  await grantTenant(d, tenantUser);
  // What the tenant must not reach: objects of kube-system and of another tenant.
  await create('/api/v1/namespaces/kube-system/configmaps', {
    metadata: { name: victim },
    data: { owner: 'cluster' },
  });
  await create('/apis/apps/v1/namespaces/kube-system/deployments', {
    metadata: { name: victim },
    spec: {
      selector: { matchLabels: { app: victim } },
      template: {
        metadata: { labels: { app: victim } },
        spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
      },
    },
  });
  await create(`/api/v1/namespaces/${b}/configmaps`, {
    metadata: { name: 'theirs', annotations: { 'planwright.dev/instance': `${b}/app` } },
    data: { owner: 'b' },
  });
  await create(`/api/v1/namespaces/${b}/serviceaccounts`, { metadata: { name: 'powerful' } });
  // Objects in the tenant's own namespace that are not theirs.
  for (const [ns, name, annotations] of [
    [a, 'preexisting', {}],
    [a, 'undeletable', {}],
    [a, 'other-instance', { 'planwright.dev/instance': `${a}/other` }],
    [a, 'handed-over', { 'planwright.dev/adopt': `${a}/adopt-ok` }],
    [d, 'preexisting', {}],
  ] as const) {
    await create(`/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name, annotations },
      data: { owner: 'admin' },
    });
  }
  lure = createServer((_req, res) => res.writeHead(401).end());
  // Any connection counts: a client that got this far would open one, TLS or not.
  lure.on('connection', () => {
    lureRequests += 1;
  });
  await new Promise<void>((resolve) => lure.listen(0, '127.0.0.1', resolve));
  // https is what the check demands of a server URL.
  lureUrl = `https://127.0.0.1:${(lure.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await multiTenant?.stop();
  await kudoPosture?.stop();
  await new Promise<void>((resolve) => (lure ? lure.close(() => resolve()) : resolve()));
  admin.close();
  tenant?.close();
});

describe('the tenant has no such rights of their own', () => {
  it.each([
    ['a ConfigMap in kube-system', '/api/v1/namespaces/kube-system/configmaps'],
    ['a ClusterRoleBinding', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings'],
  ])('%s: Forbidden', async (_what, path) => {
    await expect(
      tenant.request({ method: 'POST', path, body: { metadata: { name: 'x' } } }),
    ).rejects.toMatchObject({ statusCode: 403 });
  });
});

describe('multi-tenant posture: escalations through packages and Instances', () => {
  // One Planwright per cluster at a time (fixed registration names, one leader Lease): the
  // multi-tenant one serves this block, the default-posture one the next.
  beforeAll(async () => {
    multiTenant = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [a],
      args: ['--tenancy', 'multi-tenant'],
    });
  });

  afterAll(async () => {
    await multiTenant?.stop();
  });

  const fatal: ReadonlyArray<readonly [string, () => Json, () => readonly string[]]> = [
    [
      'namespace escape: a ConfigMap in kube-system',
      () => ({ 'cm.yaml': configMap(victim, 'kube-system') }),
      () => [`ConfigMap kube-system/${victim} names namespace kube-system`, '--allow-namespace'],
    ],
    [
      "namespace escape: a kube-system Deployment's image",
      () => ({
        'deploy.yaml': stringify({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: victim, namespace: 'kube-system' },
          spec: {
            selector: { matchLabels: { app: victim } },
            template: {
              metadata: { labels: { app: victim } },
              spec: { containers: [{ name: 'c', image: 'attacker.example/miner:1' }] },
            },
          },
        }),
      }),
      () => [`Deployment kube-system/${victim} names namespace kube-system`],
    ],
    [
      "a pod under another namespace's ServiceAccount",
      () => ({
        'pod.yaml': stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'borrowed', namespace: b },
          spec: {
            serviceAccountName: 'powerful',
            containers: [{ name: 'c', image: 'attacker.example/x:1' }],
          },
        }),
      }),
      () => [`Pod ${b}/borrowed names namespace ${b}`, 'outside the Instance'],
    ],
    [
      'cluster-scoped: a ClusterRoleBinding to cluster-admin',
      () => ({
        'crb.yaml': stringify({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: victim },
          roleRef: {
            apiGroup: 'rbac.authorization.k8s.io',
            kind: 'ClusterRole',
            name: 'cluster-admin',
          },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: tenantUser }],
        }),
      }),
      () => [`ClusterRoleBinding ${victim} is cluster-scoped`, '--allow-cluster-scoped'],
    ],
    [
      'cluster-scoped: a Namespace',
      () => ({
        'ns.yaml': stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: victim } }),
      }),
      () => [`Namespace ${victim} is cluster-scoped`],
    ],
    [
      'cluster-scoped: a CustomResourceDefinition',
      () => ({
        'crd.yaml': stringify({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: `${victim}s.evil.example` },
          spec: {
            group: 'evil.example',
            scope: 'Namespaced',
            names: { plural: `${victim}s`, kind: 'Evil' },
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: { openAPIV3Schema: { type: 'object' } },
              },
            ],
          },
        }),
      }),
      () => [`CustomResourceDefinition ${victim}s.evil.example is cluster-scoped`],
    ],
    [
      "adoption: an administrator's ConfigMap in the tenant's namespace",
      () => ({ 'cm.yaml': configMap('preexisting', a) }),
      () => [
        'exists and does not belong to Instance',
        'previous owner: field manager',
        'planwright.dev/adopt=',
      ],
    ],
    [
      "adoption: another Instance's ConfigMap",
      () => ({ 'cm.yaml': configMap('other-instance', a) }),
      () => [`previous owner: Instance ${a}/other`],
    ],
  ];
  const names = fatal.map((_, i) => `esc-${i}`);

  beforeAll(async () => {
    await Promise.all(
      fatal.map(([, templates], i) =>
        install(
          a,
          names[i] ?? '',
          applyStepsOperatorVersion(`esc-${i}`, templates() as Record<string, string>),
        ),
      ),
    );
  });

  it.each(fatal.map((row, i) => [row[0], i, row[2]] as const))(
    '%s: FATAL_ERROR naming the object and the rule',
    async (_what, i, expected) => {
      const result = await outcome(a, names[i] ?? '');
      expect(result.status).toBe('FATAL_ERROR');
      for (const text of expected()) expect(result.text).toContain(text);
    },
  );

  it('a Delete task naming another tenant’s object: FATAL_ERROR, the object stays', async () => {
    await install(a, 'delete-b', deleteOperatorVersion('delete-b', configMap('theirs', b)));
    const result = await outcome(a, 'delete-b');
    expect(result.status).toBe('FATAL_ERROR');
    expect(result.text).toContain(`ConfigMap ${b}/theirs names namespace ${b}`);
    expect(await get(`/api/v1/namespaces/${b}/configmaps/theirs`)).toBeDefined();
  });

  it('a Delete task naming an object of its namespace it does not own: left in place', async () => {
    await install(a, 'delete-a', deleteOperatorVersion('delete-a', configMap('undeletable', a)));
    expect((await outcome(a, 'delete-a')).status).toBe('COMPLETE');
    expect(await get(`/api/v1/namespaces/${a}/configmaps/undeletable`)).toBeDefined();
    const warned = await waitFor('the DeleteSkipped Event', async () =>
      (await events(a)).find((e) => e.reason === 'DeleteSkipped'),
    );
    expect(warned.message).toContain(
      `task remove: ConfigMap ${a}/undeletable does not carry the owner reference or planwright.dev/instance-uid label of Instance ${a}/delete-a`,
    );
  });

  it('an OperatorVersion of another namespace: refused at admission naming the allowance', async () => {
    await createKudoObject(
      admin,
      b,
      'operatorversions',
      applyStepsOperatorVersion('foreign', { 'cm.yaml': configMap('foreign', '') }),
    );
    const err = await createKudoObject(tenant, a, 'instances', {
      ...instanceObject('foreign', 'foreign', { namespace: a }),
      spec: { operatorVersion: { name: 'foreign', namespace: b } },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toContain(
      `Error getting operatorVersion foreign for instance ${a}/foreign: OperatorVersion ${b}/foreign is in another namespace`,
    );
    expect((err as ApiError).message).toContain(`--allow-operator-version ${a}=${b}`);
  });

  it('a deliberate adoption: the owner annotated the object for this Instance', async () => {
    await install(
      a,
      'adopt-ok',
      applyStepsOperatorVersion('adopt-ok', { 'cm.yaml': configMap('handed-over', a) }),
    );
    expect((await outcome(a, 'adopt-ok')).status).toBe('COMPLETE');
    const cm = await get(`/api/v1/namespaces/${a}/configmaps/handed-over`);
    expect((cm?.['data'] as Json)['owner']).toBe('tenant');
  });

  it.each(KUBECONFIG_SPELLINGS)(
    'a target kubeconfig with %s: refused naming the field, nothing sent',
    async (spelling, user, cluster, expected) => {
      const name = await installWithTarget(a, spelling, user, cluster);
      const result = await outcome(a, name, expected);
      expect(result.text).toContain('whatever its flags');
      expect(result.text).toContain(`Secret ${a}/${name}`);
    },
  );
});

describe('default (KUDO) posture: the namespace and kubeconfig rules hold too', () => {
  beforeAll(async () => {
    kudoPosture = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [d],
    });
  });

  afterAll(async () => {
    await kudoPosture?.stop();
  });

  it('a template naming kube-system is applied in the Instance namespace, with a Warning Event', async () => {
    const name = uniqueName('escape');
    await install(
      d,
      'escape',
      applyStepsOperatorVersion('escape', { 'cm.yaml': configMap(name, 'kube-system') }),
    );
    expect((await outcome(d, 'escape')).status).toBe('COMPLETE');
    expect(await get(`/api/v1/namespaces/kube-system/configmaps/${name}`)).toBeUndefined();
    expect(await get(`/api/v1/namespaces/${d}/configmaps/${name}`)).toBeDefined();
    const warned = await waitFor('the NamespaceOverridden Event', async () =>
      (await events(d)).find((e) => e.reason === 'NamespaceOverridden'),
    );
    expect(warned.message).toContain(
      `template cm.yaml: ConfigMap kube-system/${name} names namespace kube-system`,
    );
    expect(warned.message).toContain(`--allow-namespace ${d}=kube-system`);
  });

  it('adopting an existing object is a Warning Event naming its previous owner', async () => {
    await install(
      d,
      'adopt',
      applyStepsOperatorVersion('adopt', { 'cm.yaml': configMap('preexisting', d) }),
    );
    expect((await outcome(d, 'adopt')).status).toBe('COMPLETE');
    const warned = await waitFor('the AdoptedObject Event', async () =>
      (await events(d)).find((e) => e.reason === 'AdoptedObject'),
    );
    expect(warned.message).toContain(
      `ConfigMap ${d}/preexisting existed before Instance ${d}/adopt`,
    );
    expect(warned.message).toContain('previous owner: field manager');
  });

  it.each(KUBECONFIG_SPELLINGS.slice(0, 3))(
    'a target kubeconfig with %s is refused here too',
    async (spelling, user, cluster, expected) => {
      const name = await installWithTarget(d, spelling, user, cluster);
      expect((await outcome(d, name, expected)).text).toContain('whatever its flags');
    },
  );
});

describe('afterwards', () => {
  it('nothing was written outside the tenant namespaces, and the lure saw no request', async () => {
    const cm = await get(`/api/v1/namespaces/kube-system/configmaps/${victim}`);
    expect((cm?.['data'] as Json)['owner']).toBe('cluster');
    const deployment = await get(`/apis/apps/v1/namespaces/kube-system/deployments/${victim}`);
    expect(JSON.stringify(deployment)).not.toContain('attacker.example');
    expect(await get(`/api/v1/namespaces/${b}/pods/borrowed`)).toBeUndefined();
    expect(
      await get(`/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${victim}`),
    ).toBeUndefined();
    expect(await get(`/api/v1/namespaces/${victim}`)).toBeUndefined();
    expect(
      await get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${victim}s.evil.example`),
    ).toBeUndefined();
    const theirs = await get(`/api/v1/namespaces/${b}/configmaps/theirs`);
    expect((theirs?.['data'] as Json)['owner']).toBe('b');
    for (const name of ['preexisting', 'other-instance']) {
      const kept = await get(`/api/v1/namespaces/${a}/configmaps/${name}`);
      expect((kept?.['data'] as Json)['owner']).toBe('admin');
    }
    // Nothing in kube-system or b carries an Instance's labels.
    for (const ns of ['kube-system', b]) {
      const labelled = await admin.request<{ items: unknown[] }>({
        method: 'GET',
        path: `/api/v1/namespaces/${ns}/configmaps`,
        query: { labelSelector: 'heritage=kudo' },
      });
      expect(labelled.items).toEqual([]);
    }
    expect(lureRequests).toBe(0);
  });
});

/** An OperatorVersion whose deploy plan deletes what `template` renders. */
function deleteOperatorVersion(name: string, template: string): OperatorVersion {
  return operatorVersionObject(name, {
    operator: { name, kind: 'Operator' },
    version: '1.0',
    templates: { 'victim.yaml': template },
    tasks: [{ name: 'remove', kind: 'Delete', spec: { resources: ['victim.yaml'] } }],
    plans: { deploy: serialPlan([{ name: 'remove', tasks: ['remove'] }]) },
  });
}
