// The cert-manager variant end to end, on a dedicated workloads cluster (it registers webhooks
// for every namespace):
// - cert-manager's controller and cainjector (built from the Go wrapper module, see
//   cert-manager.ts) run against the cluster with cert-manager's own CRDs from the module
//   cache;
// - `kubectl apply --server-side -k manifests/cert-manager` succeeds; the variant's Issuers
//   and Certificate issue the serving certificate and the cainjector fills both webhook
//   configurations' caBundle;
// - two replicas run in files mode with the Deployment's args (--cert-dir on the mounted
//   Secret, written as kubelet does) and the ServiceAccount's identity (see replicas.ts: kwok
//   runs no containers);
// - Instance writes are admitted over the cert-manager-issued certificate, and a forced
//   renewal (what `cmctl renew` does) is hot-swapped by both replicas with 0 failed
//   admissions under continuous writes.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MANIFESTS_DIR } from '../../../src/cli/install.ts';
import type { KubeClient } from '../../../src/kube/index.ts';
import { ApiError } from '../../../src/kube/index.ts';
import type { Instance } from '../../../src/kudo/api/index.ts';
import type { LocalCluster } from '../../../src/localcluster/index.ts';
import { validOperatorVersion } from '../../support/operator-versions.ts';
import { imageRoot, type ImageRoot } from '../../support/dockerfile.ts';
import { waitFor } from '../../support/wait.ts';
import {
  certManagerCrdFiles,
  ensureCertManager,
  renewCertificate,
  startCertManager,
  type RunningCertManager,
} from './cert-manager.ts';
import {
  metrics,
  scraperToken,
  readDeployment,
  sampleSum,
  servedFingerprint,
  syncSecretVolume,
  type DeploymentSpec,
  type Replica,
  secretData,
  startDedicatedCluster,
  runDeploymentLocally,
  type DedicatedCluster,
  type KubectlOutcome,
} from './replicas.ts';

const NS = 'planwright-system';
const CERT_SECRET = 'planwright-webhook-cert';
const CERT_DIR_MOUNT = '/tmp/k8s-webhook-server/serving-certs';
const APP_NS = 'apps';
/** Writes that must be admitted before the renewal, and again after both replicas swapped. */
const WRITES_EACH_SIDE = 30;

const fingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;
/**
 * Fingerprints of every certificate in a PEM bundle. cert-manager's cainjector appends a new
 * CA to a caBundle rather than replacing it (earlier CAs stay trusted while callers move), so
 * a bundle is checked for containing a CA, not for being it.
 */
const bundleFingerprints = (pem: string): string[] =>
  (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map(
    fingerprint,
  );

describe('cert-manager variant: issued certificate, cainjector, files mode, renewal', () => {
  let dedicated: DedicatedCluster;
  let cluster: LocalCluster;
  let admin: KubeClient;
  let certManager: RunningCertManager | undefined;
  let deployment: DeploymentSpec;
  const replicas: Replica[] = [];
  let image: ImageRoot | undefined;
  const certDirs: string[] = [];
  const volumes = new AbortController();
  const kubectl = (args: string[]): Promise<KubectlOutcome> => dedicated.kubectl(args);
  const secret = (name: string): Promise<Record<string, string>> => secretData(admin, NS, name);
  const caPem = async (): Promise<string> => (await secret(CERT_SECRET))['ca.crt'] ?? '';
  const diagnostics = (): string =>
    [
      certManager?.logs() ?? '',
      ...replicas.map((r) => `--- replica ${r.index}\n${r.logs().slice(-6000)}`),
    ].join('\n');

  const renewServingCertificate = (): Promise<void> =>
    renewCertificate(admin, NS, 'planwright-webhook-cert');

  /**
   * The CA certificate once cert-manager has stopped issuing it. On a slow apiserver
   * cert-manager can create two CertificateRequests for one revision of a new Certificate
   * (cert-manager/cert-manager#4956); for the self-signed CA both are signed, so the CA
   * Secret changes again shortly after the first copy may already have signed the serving
   * certificate. "Settled" is: unchanged for `quietMs` while no CertificateRequest of the CA
   * is still pending.
   */
  const settledCa = async (quietMs: number): Promise<string> => {
    let last = '';
    let since = Date.now();
    return waitFor(
      'the CA Secret planwright-webhook-ca to settle',
      async () => {
        const now = fingerprint((await secret('planwright-webhook-ca'))['tls.crt'] ?? '');
        if (now !== last) {
          last = now;
          since = Date.now();
          return undefined;
        }
        const requests = await admin.request<{
          items: Array<{
            metadata: { annotations?: Record<string, string> };
            status?: { conditions?: Array<{ type: string; status: string }> };
          }>;
        }>({ path: `/apis/cert-manager.io/v1/namespaces/${NS}/certificaterequests` });
        const pending = requests.items.some(
          (r) =>
            r.metadata.annotations?.['cert-manager.io/certificate-name'] ===
              'planwright-webhook-ca' &&
            !r.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        return !pending && Date.now() - since >= quietMs ? now : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
  };

  // The image's files, made once for both replicas (a copy of node_modules, pruned).
  const runnableImage = async (): Promise<ImageRoot> => (image ??= await imageRoot());

  beforeAll(async () => {
    // Cold, this builds cert-manager from the module proxy (minutes; see
    // test/controlplane/README.md); afterwards it is a cache lookup.
    const binary = await ensureCertManager({
      onProgress: (line) => process.stderr.write(`[cert-manager build] ${line}\n`),
    });
    dedicated = await startDedicatedCluster();
    ({ cluster, admin } = dedicated);
    for (const file of await certManagerCrdFiles()) {
      const res = await kubectl(['apply', '--server-side', '-f', file]);
      if (res.code !== 0) throw new Error(`applying ${file}: ${res.stderr}`);
    }
    const established = await kubectl([
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      'crd/certificates.cert-manager.io',
      'crd/certificaterequests.cert-manager.io',
      'crd/issuers.cert-manager.io',
      'crd/clusterissuers.cert-manager.io',
    ]);
    if (established.code !== 0) throw new Error(established.stderr);
    certManager = startCertManager(binary, cluster.kubeconfigPath);
  }, 3_600_000);

  afterAll(async () => {
    volumes.abort();
    for (const r of replicas) await r.stop();
    await certManager?.stop();
    await dedicated?.stop();
    await image?.remove();
    for (const dir of certDirs) await rm(dir, { recursive: true, force: true });
  }, 120_000);

  it('applies the variant; cert-manager issues the serving certificate and injects its CA into both configurations', async () => {
    const res = await kubectl([
      'apply',
      '--server-side',
      '-k',
      join(MANIFESTS_DIR, 'cert-manager'),
    ]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    for (const line of [
      'issuer.cert-manager.io/planwright-selfsigned serverside-applied',
      'issuer.cert-manager.io/planwright-webhook-ca serverside-applied',
      'certificate.cert-manager.io/planwright-webhook-ca serverside-applied',
      'certificate.cert-manager.io/planwright-webhook-cert serverside-applied',
      'mutatingwebhookconfiguration.admissionregistration.k8s.io/planwright-instances serverside-applied',
      'validatingwebhookconfiguration.admissionregistration.k8s.io/planwright-validation serverside-applied',
    ]) {
      expect(res.stdout).toContain(line);
    }
    // The self-managed certificate's rights are not part of this variant.
    expect(res.stdout).not.toContain('planwright-webhook-tls');

    await waitFor(
      'Certificate planwright-webhook-cert Ready',
      async () => {
        const c = await admin.request<{
          status?: { conditions?: Array<{ type: string; status: string }> };
        }>({
          path: `/apis/cert-manager.io/v1/namespaces/${NS}/certificates/planwright-webhook-cert`,
        });
        return c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True');
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    ).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\n${diagnostics()}`);
    });
    // Start from one CA: if the serving certificate was signed by a copy of the CA that
    // cert-manager has since replaced (see settledCa), renew it once, as an operator would.
    const caNow = await settledCa(5_000);
    if (fingerprint((await secret(CERT_SECRET))['ca.crt'] ?? '') !== caNow) {
      process.stderr.write(
        '[cert-manager e2e] cert-manager issued the CA twice; renewing the serving certificate once\n',
      );
      await renewServingCertificate();
      await waitFor(
        'the serving certificate re-issued by the settled CA',
        async () => fingerprint((await secret(CERT_SECRET))['ca.crt'] ?? '') === caNow,
        { timeoutMs: 120_000, intervalMs: 500 },
      ).catch((err: unknown) => {
        throw new Error(`${(err as Error).message}\n${diagnostics()}`);
      });
    }
    const issued = await secret(CERT_SECRET);
    const serving = new X509Certificate(issued['tls.crt'] ?? '');
    expect(serving.subjectAltName).toContain('DNS:planwright-webhook.planwright-system.svc');
    expect(serving.checkIssued(new X509Certificate(issued['ca.crt'] ?? ''))).toBe(true);

    const ca = fingerprint(issued['ca.crt'] ?? '');
    for (const path of [
      '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/planwright-instances',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/planwright-validation',
    ]) {
      await waitFor(
        `the cainjector filling ${path}`,
        async () => {
          const config = await admin.request<{
            webhooks: Array<{ clientConfig: { caBundle?: string } }>;
          }>({ path });
          return config.webhooks.every(
            (w) =>
              w.clientConfig.caBundle !== undefined &&
              bundleFingerprints(
                Buffer.from(w.clientConfig.caBundle, 'base64').toString('utf8'),
              ).includes(ca),
          );
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      ).catch((err: unknown) => {
        throw new Error(`${(err as Error).message}\n${diagnostics()}`);
      });
    }
  }, 240_000);

  it('runs two replicas in files mode on the mounted Secret, as the ServiceAccount', async () => {
    deployment = await readDeployment(admin, NS, 'planwright');
    expect(deployment.args).toEqual(expect.arrayContaining(['--cert-dir', CERT_DIR_MOUNT]));
    expect(deployment.volumeMounts).toContainEqual(
      expect.objectContaining({ mountPath: CERT_DIR_MOUNT }),
    );
    expect(deployment.volumes).toContainEqual(
      expect.objectContaining({ secret: expect.objectContaining({ secretName: CERT_SECRET }) }),
    );
    // kwok runs no containers: the replicas run here instead (see replicas.ts).
    for (let i = 0; i < deployment.replicas; i++) {
      certDirs.push(await mkdtemp(join(tmpdir(), `pw-certs-${i}-`)));
    }
    await syncSecretVolume(admin, NS, CERT_SECRET, certDirs, volumes.signal);
    await runDeploymentLocally({
      cluster,
      admin,
      namespace: NS,
      deployment,
      image: await runnableImage(),
      caPem,
      replicas,
      mounts: (i) => new Map([[CERT_DIR_MOUNT, certDirs[i] ?? '']]),
    });
    const served = fingerprint((await secret(CERT_SECRET))['tls.crt'] ?? '');
    for (const r of replicas) {
      expect(r.logs()).toContain('certificate loaded from files');
      expect(await servedFingerprint(r, await caPem())).toBe(served);
    }
    // Files mode manages no certificate of its own.
    const selfManaged = await secret('planwright-webhook-tls').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(selfManaged).toBeInstanceOf(ApiError);
    expect((selfManaged as ApiError).statusCode).toBe(404);
  }, 240_000);

  it('admits Instance writes over the issued certificate, and a forced renewal fails none of them', async () => {
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
      body: {
        apiVersion: 'kudo.dev/v1beta1',
        kind: 'Operator',
        metadata: { name: 'app' },
        spec: {},
      },
    });
    await admin.request({
      method: 'POST',
      path: kudo('operatorversions'),
      body: validOperatorVersion('app-0.1.0', APP_NS),
    });
    const instanceBody = (name: string): Instance => ({
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'Instance',
      metadata: { name },
      spec: { operatorVersion: { name: 'app-0.1.0' }, parameters: { foo: 'x' } },
    });
    const created = await admin.request<Instance>({
      method: 'POST',
      path: kudo('instances'),
      body: instanceBody('app'),
    });
    // Scheduled by the mutating webhook on a replica, run by the leader under the RBAC.
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
    ).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\n${diagnostics()}`);
    });

    // Continuous writes, each admitted by the webhooks or counted as a failure: a label on
    // the stored Instance (UPDATE: mutating and validating webhooks) and a dry-run create
    // (CREATE: both webhooks, nothing stored).
    const failures: string[] = [];
    let admitted = 0;
    let writing = true;
    let duringRenewal = 0;
    const writer = (async () => {
      for (let n = 0; writing; n++) {
        try {
          if (n % 2 === 0) {
            await admin.request({
              method: 'PATCH',
              path: `${kudo('instances')}/app`,
              body: { metadata: { labels: { write: String(n) } } },
              contentType: 'application/merge-patch+json',
            });
          } else {
            await admin.request({
              method: 'POST',
              path: kudo('instances'),
              query: { dryRun: 'All' },
              body: instanceBody(`dry-${n}`),
            });
          }
          admitted++;
        } catch (err) {
          failures.push(`write ${n}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    })();
    const token = await scraperToken(admin, NS);
    const webhookCalls = async (): Promise<number> => {
      const ca = await caPem();
      let sum = 0;
      for (const r of replicas) {
        sum += sampleSum(await metrics(r, ca, token), 'planwright_webhook_requests_total');
      }
      return sum;
    };
    try {
      await waitFor('writes admitted before the renewal', () => admitted >= WRITES_EACH_SIDE, {
        timeoutMs: 60_000,
        intervalMs: 50,
      });
      const before = await secret(CERT_SECRET);
      const oldServing = fingerprint(before['tls.crt'] ?? '');
      const callsBefore = await webhookCalls();

      await renewServingCertificate();
      const atTrigger = admitted;

      const renewed = await waitFor(
        'a renewed serving certificate in the Secret',
        async () => {
          const now = await secret(CERT_SECRET);
          return now['tls.crt'] && fingerprint(now['tls.crt']) !== oldServing ? now : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 200 },
      ).catch((err: unknown) => {
        throw new Error(`${(err as Error).message}\n${diagnostics()}`);
      });
      const newServing = fingerprint(renewed['tls.crt'] ?? '');
      // Same CA (the CA issuer did not change): the injected bundles stay valid.
      expect(renewed['ca.crt']).toBe(before['ca.crt']);
      // rotationPolicy: Always — a new key, not only a new certificate.
      expect(renewed['tls.key']).not.toBe(before['tls.key']);
      // The manifest's key kind: ECDSA P-256 (cheap handshake signatures).
      expect(new X509Certificate(renewed['tls.crt'] ?? '').publicKey.asymmetricKeyDetails).toEqual({
        namedCurve: 'prime256v1',
      });
      for (const r of replicas) {
        await waitFor(
          `replica ${r.index} serving the renewed certificate`,
          async () => (await servedFingerprint(r, renewed['ca.crt'] ?? '')) === newServing,
          { timeoutMs: 60_000, intervalMs: 200 },
        ).catch((err: unknown) => {
          throw new Error(`${(err as Error).message}\n${diagnostics()}`);
        });
      }
      const afterSwap = admitted;
      duringRenewal = afterSwap - atTrigger;
      await waitFor(
        'writes admitted after both replicas swapped',
        () => admitted >= afterSwap + WRITES_EACH_SIDE,
        { timeoutMs: 60_000, intervalMs: 50 },
      );
      // The webhooks were called through the Service all along (not bypassed).
      expect(await webhookCalls()).toBeGreaterThan(callsBefore);
    } finally {
      writing = false;
      await writer;
    }
    process.stderr.write(
      `[cert-manager e2e] ${admitted} Instance writes admitted (${duringRenewal} between the renewal's trigger and both replicas serving the new certificate), ${failures.length} failed\n`,
    );
    expect(failures).toEqual([]);
    // Writes went on while the certificate was renewed and swapped, not only around it.
    expect(duringRenewal).toBeGreaterThan(0);
    // Hot swap, not a restart: the same processes, each having loaded the files twice.
    for (const r of replicas) {
      const exited = await Promise.race([r.exited.then(() => true), Promise.resolve(false)]);
      expect(exited).toBe(false);
      expect(r.logs().split('certificate loaded from files').length - 1).toBeGreaterThanOrEqual(2);
    }
  }, 600_000);
});
