// The cert-manager variant on a real node, on a dedicated cluster with mixed nodes (it
// registers webhooks for every namespace):
// - cert-manager's controller and cainjector (built from the Go wrapper module, run as
//   processes against the cluster: see cert-manager.ts) with its own CRDs;
// - Planwright's image built here and pushed to the cluster's registry, then
//   `planwright init --image … --cert-manager --wait`: the variant's Issuers and Certificate
//   issue the serving certificate, the cainjector fills both webhook configurations, and the
//   Deployment's two pods run on the real node with the issued Secret mounted by the kubelet;
// - the pods serve that certificate, the API server calls them through the Service, a plan
//   runs, and a forced renewal (what `cmctl renew` does) reaches the pods through the
//   kubelet's refresh of the mounted Secret and is hot-swapped with no admission failing.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { DEFAULT_IMAGE } from '../../../src/cli/image.ts';
import { pushTestImage } from '../../support/planwright-image.ts';
import { ResourceManager, ResourceMapper, type KubeClient } from '../../../src/kube/index.ts';
import type { ApiError } from '../../../src/kube/index.ts';
import type { Instance } from '../../../src/kudo/api/index.ts';
import type { LocalCluster } from '../../../src/localcluster/index.ts';
import { ensureBuiltCli } from '../../integration/cli/built-cli.ts';
import { validOperatorVersion } from '../../support/operator-versions.ts';
import { waitFor } from '../../support/wait.ts';
import { startAdmissionStream } from './admission-stream.ts';
import {
  certManagerCrdFiles,
  ensureCertManager,
  renewCertificate,
  startCertManager,
  type RunningCertManager,
} from './cert-manager.ts';
import {
  initWithImage,
  planwrightPods,
  podLogs,
  twoReadyPods,
  type PlanwrightPod,
} from './pods.ts';
import {
  metrics,
  sampleSum,
  scraperToken,
  secretData,
  servedFingerprint,
  startDedicatedCluster,
  type DedicatedCluster,
} from './replicas.ts';

const NS = 'planwright-system';
const CERT_SECRET = 'planwright-webhook-cert';
const APP_NS = 'apps';
const fingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;
/** cert-manager's cainjector appends a new CA to a caBundle: checked for containing one. */
const bundleFingerprints = (pem: string): string[] =>
  (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map(
    fingerprint,
  );

describe('cert-manager variant on real nodes: init --cert-manager, the pods serve the issued certificate', () => {
  let dedicated: DedicatedCluster;
  let cluster: LocalCluster;
  let admin: KubeClient;
  let certManager: RunningCertManager | undefined;
  let pods: PlanwrightPod[] = [];
  const secret = (name: string): Promise<Record<string, string>> => secretData(admin, NS, name);
  const diagnostics = async (): Promise<string> =>
    [
      certManager?.logs() ?? '',
      ...(await Promise.all(
        pods.map(async (p) => `--- ${p.name}\n${await podLogs(dedicated, p.name)}`),
      )),
    ].join('\n');
  const withDiagnostics = async (err: unknown): Promise<never> => {
    throw new Error(`${(err as Error).message}\n${await diagnostics()}`);
  };
  /** Each pod's served certificate equals the Secret's (the kubelet refreshed the volume). */
  const podsServe = async (issued: Record<string, string>): Promise<boolean> => {
    const want = fingerprint(issued['tls.crt'] ?? '');
    for (const p of pods) {
      const served = await servedFingerprint({ host: p.ip, port: 9443 }, issued['ca.crt'] ?? '');
      if (served !== want) return false;
    }
    return true;
  };

  beforeAll(async () => {
    // Cold, this builds cert-manager from the module proxy (minutes); afterwards a lookup.
    const binary = await ensureCertManager({
      onProgress: (line) => process.stderr.write(`[cert-manager build] ${line}\n`),
    });
    dedicated = await startDedicatedCluster({ nodeKind: 'mixed' });
    ({ cluster, admin } = dedicated);
    for (const file of await certManagerCrdFiles()) {
      const res = await dedicated.kubectl(['apply', '--server-side', '-f', file]);
      if (res.code !== 0) throw new Error(`applying ${file}: ${res.stderr}`);
    }
    // Planwright's own CRD wait: `kubectl wait --for=condition=Established` fails at once on a
    // CRD whose status has no conditions yet (".status.conditions accessor error"), which a
    // loaded apiserver shows for a moment after the apply.
    const resources = new ResourceManager({
      client: admin,
      mapper: new ResourceMapper(admin),
      fieldManager: 'cert-manager-pods-test',
    });
    await resources.waitEstablished(
      [
        'certificates.cert-manager.io',
        'certificaterequests.cert-manager.io',
        'issuers.cert-manager.io',
      ],
      { served: true, timeoutMs: 120_000 },
    );
    certManager = startCertManager(binary, cluster.kubeconfigPath);
  }, 3_600_000);

  afterAll(async () => {
    await certManager?.stop();
    await dedicated?.stop();
  });

  it('init --image --cert-manager --wait: two pods on the real node serving the issued certificate', async () => {
    await ensureBuiltCli();
    await pushTestImage(cluster.imageRegistry ?? '');
    const init = await initWithImage(cluster, { flags: ['--cert-manager'], waitSeconds: 300 });
    // cert-manager runs as processes here, not as a Deployment: init says so.
    expect(init.stderr).toContain('no Deployment labelled app=cert-manager found');
    expect(init.code).toBe(0);
    for (const line of [
      'applied issuer.cert-manager.io/planwright-webhook-ca -n planwright-system',
      'applied certificate.cert-manager.io/planwright-webhook-cert -n planwright-system',
      'applied deployment.apps/planwright -n planwright-system',
      'Planwright webhook answers',
    ]) {
      expect(init.stdout).toContain(line);
    }
    // The variant manages no certificate of its own.
    expect(init.stdout).not.toContain('planwright-webhook-tls');

    await twoReadyPods(admin, { timeoutMs: 180_000, seen: (p) => (pods = p) }).catch(
      withDiagnostics,
    );
    for (const p of pods) {
      expect(p.image).toBe(DEFAULT_IMAGE);
      expect(p.restarts).toBe(0);
    }
    // The pods serve what cert-manager issued (once the kubelet's copy of the Secret is the
    // latest: cert-manager may issue its CA twice on a slow apiserver).
    await waitFor(
      'both pods serving the issued certificate',
      async () => podsServe(await secret(CERT_SECRET)),
      { timeoutMs: 180_000, intervalMs: 1000 },
    ).catch(withDiagnostics);
    const issued = await secret(CERT_SECRET);
    const serving = new X509Certificate(issued['tls.crt'] ?? '');
    expect(serving.subjectAltName).toContain('DNS:planwright-webhook.planwright-system.svc');
    expect(serving.checkIssued(new X509Certificate(issued['ca.crt'] ?? ''))).toBe(true);
    const ca = fingerprint(issued['ca.crt'] ?? '');
    for (const path of [
      '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/planwright-instances',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/planwright-validation',
    ]) {
      const config = await admin.request<{
        webhooks: Array<{ clientConfig: { caBundle?: string } }>;
      }>({ path });
      for (const w of config.webhooks) {
        expect(
          bundleFingerprints(Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString('utf8')),
        ).toContain(ca);
      }
    }
    const selfManaged = await secret('planwright-webhook-tls').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect((selfManaged as ApiError).statusCode).toBe(404);
  }, 900_000);

  it('admits an Instance through the Service over the issued certificate and runs its plan', async () => {
    await admin.request({
      method: 'POST',
      path: '/api/v1/namespaces',
      body: { metadata: { name: APP_NS } },
    });
    const kudo = (plural: string): string =>
      `/apis/kudo.dev/v1beta1/namespaces/${APP_NS}/${plural}`;
    await admin.request({
      method: 'POST',
      path: kudo('operators'),
      body: { apiVersion: 'kudo.dev/v1beta1', kind: 'Operator', metadata: { name: 'app' } },
    });
    await admin.request({
      method: 'POST',
      path: kudo('operatorversions'),
      body: validOperatorVersion('app-0.1.0', APP_NS),
    });
    const created = await admin.request<Instance>({
      method: 'POST',
      path: kudo('instances'),
      body: {
        apiVersion: 'kudo.dev/v1beta1',
        kind: 'Instance',
        metadata: { name: 'app' },
        spec: { operatorVersion: { name: 'app-0.1.0' }, parameters: { foo: 'x' } },
      },
    });
    // Scheduled by the mutating webhook on a pod, run by the leader under the RBAC.
    const uid = created.spec?.planExecution?.uid ?? '';
    expect(created.spec?.planExecution?.planName).toBe('deploy');
    await waitFor(
      'deploy COMPLETE',
      async () => {
        const i = await admin.request<Instance>({ path: `${kudo('instances')}/app` });
        const ps = i.status?.planStatus?.['deploy'];
        return ps?.uid === uid && ps.status === 'COMPLETE';
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    ).catch(withDiagnostics);
    const token = await scraperToken(admin, NS);
    const ca = (await secret(CERT_SECRET))['ca.crt'] ?? '';
    let served = 0;
    for (const p of pods) {
      served += sampleSum(
        await metrics({ host: p.ip, port: 9443 }, ca, token),
        'planwright_webhook_requests_total',
      );
    }
    expect(served).toBeGreaterThan(0);
  }, 300_000);

  it('a forced renewal reaches the pods through the mounted Secret: hot-swapped, no admission fails', async () => {
    const before = await secret(CERT_SECRET);
    const writes = startAdmissionStream({ client: admin, namespace: APP_NS });
    let result: Awaited<ReturnType<typeof writes.stop>> | undefined;
    try {
      await renewCertificate(admin, NS, 'planwright-webhook-cert');
      const renewed = await waitFor(
        'a renewed serving certificate in the Secret',
        async () => {
          const now = await secret(CERT_SECRET);
          return now['tls.crt'] && now['tls.crt'] !== before['tls.crt'] ? now : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 500 },
      ).catch(withDiagnostics);
      // Same CA (the CA issuer did not change): the injected bundles stay valid.
      expect(renewed['ca.crt']).toBe(before['ca.crt']);
      // rotationPolicy: Always — a new key, not only a new certificate.
      expect(renewed['tls.key']).not.toBe(before['tls.key']);
      // The manifest's key kind: ECDSA P-256 (cheap handshake signatures).
      expect(new X509Certificate(renewed['tls.crt'] ?? '').publicKey.asymmetricKeyDetails).toEqual({
        namedCurve: 'prime256v1',
      });
      // The kubelet refreshes a Secret volume on its sync period, then the pods reload.
      await waitFor('both pods serving the renewed certificate', () => podsServe(renewed), {
        timeoutMs: 300_000,
        intervalMs: 1000,
      }).catch(withDiagnostics);
    } finally {
      result = await writes.stop();
    }
    expect(result.failed).toEqual([]);
    expect(result.answered).toBeGreaterThan(0);
    // Hot swap, not a restart: the same pods, never restarted, serve the new certificate.
    const now = await planwrightPods(admin, NS);
    expect(now.map((p) => [p.name, p.restarts]).sort()).toEqual(
      pods.map((p) => [p.name, 0]).sort(),
    );
  }, 600_000);
});
