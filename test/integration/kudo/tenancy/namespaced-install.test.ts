// A namespaced installation: `planwright init --watch-namespaces <w>` grants the manager its
// roles by RoleBindings in <w> (and a Role in its own namespace for the Lease), no
// cluster-wide list, watch or write. The built `planwright start --watch-namespaces <w>` then
// runs as that ServiceAccount (a token from the TokenRequest API) and completes a plan in <w>:
// its watch caches list and watch <w> only. The webhooks are registered by the administrator,
// as `init` does (the manager cannot), here at the child's loopback port.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { registerLocalWebhooks } from '../../../../src/cli/install.ts';
import { waitForWebhooks } from '../../../../src/cli/webhook-probe.ts';
import { KubeClient, ServerSideApply, ResourceMapper } from '../../../../src/kube/index.ts';
import type { ApplyObject } from '../../../../src/kube/index.ts';
import type { Instance } from '../../../../src/kudo/api/index.ts';
import { createCertificateAuthority, issueCertificate } from '../../../../src/pki/index.ts';
import { ensureBuiltCli, PLANWRIGHT, runBuilt } from '../../cli/built-cli.ts';
import {
  createTestNamespace,
  kubeConfig,
  tokenKubeConfig,
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

const admin = new KubeClient(kubeConfig());
const adminSsa = new ServerSideApply({
  client: admin,
  mapper: new ResourceMapper(admin),
  fieldManager: 'test-admin',
});
let home: string; // the manager's namespace (ServiceAccount, Lease)
let served: string; // the namespace it serves
let other: string; // a namespace it does not serve
let manager: KubeClient;
let managerKubeconfig: string;
let installation: ApplyObject[];
let planwright: StartedPlanwright;
/** ClusterRoles get a suffix: other test files of the run share the cluster. */
const suffix = uniqueName('ns');
const RBAC_KINDS = ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];

/** The installation's RBAC with this file's ClusterRole names (roleRefs follow). */
function rbacObjects(): ApplyObject[] {
  const rename = (name: string): string => `${name}-${suffix}`;
  return installation
    .filter((o) => RBAC_KINDS.includes(o.kind ?? ''))
    .map((o) => {
      const copy = structuredClone(o);
      if (copy.kind === 'ClusterRole' || copy.kind === 'ClusterRoleBinding') {
        copy.metadata = { ...copy.metadata, name: rename(copy.metadata?.name ?? '') };
      }
      const ref = copy['roleRef'] as { kind: string; name: string } | undefined;
      if (ref?.kind === 'ClusterRole') ref.name = rename(ref.name);
      return copy;
    });
}

/**
 * What kube-controller-manager's ClusterRole aggregation controller does (the bare control
 * plane runs none): the aggregated role gets the rules of the ClusterRoles its selector names.
 */
function aggregate(objects: ApplyObject[]): ApplyObject[] {
  return objects.map((o) => {
    const rule = o['aggregationRule'] as
      { clusterRoleSelectors?: Array<{ matchLabels?: Record<string, string> }> } | undefined;
    if (o.kind !== 'ClusterRole' || !rule) return o;
    const selectors = rule.clusterRoleSelectors ?? [];
    const rules = objects
      .filter(
        (c) =>
          c.kind === 'ClusterRole' &&
          selectors.some((s) =>
            Object.entries(s.matchLabels ?? {}).every(([k, v]) => c.metadata?.labels?.[k] === v),
          ),
      )
      .flatMap((c) => (c['rules'] ?? []) as unknown[]);
    return { ...o, rules };
  });
}

async function instanceStatus(name: string): Promise<string> {
  const instance = await admin.request<Instance>({
    path: `/apis/kudo.dev/v1beta1/namespaces/${served}/instances/${name}`,
  });
  return instance.status?.planStatus?.['deploy']?.status ?? '';
}

beforeAll(async () => {
  await installKudoCrds();
  [home, served, other] = await Promise.all([
    createTestNamespace('pw-home'),
    createTestNamespace('pw-served'),
    createTestNamespace('pw-other'),
  ]);
  await ensureBuiltCli();
  const init = await runBuilt(
    PLANWRIGHT,
    ['init', '--dry-run', '-o', 'json', '--namespace', home, '--watch-namespaces', served],
    { env: { KUBECONFIG: '/nonexistent' } },
  );
  expect(init.stderr).toBe('');
  installation = (JSON.parse(init.stdout) as { items: ApplyObject[] }).items;
  for (const o of aggregate(rbacObjects())) await adminSsa.apply(o);
  const token = await admin.request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${home}/serviceaccounts/planwright/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
  });
  const dir = mkdtempSync(join(tmpdir(), 'pw-namespaced-'));
  managerKubeconfig = join(dir, 'kubeconfig');
  const kc = tokenKubeConfig(token.status.token);
  writeFileSync(managerKubeconfig, kc.exportConfig());
  manager = new KubeClient(kc);
  // The webhook's serving certificate, as cert-manager would mount it (files mode).
  const ca = createCertificateAuthority({ commonName: 'namespaced-test-ca' });
  const serving = issueCertificate(ca, {
    commonName: '127.0.0.1',
    ipAddresses: ['127.0.0.1'],
    usage: 'server',
  });
  writeFileSync(join(dir, 'tls.crt'), serving.certPem);
  writeFileSync(join(dir, 'tls.key'), serving.keyPem);
  planwright = await startPlanwrightCli({
    kubeconfig: managerKubeconfig,
    watchNamespaces: served,
    install: false,
    args: ['--namespace', home, '--cert-dir', dir],
  });
  const watch = { names: [served], prefixes: [] };
  // Registered as `planwright start --install` would, naming the installation (the manager's
  // --namespace): the cluster calls this installation, so it reconciles (docs/replicas.md).
  await registerLocalWebhooks(admin, {
    baseUrl: `https://127.0.0.1:${planwright.port}`,
    caPem: ca.certPem,
    watch,
    installation: home,
  });
  const probe = await waitForWebhooks(admin, { namespace: served, timeoutMs: 30_000 });
  expect(probe).toMatchObject({ answered: true });
});

afterAll(async () => {
  if (planwright) expect(await planwright.stop()).toBe(0);
  for (const o of rbacObjects().filter((r) => !r.metadata?.namespace)) {
    await adminSsa.remove(o).catch(() => undefined);
  }
  manager?.close();
  admin.close();
});

describe('init --watch-namespaces', () => {
  it('binds the roles in the served namespace; only cluster-scoped APIs stay bound cluster-wide', () => {
    const bindings = installation.filter((o) => o.kind === 'ClusterRoleBinding');
    // planwright-registration: the mutating webhook configuration, by name (which
    // installation the cluster calls; docs/replicas.md).
    expect(bindings.map((b) => (b['roleRef'] as { name: string }).name).sort()).toEqual([
      'planwright-registration',
      'planwright-reviews',
      'planwright-webhook-tls',
    ]);
    const roleBindings = installation
      .filter((o) => o.kind === 'RoleBinding')
      .map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`)
      .sort();
    expect(roleBindings).toEqual(
      [
        `${home}/planwright`,
        `${home}/planwright-webhook-tls`,
        `${served}/planwright`,
        `${served}/planwright-package-objects`,
      ].sort(),
    );
    const deployment = installation.find((o) => o.kind === 'Deployment');
    expect(stringify(deployment)).toContain(`- --watch-namespaces\n`);
    const webhooks = installation.filter((o) => o.kind?.endsWith('WebhookConfiguration'));
    expect(webhooks).toHaveLength(2);
    for (const w of webhooks) {
      for (const hook of w['webhooks'] as Array<{
        matchConditions?: Array<{ expression: string }>;
      }>) {
        expect(hook.matchConditions?.[0]?.expression).toContain(
          `request.namespace in ["${served}"]`,
        );
      }
    }
  });
});

describe('planwright start as that ServiceAccount', () => {
  it('has no cluster-wide list: its identity is refused outside the served namespace', async () => {
    for (const path of [
      '/api/v1/configmaps',
      '/apis/kudo.dev/v1beta1/instances',
      `/api/v1/namespaces/${other}/configmaps`,
    ]) {
      await expect(manager.request({ path })).rejects.toMatchObject({ statusCode: 403 });
    }
    await expect(
      manager.request({ path: `/api/v1/namespaces/${served}/configmaps` }),
    ).resolves.toBeDefined();
  });

  it('completes a plan in the served namespace', async () => {
    const ov = applyStepsOperatorVersion('nsapp', {
      'cm.yaml': stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nsapp' } }),
    });
    await createKudoObject(admin, served, 'operatorversions', ov);
    await createKudoObject(admin, served, 'instances', instanceObject('nsapp', 'nsapp'));
    const status = await waitFor(`Instance ${served}/nsapp to finish deploy`, async () => {
      const s = await instanceStatus('nsapp');
      return s === 'COMPLETE' || s === 'FATAL_ERROR' ? s : undefined;
    });
    expect(status).toBe('COMPLETE');
    const cm = await admin.request<ApplyObject>({
      path: `/api/v1/namespaces/${served}/configmaps/nsapp`,
    });
    expect(cm.metadata?.name).toBe('nsapp');
    // Nothing it did needed a right it lacks: no request of it was refused.
    expect(planwright.log()).not.toMatch(/forbidden/i);
  });
});
