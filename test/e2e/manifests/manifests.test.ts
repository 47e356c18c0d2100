// The default installation, applied as shipped and run as its ServiceAccount, on a dedicated
// workloads cluster (it registers webhooks for every namespace and reconciles every
// Instance, so it cannot share the e2e cluster):
// - `kubectl apply --server-side -k manifests/` succeeds, and the Deployment's two pods are
//   scheduled and run (kwok);
// - kwok runs no containers, so the two replicas run as local processes with the Deployment's
//   args and the ServiceAccount's TokenRequest token in the in-cluster files (see
//   replicas.ts); the webhook Service reaches them through EndpointSlices;
// - the self-managed TLS makes one CA and injects it into both webhook configurations;
// - a KUDO package (zookeeper) runs its deploy plan, a parameter change runs it again, and
//   the Instance is uninstalled — all under the ServiceAccount's RBAC, which is therefore
//   sufficient; webhooks answer on both replicas, one of them leads;
// - the RBAC is least privilege: what the ServiceAccount must not do, asked of the real
//   authorizer (SubjectAccessReview) and tried with its token.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFESTS_DIR } from '../../../src/cli/install.ts';
import type { KubeClient } from '../../../src/kube/index.ts';
import { ApiError } from '../../../src/kube/index.ts';
import type { Instance } from '../../../src/kudo/api/index.ts';
import { loadPackage } from '../../../src/kudo/package/index.ts';
import type { LocalCluster } from '../../../src/localcluster/index.ts';
import { KUDO_PACKAGES } from '../../support/kudo.ts';
import { imageRoot, type ImageRoot } from '../../support/dockerfile.ts';
import { waitFor } from '../../support/wait.ts';
import {
  metrics,
  scraperToken,
  readDeployment,
  sampleSum,
  type DeploymentSpec,
  type Replica,
  secretData,
  startDedicatedCluster,
  runDeploymentLocally,
  tokenClient,
  type DedicatedCluster,
  type KubectlOutcome,
} from './replicas.ts';

const NS = 'planwright-system';
const SA = `system:serviceaccount:${NS}:planwright`;
const PLAN_TIMEOUT_MS = 300_000;

describe('manifests/ applied and run as the ServiceAccount', () => {
  let dedicated: DedicatedCluster;
  let cluster: LocalCluster;
  let admin: KubeClient;
  let deployment: DeploymentSpec;
  let token = '';
  const replicas: Replica[] = [];
  let image: ImageRoot | undefined;
  const kubectl = (args: string[]): Promise<KubectlOutcome> => dedicated.kubectl(args);
  const caPem = async (): Promise<string> =>
    (await secretData(admin, NS, 'planwright-webhook-tls'))['ca.crt'] ?? '';

  // The image's files, made once for both replicas (a copy of node_modules, pruned).
  const runnableImage = async (): Promise<ImageRoot> => (image ??= await imageRoot());

  beforeAll(async () => {
    dedicated = await startDedicatedCluster();
    ({ cluster, admin } = dedicated);
  }, 180_000);

  afterAll(async () => {
    for (const r of replicas) await r.stop();
    await dedicated?.stop();
    await image?.remove();
  }, 120_000);

  it('applies server-side with kubectl -k, and the Deployment runs its pods', async () => {
    const res = await kubectl(['apply', '--server-side', '-k', MANIFESTS_DIR]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    for (const line of [
      'customresourcedefinition.apiextensions.k8s.io/instances.kudo.dev serverside-applied',
      'deployment.apps/planwright serverside-applied',
      'mutatingwebhookconfiguration.admissionregistration.k8s.io/planwright-instances serverside-applied',
      'validatingwebhookconfiguration.admissionregistration.k8s.io/planwright-validation serverside-applied',
      'clusterrole.rbac.authorization.k8s.io/planwright-package-objects serverside-applied',
    ]) {
      expect(res.stdout).toContain(line);
    }
    deployment = await readDeployment(admin, NS, 'planwright');
    expect(deployment.replicas).toBe(2);
    await waitFor(
      'the Deployment available with 2 replicas (pods on kwok)',
      async () => {
        const d = await admin.request<{ status?: { availableReplicas?: number } }>({
          path: `/apis/apps/v1/namespaces/${NS}/deployments/planwright`,
        });
        return d.status?.availableReplicas === 2;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
  }, 180_000);

  it('runs two replicas as the ServiceAccount: one CA injected into both configurations, webhooks served through the Service', async () => {
    // kwok runs no containers: the replicas run here instead (see replicas.ts).
    token = await runDeploymentLocally({
      cluster,
      admin,
      namespace: NS,
      deployment,
      image: await runnableImage(),
      caPem,
      replicas,
    });
    // They run from the image's files: production dependencies only, no sources.
    const workdir = (await runnableImage()).workdir;
    for (const absent of ['node_modules/typescript', 'node_modules/jest', 'src', 'test']) {
      expect([absent, existsSync(join(workdir, absent))]).toEqual([absent, false]);
    }
    expect(existsSync(join(workdir, 'node_modules', '@kubernetes', 'client-node'))).toBe(true);

    // Compared as certificates: the Secret's PEM and the injected bundle may differ in line
    // endings.
    const fingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;
    const ca = fingerprint(await caPem());
    for (const path of [
      '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/planwright-instances',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/planwright-validation',
    ]) {
      const config = await admin.request<{
        webhooks: Array<{ clientConfig: { caBundle?: string } }>;
      }>({ path });
      expect(
        config.webhooks.map((w) =>
          fingerprint(Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString('utf8')),
        ),
      ).toEqual(config.webhooks.map(() => ca));
    }
  }, 240_000);

  it(
    'completes a package’s plans under its RBAC: deploy, a parameter change, uninstall',
    async () => {
      const ns = 'zk';
      await admin.request({
        method: 'POST',
        path: '/api/v1/namespaces',
        body: { metadata: { name: ns } },
      });
      await waitFor('ServiceAccount zk/default', () =>
        admin.request({ path: `/api/v1/namespaces/${ns}/serviceaccounts/default` }),
      );
      const pkg = await loadPackage(join(KUDO_PACKAGES, 'zookeeper'), { namespace: ns });
      const create = (plural: string, body: object): Promise<unknown> =>
        admin.request({
          method: 'POST',
          path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/${plural}`,
          body,
        });
      // Admission runs on the replicas, through the Service: the OperatorVersion webhook
      // verifies the package, the Instance webhooks schedule deploy.
      await create('operators', pkg.operator);
      await create('operatorversions', pkg.operatorVersion);
      const name = pkg.instance.metadata.name ?? '';
      await create('instances', pkg.instance);
      const instance = (): Promise<Instance> =>
        admin.request<Instance>({
          path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances/${name}`,
        });
      const complete = async (uid: string): Promise<void> => {
        await waitFor(
          `deploy run ${uid} COMPLETE`,
          async () => {
            const i = await instance();
            const ps = i.status?.planStatus?.['deploy'];
            if (ps?.uid === uid && ps.status === 'FATAL_ERROR') {
              throw new Error(`deploy failed: ${JSON.stringify(ps)}`);
            }
            return ps?.uid === uid && ps.status === 'COMPLETE';
          },
          { timeoutMs: PLAN_TIMEOUT_MS, intervalMs: 1000 },
        ).catch((err: unknown) => {
          throw new Error(
            `${(err as Error).message}\n${replicas.map((r) => `--- replica ${r.index}\n${r.logs().slice(-6000)}`).join('\n')}`,
          );
        });
      };
      const first = (await instance()).spec?.planExecution?.uid ?? '';
      expect(first).not.toBe('');
      await complete(first);

      await admin.request({
        method: 'PATCH',
        path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances/${name}`,
        body: { spec: { parameters: { MEMORY: '512Mi' } } },
        contentType: 'application/merge-patch+json',
      });
      const second = (await instance()).spec?.planExecution?.uid ?? '';
      expect(second).not.toBe(first);
      await complete(second);
      const sts = await admin.request<{
        spec: {
          template: {
            spec: { containers: Array<{ resources: { requests: { memory: string } } }> };
          };
        };
      }>({
        // The package names it {{ .Name }}-{{ .OperatorName }}.
        path: `/apis/apps/v1/namespaces/${ns}/statefulsets/${name}-zookeeper`,
      });
      expect(sts.spec.template.spec.containers[0]?.resources.requests.memory).toBe('512Mi');

      await admin.request({
        method: 'DELETE',
        path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances/${name}`,
      });
      await waitFor(
        'the Instance gone (finalizer removed by the controller)',
        async () => {
          try {
            await instance();
            return false;
          } catch (err) {
            return err instanceof ApiError && err.statusCode === 404;
          }
        },
        { timeoutMs: PLAN_TIMEOUT_MS, intervalMs: 1000 },
      );
    },
    PLAN_TIMEOUT_MS * 3,
  );

  it('serves webhooks on both replicas and leads on one', async () => {
    const ca = await caPem();
    const token = await scraperToken(admin, NS);
    // The apiserver picks an endpoint (a random EndpointSlice) when it dials, and keeps the
    // connection alive: sequential calls stay on one replica. Concurrent calls make it dial
    // more connections, so bursts of parallel writes (dry-run: nothing is stored) until both
    // replicas have answered some.
    await waitFor(
      'both replicas answering webhooks',
      async () => {
        await Promise.all(
          Array.from({ length: 8 }, (_, k) =>
            admin
              .request({
                method: 'POST',
                path: '/apis/kudo.dev/v1beta1/namespaces/zk/instances',
                query: { dryRun: 'All' },
                body: {
                  apiVersion: 'kudo.dev/v1beta1',
                  kind: 'Instance',
                  metadata: { name: `probe-${k}` },
                  spec: { operatorVersion: { name: 'does-not-exist' } },
                },
              })
              .catch(() => undefined),
          ),
        );
        const served = await Promise.all(
          replicas.map(async (r) =>
            sampleSum(await metrics(r, ca, token), 'planwright_webhook_requests_total'),
          ),
        );
        return served.every((n) => n > 0);
      },
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    const leaders = await Promise.all(
      replicas.map(async (r) =>
        sampleSum(await metrics(r, ca, token), 'leader_election_master_status'),
      ),
    );
    expect(leaders.sort()).toEqual([0, 1]);
    const lease = await admin.request<{ spec: { holderIdentity?: string } }>({
      path: `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/planwright-leader`,
    });
    expect(lease.spec.holderIdentity).toBeTruthy();
  }, 120_000);

  it('grants the ServiceAccount no more than it needs', async () => {
    const can = async (attributes: Record<string, string>): Promise<boolean> => {
      const review = await admin.request<{ status: { allowed: boolean } }>({
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: SA,
            groups: [
              'system:serviceaccounts',
              `system:serviceaccounts:${NS}`,
              'system:authenticated',
            ],
            resourceAttributes: attributes,
          },
        },
      });
      return review.status.allowed;
    };
    const forbidden: Array<Record<string, string>> = [
      // Secrets: none outside its own certificate Secret.
      { verb: 'get', resource: 'secrets', namespace: 'kube-system', name: 'any' },
      { verb: 'list', resource: 'secrets', namespace: 'kube-system' },
      { verb: 'list', resource: 'secrets', namespace: 'zk' },
      { verb: 'watch', resource: 'secrets' },
      { verb: 'get', resource: 'secrets', namespace: NS, name: 'another-secret' },
      { verb: 'list', resource: 'secrets', namespace: NS },
      // RBAC: no writes, no escalation.
      { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' },
      {
        verb: 'create',
        group: 'rbac.authorization.k8s.io',
        resource: 'rolebindings',
        namespace: 'zk',
      },
      { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'roles', namespace: 'zk' },
      {
        verb: 'update',
        group: 'rbac.authorization.k8s.io',
        resource: 'clusterroles',
        name: 'planwright',
      },
      { verb: 'escalate', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' },
      { verb: 'bind', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' },
      // Other products' webhooks, CRDs, nodes, namespaces, identities.
      {
        verb: 'update',
        group: 'admissionregistration.k8s.io',
        resource: 'validatingwebhookconfigurations',
        name: 'someone-else',
      },
      {
        verb: 'patch',
        group: 'admissionregistration.k8s.io',
        resource: 'mutatingwebhookconfigurations',
        name: 'someone-else',
      },
      {
        verb: 'list',
        group: 'admissionregistration.k8s.io',
        resource: 'mutatingwebhookconfigurations',
      },
      { verb: 'create', group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' },
      { verb: 'patch', resource: 'nodes', name: 'kwok-node-1' },
      { verb: 'delete', resource: 'namespaces', name: 'zk' },
      { verb: 'impersonate', resource: 'users' },
      {
        verb: 'create',
        resource: 'serviceaccounts',
        subresource: 'token',
        namespace: 'kube-system',
        name: 'default',
      },
      {
        verb: 'update',
        group: 'coordination.k8s.io',
        resource: 'leases',
        namespace: 'kube-system',
        name: 'kube-scheduler',
      },
      // kudo.dev: it never writes OperatorVersions or Operators.
      { verb: 'update', group: 'kudo.dev', resource: 'operatorversions', namespace: 'zk' },
      { verb: 'delete', group: 'kudo.dev', resource: 'instances', namespace: 'zk' },
    ];
    const allowedAnyway: Array<Record<string, string>> = [];
    for (const attributes of forbidden) if (await can(attributes)) allowedAnyway.push(attributes);
    expect(allowedAnyway).toEqual([]);
    // What it does need stays granted (the plans above ran with it).
    const needed: Array<Record<string, string>> = [
      { verb: 'get', resource: 'secrets', namespace: NS, name: 'planwright-webhook-tls' },
      {
        verb: 'patch',
        group: 'admissionregistration.k8s.io',
        resource: 'validatingwebhookconfigurations',
        name: 'planwright-validation',
      },
      {
        verb: 'update',
        group: 'kudo.dev',
        resource: 'instances',
        subresource: 'status',
        namespace: 'zk',
      },
      { verb: 'create', group: 'apps', resource: 'statefulsets', namespace: 'zk' },
      // Pipe tasks copy their files out through exec (a WebSocket exec is a create).
      { verb: 'create', resource: 'pods', subresource: 'exec', namespace: 'zk' },
    ];
    for (const attributes of needed) {
      expect([attributes, await can(attributes)]).toEqual([attributes, true]);
    }
    // And with its own token, for real: reading a Secret elsewhere is refused.
    const asSa = tokenClient(cluster, token);
    try {
      const refused = await asSa.request({ path: '/api/v1/namespaces/kube-system/secrets' }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(ApiError);
      expect((refused as ApiError).statusCode).toBe(403);
      const rbac = await asSa
        .request({
          method: 'POST',
          path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
          body: {
            metadata: { name: 'planwright-escalates' },
            roleRef: {
              apiGroup: 'rbac.authorization.k8s.io',
              kind: 'ClusterRole',
              name: 'cluster-admin',
            },
            subjects: [{ kind: 'ServiceAccount', name: 'planwright', namespace: NS }],
          },
        })
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      expect((rbac as ApiError).statusCode).toBe(403);
    } finally {
      asSa.close();
    }
  }, 60_000);
});
