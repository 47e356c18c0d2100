// charts/planwright installed with a real `helm` (built from its Go module) on a dedicated
// cluster with a real node (the chart registers webhooks for every namespace and reconciles
// every Instance, so it cannot share the e2e cluster): Planwright's image, built here without
// a daemon and pushed to the cluster's registry, runs as the chart's Deployment; an Instance
// of examples/hello-config reaches COMPLETE through the chart's webhooks; `helm upgrade` with a
// changed value changes the Deployment and Planwright keeps answering; `helm uninstall` leaves
// nothing behind — every object the cluster has afterwards it had before the install, but the
// release's namespace (with what Kubernetes puts in every namespace) and Events.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_IMAGE, pushPlanwrightImage } from '../../../src/cli/image.ts';
import { ApiError, type KubeClient } from '../../../src/kube/index.ts';
import { repositoryRoot } from '../../../src/localcluster/paths.ts';
import { ensureBuiltCli, runKudo } from '../../integration/cli/built-cli.ts';
import { ensureHelm, runHelm, type HelmResult } from '../../support/helm.ts';
import { waitFor } from '../../support/wait.ts';
import { planwrightPods, podLogs } from '../manifests/pods.ts';
import { secretData, startDedicatedCluster, type DedicatedCluster } from '../manifests/replicas.ts';

const NS = 'planwright-system';
const CHART = join(repositoryRoot(), 'charts', 'planwright');
const EXAMPLE = join(repositoryRoot(), 'examples', 'hello-config');
const TENANT = 'helm-tenant';

interface ResourceList {
  groupVersion: string;
  resources: Array<{ name: string; kind: string; namespaced: boolean; verbs: string[] }>;
}

/** Every object the API serves a list of, as `group/kind namespace/name` (Events left out). */
async function everything(admin: KubeClient): Promise<Set<string>> {
  const versions: string[] = [];
  const core = await admin.request<{ versions: string[] }>({ path: '/api' });
  versions.push(...core.versions.map((v) => `/api/${v}`));
  const groups = await admin.request<{
    groups: Array<{ preferredVersion: { groupVersion: string } }>;
  }>({ path: '/apis' });
  versions.push(...groups.groups.map((g) => `/apis/${g.preferredVersion.groupVersion}`));
  const out = new Set<string>();
  for (const path of versions) {
    const list = await admin.request<ResourceList>({ path });
    for (const r of list.resources) {
      if (r.name.includes('/') || !r.verbs.includes('list') || r.kind === 'Event') continue;
      let items: Array<{ metadata: { name: string; namespace?: string } }>;
      try {
        items = (await admin.request<{ items: typeof items }>({ path: `${path}/${r.name}` })).items;
      } catch (err) {
        if (err instanceof ApiError && (err.statusCode === 404 || err.statusCode === 405)) continue;
        throw err;
      }
      for (const i of items) {
        out.add(`${list.groupVersion}/${r.kind} ${i.metadata.namespace ?? ''}/${i.metadata.name}`);
      }
    }
  }
  return out;
}

describe('charts/planwright with helm onto a cluster with a real node', () => {
  let dedicated: DedicatedCluster;
  let admin: KubeClient;
  let home: string;
  let before: Set<string>;
  const helm = (args: readonly string[]): Promise<HelmResult> =>
    runHelm([...args, '--kubeconfig', dedicated.cluster.kubeconfigPath], { home });
  const kudo = (args: readonly string[]) =>
    runKudo(args, {
      namespace: TENANT,
      kubeconfig: dedicated.cluster.kubeconfigPath,
      home: join(home, 'kudo'),
    });
  const logs = async (): Promise<string> => {
    const pods = await planwrightPods(admin, NS).catch(() => []);
    return (await Promise.all(pods.map((p) => podLogs(dedicated, p.name)))).join('\n');
  };

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'helm-e2e-'));
    [dedicated] = await Promise.all([
      startDedicatedCluster({ nodeKind: 'mixed' }),
      ensureHelm({ onProgress: (line) => process.stderr.write(`${line}\n`) }),
      ensureBuiltCli(),
    ]);
    admin = dedicated.admin;
    await pushPlanwrightImage({ registry: dedicated.cluster.imageRegistry ?? '' });
    // The cluster's own objects settled first: a kubelet (or kwok) creates its node's Lease
    // after the node is Ready, and on a busy machine that came after the snapshot once, so
    // the Lease counted as left behind by the release.
    await waitFor(
      "every node's Lease",
      async () => {
        const nodes = await admin.request<{ items: Array<{ metadata: { name: string } }> }>({
          path: '/api/v1/nodes',
        });
        const leases = await admin.request<{ items: Array<{ metadata: { name: string } }> }>({
          path: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
        });
        const held = new Set(leases.items.map((l) => l.metadata.name));
        return nodes.items.every((n) => held.has(n.metadata.name));
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    before = await everything(admin);
  }, 3_600_000);

  afterAll(async () => {
    await dedicated?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('installs: the Deployment runs the image on the real node and an Instance reaches COMPLETE', async () => {
    const install = await helm([
      'install',
      'planwright',
      CHART,
      '--namespace',
      NS,
      '--create-namespace',
      '--set',
      'crds.keep=false',
      '--wait',
      '--timeout',
      '5m',
    ]);
    expect([install.code, install.stderr]).toEqual([0, '']);
    expect(install.stdout).toContain('STATUS: deployed');
    const pods = await planwrightPods(admin, NS);
    expect(pods.map((p) => [p.image, p.node, p.ready])).toEqual([
      [DEFAULT_IMAGE, 'node-1', true],
      [DEFAULT_IMAGE, 'node-1', true],
    ]);

    expect((await dedicated.kubectl(['create', 'namespace', TENANT])).code).toBe(0);
    const installed = await kudo(['install', EXAMPLE, '--instance', 'hello', '--wait']);
    if (installed.code !== 0) throw new Error(`${installed.stderr}\n${await logs()}`);
    expect(installed.stdout).toContain(`instance ${TENANT}/hello ready`);
    const status = await kudo(['plan', 'status', '--instance', 'hello']);
    expect(status.stdout).toMatch(/Plan deploy \(serial strategy\) \[COMPLETE\]/);
    // The self-managed certificate's Secret goes with the Service it serves.
    const secret = await admin.request<{
      metadata: { ownerReferences?: Array<{ kind: string; name: string }> };
    }>({ path: `/api/v1/namespaces/${NS}/secrets/planwright-webhook-tls` });
    expect(secret.metadata.ownerReferences?.map((o) => `${o.kind}/${o.name}`)).toEqual([
      'Service/planwright-webhook',
    ]);
  }, 600_000);

  it('upgrades with a changed value: one replica, the same certificate, webhooks answering', async () => {
    const ca = (await secretData(admin, NS, 'planwright-webhook-tls'))['ca.crt'];
    const upgrade = await helm([
      'upgrade',
      'planwright',
      CHART,
      '--namespace',
      NS,
      '--reuse-values',
      '--set',
      'replicas=1',
      '--wait',
      '--timeout',
      '5m',
    ]);
    expect([upgrade.code, upgrade.stderr]).toEqual([0, '']);
    expect(upgrade.stdout).toContain('REVISION: 2');
    const deployment = await admin.request<{ spec: { replicas: number } }>({
      path: `/apis/apps/v1/namespaces/${NS}/deployments/planwright`,
    });
    expect(deployment.spec.replicas).toBe(1);
    await waitFor(
      'one Planwright pod',
      async () => {
        const pods = (await planwrightPods(admin, NS)).filter((p) => !p.deleting);
        return pods.length === 1 && pods[0]?.ready ? pods : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect((await secretData(admin, NS, 'planwright-webhook-tls'))['ca.crt']).toBe(ca);
    const updated = await kudo([
      'update',
      '--instance',
      'hello',
      '-p',
      'message=upgraded',
      '--wait',
    ]);
    expect([updated.code, updated.stderr]).toEqual([0, '']);
    const config = await admin.request<{ data: Record<string, string> }>({
      path: `/api/v1/namespaces/${TENANT}/configmaps/hello-greeting`,
    });
    expect(JSON.stringify(config.data)).toContain('upgraded');
  }, 600_000);

  it('uninstalls and leaves nothing behind', async () => {
    const removed = await kudo(['uninstall', '--instance', 'hello', '--wait']);
    expect([removed.code, removed.stderr]).toEqual([0, '']);
    expect((await dedicated.kubectl(['delete', 'namespace', TENANT, '--wait=true'])).code).toBe(0);
    const uninstall = await helm(['uninstall', 'planwright', '--namespace', NS, '--wait']);
    expect([uninstall.code, uninstall.stderr]).toEqual([0, '']);
    // What every namespace has, and the namespace itself (helm never deletes namespaces).
    const expected = new Set([
      `v1/Namespace /${NS}`,
      `v1/ServiceAccount ${NS}/default`,
      `v1/ConfigMap ${NS}/kube-root-ca.crt`,
    ]);
    const left = await waitFor(
      'the objects of the release gone',
      async () => {
        const now = await everything(admin);
        const extra = [...now].filter((o) => !before.has(o) && !expected.has(o));
        return extra.length === 0 ? extra : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 1_000 },
    ).catch(async () =>
      [...(await everything(admin))].filter((o) => !before.has(o) && !expected.has(o)),
    );
    expect(left).toEqual([]);
  }, 600_000);
});
