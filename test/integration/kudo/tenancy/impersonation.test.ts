// Plans act with the tenant's rights: `planwright start` (the built CLI, as users run it) is
// the administrator and runs in the multi-tenant posture with allowances that would let it
// write cluster-scoped objects and into another namespace — but with
// `--default-service-account planwright-tenant` every plan of namespace `a` writes as that
// ServiceAccount, which only a namespaced Role binds. What the Role does not grant ends
// FATAL_ERROR naming the object, the ServiceAccount and the verb, and nothing is written. An
// Instance may choose another ServiceAccount by annotation only where the administrator allowed
// that name (docs/security.md, "Acting as a ServiceAccount").
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { ApiError, KubeClient } from '../../../../src/kube/index.ts';
import type { Instance } from '../../../../src/kudo/api/index.ts';
import {
  createTestNamespace,
  kubeConfig,
  testCluster,
  uniqueName,
} from '../../../support/cluster.ts';
import { installKudoCrds } from '../../../support/kudo.ts';
import {
  applyStepsOperatorVersion,
  createKudoObject,
  instanceObject,
} from '../../../support/kudo-objects.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../../support/planwright-start.ts';
import { waitFor } from '../../../support/wait.ts';

type Json = Record<string, unknown>;

const admin = new KubeClient(kubeConfig());
let a: string; // the tenant's namespace
let b: string; // another namespace the allowance names
let planwright: StartedPlanwright;
const clusterRole = uniqueName('tenant-made');

async function create(path: string, body: Json): Promise<void> {
  await admin.request({ method: 'POST', path, body });
}

async function exists(path: string): Promise<boolean> {
  try {
    await admin.request({ path });
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 404) return false;
    throw err;
  }
}

/** ServiceAccount `name` of `a`, bound to a Role of `rules` in `a` (nothing else). */
async function serviceAccount(name: string, rules: Json[]): Promise<void> {
  await create(`/api/v1/namespaces/${a}/serviceaccounts`, { metadata: { name } });
  await create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${a}/roles`, {
    metadata: { name },
    rules,
  });
  await create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${a}/rolebindings`, {
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'ServiceAccount', name, namespace: a }],
  });
}

const CONFIGMAPS = { apiGroups: [''], resources: ['configmaps'], verbs: ['*'] };
const SERVICES = { apiGroups: [''], resources: ['services'], verbs: ['*'] };

function configMap(name: string, namespace: string): Json {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { k: 'v' } };
}

function service(name: string): Json {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { ports: [{ port: 80 }], selector: { app: name } },
  };
}

/** An OperatorVersion applying `objects` (one step each) and an Instance of it in `a`. */
async function install(name: string, objects: Json[], annotations?: Json): Promise<void> {
  const templates: Record<string, string> = {};
  objects.forEach((o, i) => (templates[`o${i}.yaml`] = stringify(o)));
  const ov = applyStepsOperatorVersion(name, templates);
  await createKudoObject(admin, a, 'operatorversions', ov);
  const instance = instanceObject(name, name, { namespace: a });
  await createKudoObject(admin, a, 'instances', {
    ...instance,
    metadata: { ...instance.metadata, ...(annotations ? { annotations } : {}) },
  });
}

/** The deploy plan once terminal, or once its text names `until`; messages unescaped. */
async function outcome(name: string, until?: string): Promise<{ status: string; text: string }> {
  return waitFor(`Instance ${a}/${name} to finish its deploy plan`, async () => {
    const instance = await admin.request<Instance>({
      path: `/apis/kudo.dev/v1beta1/namespaces/${a}/instances/${name}`,
    });
    const plan = (instance.status?.planStatus ?? {})['deploy'];
    const text = JSON.stringify(plan ?? {}).replace(/\\"/g, '"');
    const state = plan?.status ?? '';
    if (until !== undefined) return text.includes(until) ? { status: state, text } : undefined;
    return state === 'COMPLETE' || state === 'FATAL_ERROR' ? { status: state, text } : undefined;
  });
}

beforeAll(async () => {
  await installKudoCrds();
  [a, b] = await Promise.all([createTestNamespace('as-sa-a'), createTestNamespace('as-sa-b')]);
  await serviceAccount('planwright-tenant', [CONFIGMAPS]);
  await serviceAccount('builder', [CONFIGMAPS, SERVICES]);
  // A powerful ServiceAccount in the tenant's namespace (an administrator's, for some other
  // controller): the tenant must not be able to pick it.
  await create(`/api/v1/namespaces/${a}/serviceaccounts`, { metadata: { name: 'admin-sa' } });
  await create('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: `${a}-admin-sa` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name: 'admin-sa', namespace: a }],
  });
  planwright = await startPlanwrightCli({
    kubeconfig: testCluster().kubeconfigPath,
    watchNamespaces: a,
    args: [
      '--tenancy',
      'multi-tenant',
      // What the manager itself could do: the allowances are not what stops the plans below.
      '--allow-cluster-scoped',
      a,
      '--allow-namespace',
      `${a}=${b}`,
      '--default-service-account',
      'planwright-tenant',
      '--allow-service-account',
      `${a}=builder`,
    ],
  });
});

afterAll(async () => {
  const code = await planwright?.stop();
  expect(code).toBe(0);
  await admin
    .request({
      method: 'DELETE',
      path: `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${a}-admin-sa`,
    })
    .catch(() => undefined);
  admin.close();
});

describe('--default-service-account: plans write as the ServiceAccount of the namespace', () => {
  it('what its Role grants is applied', async () => {
    await install('own', [configMap('own', a)]);
    expect((await outcome('own')).status).toBe('COMPLETE');
    expect(await exists(`/api/v1/namespaces/${a}/configmaps/own`)).toBe(true);
  });

  it('a kind its Role does not grant, in its own namespace, ends FATAL_ERROR naming ServiceAccount and verb', async () => {
    await install('svc', [service('svc')]);
    const { status, text } = await outcome('svc');
    expect(status).toBe('FATAL_ERROR');
    expect(text).toContain(
      `Service ${a}/svc: the plan acts as ServiceAccount ${a}/planwright-tenant`,
    );
    expect(text).toMatch(/which may not (get|create|patch) services in namespace/);
    expect(text).toContain(`system:serviceaccount:${a}:planwright-tenant`);
    expect(await exists(`/api/v1/namespaces/${a}/services/svc`)).toBe(false);
  });

  it('a cluster-scoped object, allowed by --allow-cluster-scoped, is still refused by RBAC', async () => {
    await install('cluster', [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: clusterRole },
        rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
      },
    ]);
    const { status, text } = await outcome('cluster');
    expect(status).toBe('FATAL_ERROR');
    expect(text).toContain(
      `ClusterRole ${clusterRole}: the plan acts as ServiceAccount ${a}/planwright-tenant`,
    );
    expect(text).toMatch(/may not (get|create|patch) clusterroles in the cluster/);
    expect(await exists(`/apis/rbac.authorization.k8s.io/v1/clusterroles/${clusterRole}`)).toBe(
      false,
    );
  });

  it('another namespace, allowed by --allow-namespace, is still refused by RBAC', async () => {
    await install('elsewhere', [configMap('elsewhere', b)]);
    const { status, text } = await outcome('elsewhere');
    expect(status).toBe('FATAL_ERROR');
    expect(text).toContain(
      `ConfigMap ${b}/elsewhere: the plan acts as ServiceAccount ${a}/planwright-tenant`,
    );
    expect(text).toMatch(new RegExp(`may not (get|create|patch) configmaps in namespace ${b}`));
    expect(await exists(`/api/v1/namespaces/${b}/configmaps/elsewhere`)).toBe(false);
  });
});

describe('planwright.dev/service-account: the Instance chooses, within the policy', () => {
  it('an allowed name is used (its Role grants Services)', async () => {
    await install('chosen', [service('chosen')], { 'planwright.dev/service-account': 'builder' });
    expect((await outcome('chosen')).status).toBe('COMPLETE');
    expect(await exists(`/api/v1/namespaces/${a}/services/chosen`)).toBe(true);
  });

  it('a name the administrator did not allow is refused and nothing is written', async () => {
    await install('greedy', [configMap('greedy', a), service('greedy')], {
      'planwright.dev/service-account': 'admin-sa',
    });
    const { text } = await outcome('greedy', '--allow-service-account');
    expect(text).toContain(
      `asks to act as ServiceAccount ${a}/admin-sa (annotation planwright.dev/service-account)`,
    );
    expect(text).toContain(`planwright start --allow-service-account ${a}=admin-sa`);
    expect(await exists(`/api/v1/namespaces/${a}/configmaps/greedy`)).toBe(false);
    expect(await exists(`/api/v1/namespaces/${a}/services/greedy`)).toBe(false);
  });
});
