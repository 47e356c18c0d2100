// Planwright in the cluster for real, on a dedicated cluster with mixed nodes (it registers
// webhooks for every namespace and reconciles every Instance, so it cannot share the e2e
// cluster):
// - its image, built without a daemon (`npm run image:build`'s code, once per test run:
//   test/support/planwright-image.ts), is pushed to the cluster's registry; `planwright init --image … --wait` installs manifests/ and
//   returns once the API server calls the webhooks through the Service;
// - the Deployment's two pods run that image on the real node as the ServiceAccount (its
//   token mounted, the apiserver reached at the `kubernetes` Service's ClusterIP), their
//   probes answered to the kubelet; the self-managed TLS injects one CA into both webhook
//   configurations;
// - a KUDO package (zookeeper, whose pods the registry cannot hold: simulated by kwok) runs
//   its deploy plan, a parameter change runs it again, a change that cannot schedule while a
//   plan runs is refused to `kubectl edit` with the way out, and the Instance is uninstalled —
//   all under the ServiceAccount's RBAC, which is therefore sufficient; webhooks answer on
//   both replicas, one of them leads;
// - the RBAC is least privilege: what the ServiceAccount must not do, asked of the real
//   authorizer (SubjectAccessReview) and tried with its token.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { DEFAULT_IMAGE } from '../../../src/cli/image.ts';
import { pushTestImage } from '../../support/planwright-image.ts';
import type { KubeClient } from '../../../src/kube/index.ts';
import { ApiError } from '../../../src/kube/index.ts';
import type { Instance } from '../../../src/kudo/api/index.ts';
import { loadPackage } from '../../../src/kudo/package/index.ts';
import type { LocalCluster } from '../../../src/localcluster/index.ts';
import { ensureBuiltCli } from '../../integration/cli/built-cli.ts';
import { scriptedEditor } from '../../support/kubectl-edit.ts';
import { KUDO_PACKAGES } from '../../support/kudo.ts';
import { waitFor } from '../../support/wait.ts';
import {
  metrics,
  scraperToken,
  sampleSum,
  secretData,
  startDedicatedCluster,
  tokenClient,
  type DedicatedCluster,
  type KubectlOutcome,
} from './replicas.ts';
import {
  containerPid,
  initWithImage,
  planwrightPods,
  podLogs,
  twoReadyPods,
  type PlanwrightPod,
} from './pods.ts';
import { startAdmissionStream, type AdmissionStream } from './admission-stream.ts';
import { createConfigPackage, openLedger } from './ledger.ts';
import { startPlanWrites } from './plan-writes.ts';
import { stoppedAfterEach } from './stopped-after-each.ts';

const NS = 'planwright-system';
const SA = `system:serviceaccount:${NS}:planwright`;
const PLAN_TIMEOUT_MS = 300_000;

describe('planwright init onto real nodes: the image run as two replicas', () => {
  let dedicated: DedicatedCluster;
  let cluster: LocalCluster;
  let admin: KubeClient;
  let pods: PlanwrightPod[] = [];
  const kubectl = (args: string[], env?: NodeJS.ProcessEnv): Promise<KubectlOutcome> =>
    dedicated.kubectl(args, env);
  const caPem = async (): Promise<string> =>
    (await secretData(admin, NS, 'planwright-webhook-tls'))['ca.crt'] ?? '';
  const replicaLogs = async (): Promise<string> =>
    (
      await Promise.all(pods.map(async (p) => `--- ${p.name}\n${await podLogs(dedicated, p.name)}`))
    ).join('\n');

  beforeAll(async () => {
    dedicated = await startDedicatedCluster({ nodeKind: 'mixed' });
    ({ cluster, admin } = dedicated);
  }, 300_000);

  afterAll(async () => {
    await dedicated?.stop();
  });

  it('builds the image without a daemon, and init --wait brings it up as two replicas on the real node', async () => {
    expect(cluster.nodeKind).toBe('mixed');
    await ensureBuiltCli();
    const registry = cluster.imageRegistry ?? '';
    const pushed = await pushTestImage(registry);
    expect(pushed.reference).toBe(DEFAULT_IMAGE);

    const init = await initWithImage(cluster, { waitSeconds: 240 });
    expect([init.code, init.stderr]).toEqual([0, '']);
    for (const line of [
      'applied deployment.apps/planwright -n planwright-system',
      'applied service/planwright-webhook -n planwright-system',
      'applied poddisruptionbudget.policy/planwright -n planwright-system',
      'applied mutatingwebhookconfiguration.admissionregistration.k8s.io/planwright-instances',
      'applied validatingwebhookconfiguration.admissionregistration.k8s.io/planwright-validation',
      'applied clusterrolebinding.rbac.authorization.k8s.io/planwright',
      'Planwright webhook answers',
    ]) {
      expect(init.stdout).toContain(line);
    }

    // The webhooks answered through the Service, so its endpoints are the pods; both become
    // Ready by the kubelet's probes of /readyz.
    await twoReadyPods(admin, { timeoutMs: 120_000, seen: (p) => (pods = p) }).catch(
      async (err: unknown) => {
        throw new Error(`${(err as Error).message}\n${await replicaLogs()}`);
      },
    );
    for (const p of pods) {
      expect(p.image).toBe(DEFAULT_IMAGE);
      expect(p.serviceAccount).toBe('planwright');
      expect(p.restarts).toBe(0);
    }
    // The kubelet mounted the ServiceAccount token and the replicas used it: one holds the
    // Lease, under its pod's name.
    await waitFor('a replica holding the Lease', async () => {
      const lease = await admin.request<{ spec: { holderIdentity?: string } }>({
        path: `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/planwright-leader`,
      });
      const holder = lease.spec.holderIdentity ?? '';
      return pods.some((p) => holder.startsWith(`${p.name}_`));
    });
    // The Service's endpoints are the pods' addresses on the pod bridge.
    const slices = await admin.request<{
      items: Array<{
        endpoints?: Array<{ addresses: string[]; conditions?: { ready?: boolean } }>;
      }>;
    }>({
      path: `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`,
      query: { labelSelector: 'kubernetes.io/service-name=planwright-webhook' },
    });
    expect(
      slices.items
        .flatMap((s) => s.endpoints ?? [])
        .filter((e) => e.conditions?.ready === true)
        .flatMap((e) => e.addresses)
        .sort(),
    ).toEqual(pods.map((p) => p.ip).sort());

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
  }, 900_000);

  it(
    'completes a package’s plans under its RBAC: deploy, a parameter change, a refused kubectl edit, uninstall',
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
        ).catch(async (err: unknown) => {
          throw new Error(`${(err as Error).message}\n${await replicaLogs()}`);
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

      // A deploy that cannot finish (no node has 1000 CPUs: the new pod stays Pending), then a
      // change whose trigger is another plan, made in kubectl edit: refused by the replicas'
      // Instance webhook, the editor reopened with the reason and the way out.
      await admin.request({
        method: 'PATCH',
        path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances/${name}`,
        body: { spec: { parameters: { CPUS: '1000', CPUS_LIMIT: '1000' } } },
        contentType: 'application/merge-patch+json',
      });
      const editor = await scriptedEditor(
        'sed -i -e "s/^  parameters:$/  parameters:\\n    DISK_SIZE: 10Gi/" "$1"',
      );
      const edit = await kubectl(['edit', '-n', ns, `instance/${name}`], editor.env);
      expect(await editor.calls()).toBe(2);
      const reopened = await editor.reopened();
      expect(reopened).toContain(`# instances.kudo.dev "${name}" was not valid:`);
      expect(reopened).toContain(
        '# * spec.parameters.DISK_SIZE: this change would schedule plan "not-allowed" while plan "deploy" (',
      );
      expect(reopened).toContain(
        `Wait until plan "deploy" is finished (watch it: kubectl get instance ${name} -n ${ns} -w) and make the change again, or abort the plan first: kubectl patch instance ${name} -n ${ns} --type merge -p '{"spec":{"planExecution":{"abort":true}}}'`,
      );
      expect(reopened).toMatch(/^ {4}DISK_SIZE: 10Gi$/m);
      expect(edit.stderr).toContain(`error: instances.kudo.dev "${name}" is invalid`);
      expect((await instance()).spec?.parameters?.['DISK_SIZE']).toBeUndefined();

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
          pods.map(async (p) =>
            sampleSum(
              await metrics({ host: p.ip, port: 9443 }, ca, token),
              'planwright_webhook_requests_total',
            ),
          ),
        );
        return served.every((n) => n > 0);
      },
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    const leaders = await Promise.all(
      pods.map(async (p) =>
        sampleSum(
          await metrics({ host: p.ip, port: 9443 }, ca, token),
          'leader_election_master_status',
        ),
      ),
    );
    expect(leaders.sort()).toEqual([0, 1]);
    const lease = await admin.request<{ spec: { holderIdentity?: string } }>({
      path: `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/planwright-leader`,
    });
    expect(lease.spec.holderIdentity).toBeTruthy();
  });

  describe('availability under a steady stream of Instance writes', () => {
    const leaseHolder = async (): Promise<string> =>
      (
        await admin.request<{ spec: { holderIdentity?: string } }>({
          path: `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/planwright-leader`,
        })
      ).spec.holderIdentity ?? '';
    const podOf = (holder: string): PlanwrightPod | undefined =>
      pods.find((p) => holder.startsWith(`${p.name}_`));
    const twoReady = async (what: string, extra: (ps: PlanwrightPod[]) => boolean = () => true) =>
      waitFor(
        what,
        async () => {
          pods = (await planwrightPods(admin, NS)).filter((p) => !p.deleting);
          return pods.length === 2 && pods.every((p) => p.ready) && extra(pods);
        },
        { timeoutMs: 240_000, intervalMs: 500 },
      );
    // Request loops and ledgers a test starts are stopped after it, passed or failed.
    const track = stoppedAfterEach();
    const stream = (): AdmissionStream =>
      track(startAdmissionStream({ client: admin, namespace: 'zk' }));

    it('deleting the leader pod: another replica takes the Lease, no plan is lost or run twice, no admission request fails', async () => {
      // An Instance whose plan runs are the stream: its deploy plan applies ConfigMap
      // <name>-config with the parameter MESSAGE.
      const ns = 'handover';
      const instance = await createConfigPackage(admin, ns);
      await admin.request({
        method: 'POST',
        path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances`,
        body: instance,
      });
      const name = instance.metadata.name ?? '';
      // Every state of the Instance and of the ConfigMap from its first COMPLETE on.
      const ledger = track(await openLedger(admin, ns, name, PLAN_TIMEOUT_MS));
      const configMap = await admin.request<{ data?: Record<string, string> }>({
        path: `/api/v1/namespaces/${ns}/configmaps/${name}-config`,
      });
      expect(configMap.data?.['message']).toBe('hi');

      await twoReady('two ready replicas');
      const leader = podOf(await leaseHolder());
      if (!leader) throw new Error(`no leader among ${pods.map((p) => p.name).join(', ')}`);
      const admissions = stream();
      const runs = track(
        startPlanWrites({
          client: admin,
          namespace: ns,
          instance: name,
          parameter: 'MESSAGE',
          plan: 'deploy',
          runTimeoutMs: 120_000,
        }),
      );
      await runs.more(2);
      await admin.request({
        method: 'DELETE',
        path: `/api/v1/namespaces/${NS}/pods/${leader.name}`,
      });
      // The surviving replica or the Deployment's replacement for the deleted one: both
      // compete for the released Lease, and either may win.
      const successor = await waitFor(
        `a replica other than ${leader.name} holding the Lease`,
        async () => {
          const holder = await leaseHolder();
          return holder !== '' && !holder.startsWith(`${leader.name}_`) ? holder : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 200 },
      );
      // Runs of the new leader, written after it took over.
      await runs.more(2);
      await twoReady('a new replica ready in place of the deleted one', (ps) =>
        ps.every((p) => p.name !== leader.name),
      );
      const written = await runs.stop();
      const result = await admissions.stop();
      process.stderr.write(
        `[in-cluster e2e] leader pod deleted, Lease taken by ${successor}: ${written.length} plan runs written and COMPLETE, ${ledger.instanceStates.seen.length} Instance states watched, ${result.answered} admissions answered, ${result.failed.length} failed\n`,
      );
      expect(result.failed).toEqual([]);
      expect(result.answered).toBeGreaterThan(0);
      expect(written.length).toBeGreaterThanOrEqual(4);
      await ledger.judge(written);
    }, 600_000);

    it('kubectl rollout restart: no admission request fails', async () => {
      const before = pods.map((p) => p.name);
      const writes = stream();
      const restart = await kubectl(['rollout', 'restart', '-n', NS, 'deployment/planwright']);
      expect(restart.code).toBe(0);
      const status = await kubectl([
        'rollout',
        'status',
        '-n',
        NS,
        'deployment/planwright',
        '--timeout=300s',
      ]);
      expect(status.code).toBe(0);
      await twoReady('two new replicas ready', (ps) => ps.every((p) => !before.includes(p.name)));
      await waitFor(
        'a new replica holding the Lease',
        async () => podOf(await leaseHolder()) !== undefined,
        {
          timeoutMs: 120_000,
          intervalMs: 200,
        },
      );
      const result = await writes.stop();
      expect(result.failed).toEqual([]);
      expect(result.answered).toBeGreaterThan(0);
    }, 600_000);

    it('kill -9 of the leader’s container: the kubelet restarts it and it rejoins', async () => {
      await twoReady('two ready replicas');
      const leader = podOf(await leaseHolder());
      if (!leader) throw new Error('no leader');
      const pid = containerPid(leader.name);
      process.kill(pid, 'SIGKILL');
      await twoReady(`${leader.name} restarted by the kubelet and ready`, (ps) =>
        ps.some((p) => p.name === leader.name && p.restarts === 1),
      );
      // Someone leads again (the Lease expired, or the restarted replica took it back).
      await waitFor(
        'a replica holding the Lease',
        async () => podOf(await leaseHolder()) !== undefined,
        {
          timeoutMs: 120_000,
          intervalMs: 200,
        },
      );
      expect(containerPid(leader.name)).not.toBe(pid);
    }, 400_000);
  });

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
    const token = (
      await admin.request<{ status: { token: string } }>({
        method: 'POST',
        path: `/api/v1/namespaces/${NS}/serviceaccounts/planwright/token`,
        body: { spec: { expirationSeconds: 600 } },
      })
    ).status.token;
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
  });
});
