// Self-managed TLS against the real control plane: one Secret shared by two server
// instances (one CA), the bundle injected into a webhook configuration and put back when
// reset, kubectl seeing denials through the injected bundle, and rotation every few seconds
// while the apiserver keeps calling the webhook — with no failed admission call.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import * as k8s from '@kubernetes/client-node';
import type { WebhookServer } from '../../../src/server/index.ts';
import {
  allow,
  denyForbidden,
  SelfManagedTls,
  type AdmissionRequest,
  type ServingCertificate,
} from '../../../src/server/index.ts';
import { createTestNamespace, kubeConfig, kubectl, uniqueName } from '../../support/cluster.ts';
import { capturingLogger, httpsRequest } from '../../support/https.ts';
import { waitFor } from '../../support/wait.ts';
import { loopbackWebhookServer } from '../../support/admission.ts';

const kc = kubeConfig();
const core = kc.makeApiClient(k8s.CoreV1Api);
const admission = kc.makeApiClient(k8s.AdmissionregistrationV1Api);

function labels(object: AdmissionRequest['object']): Record<string, string> {
  return ((object?.['metadata'] ?? {}) as { labels?: Record<string, string> }).labels ?? {};
}

/** The certificate a server presents, verified against `caPem`. */
function presentedCertificate(port: number, caPem: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect(
      { host: '127.0.0.1', port, ca: caPem, servername: undefined },
      () => {
        const cert = socket.getPeerX509Certificate();
        socket.end();
        if (!cert) reject(new Error('no peer certificate'));
        else resolve(cert.toString());
      },
    );
    socket.on('error', reject);
  });
}

async function secretData(namespace: string, name: string): Promise<Record<string, string>> {
  const secret = await core.readNamespacedSecret({ name, namespace });
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([k, v]) => [
      k,
      Buffer.from(v, 'base64').toString('utf8'),
    ]),
  );
}

async function validatingCaBundles(name: string): Promise<string[]> {
  const config = await admission.readValidatingWebhookConfiguration({ name });
  return (config.webhooks ?? []).map((w) =>
    Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString('utf8'),
  );
}

function webhook(
  name: string,
  namespace: string,
  url: string,
  operations: string[] = ['CREATE'],
): k8s.V1ValidatingWebhook {
  return {
    name,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: 'Fail',
    timeoutSeconds: 5,
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
    rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations }],
    // No caBundle: self-managed TLS must inject it.
    clientConfig: { url },
  };
}

describe('self-managed TLS with two instances', () => {
  const stop = new AbortController();
  const configName = uniqueName('pw-tls');
  const secretName = uniqueName('webhook-tls');
  let namespace: string;
  const servers: WebhookServer[] = [];
  const ports: number[] = [];

  beforeAll(async () => {
    namespace = await createTestNamespace('webhook-tls');
    // Ports are picked up front so the configuration can name both URLs before start.
    const instances = ['one', 'two'];
    const probes = await Promise.all(instances.map(() => freePort()));
    ports.push(...probes);
    await admission.createValidatingWebhookConfiguration({
      body: {
        metadata: { name: configName },
        webhooks: instances.map((id, i) =>
          webhook(
            `${id}.${configName}.planwright.dev`,
            namespace,
            `https://127.0.0.1:${ports[i]}/validate/configmaps`,
          ),
        ),
      },
    });
    for (const [i, id] of instances.entries()) {
      const { logger } = capturingLogger();
      const tls = new SelfManagedTls({
        kubeConfig: kc,
        logger,
        namespace,
        secretName,
        serviceName: 'planwright-webhook',
        ipAddresses: ['127.0.0.1'],
        webhookConfigurations: [{ kind: 'validating', name: configName }],
        checkIntervalMs: 1_000,
      });
      const server = loopbackWebhookServer(tls, logger, { port: ports[i] ?? 0 });
      server.registerValidating('configmaps', (request) =>
        labels(request.object)['planwright.dev/deny'] === id
          ? denyForbidden(`instance ${id} refuses configmap ${request.name}`)
          : allow(),
      );
      servers.push(server);
    }
    // Both start at once: both find no Secret and race to create it.
    await Promise.all(servers.map((s) => s.listen(stop.signal)));
  });

  afterAll(async () => {
    await admission
      .deleteValidatingWebhookConfiguration({ name: configName })
      .catch(() => undefined);
    stop.abort();
    await Promise.all(servers.map((s) => s.stop()));
  });

  it('ends with one CA in the Secret, served by both instances, injected into every webhook', async () => {
    const data = await secretData(namespace, secretName);
    const caPem = data['ca.crt'] ?? '';
    expect(caPem).toContain('BEGIN CERTIFICATE');
    const ca = new X509Certificate(caPem);
    for (const port of ports) {
      const presented = await presentedCertificate(port, caPem);
      expect(new X509Certificate(presented).checkIssued(ca)).toBe(true);
      expect(presented).toBe(new X509Certificate(data['tls.crt'] ?? '').toString());
    }
    await waitFor('bundle injected', async () => {
      const bundles = await validatingCaBundles(configName);
      return bundles.length === 2 && bundles.every((b) => b.trim() === caPem.trim());
    });
    for (const port of ports) {
      await waitFor(
        'readyz',
        async () => (await httpsRequest({ port, path: '/readyz', ca: caPem })).status === 200,
      );
    }
  });

  it('lets kubectl see denials from both instances through the injected bundle', async () => {
    const manifest = (name: string, id: string): string =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\n  labels:\n    planwright.dev/deny: ${id}\n`;
    await waitFor('webhooks active', async () => {
      const r = await kubectl(['create', '--dry-run=server', '-f', '-'], {
        input: manifest('probe', 'one'),
      });
      return r.code !== 0 && r.stderr.includes('denied the request');
    });
    for (const id of ['one', 'two']) {
      const res = await kubectl(['create', '-f', '-'], { input: manifest(`cm-${id}`, id) });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(
        `admission webhook "${id}.${configName}.planwright.dev" denied the request: instance ${id} refuses configmap cm-${id}`,
      );
    }
    const ok = await kubectl(['create', 'configmap', 'cm-ok', '-n', namespace]);
    expect(ok.code).toBe(0);
  });

  it('puts the bundle back when something resets it', async () => {
    const caPem = (await secretData(namespace, secretName))['ca.crt'] ?? '';
    const bogus = Buffer.from('not a bundle').toString('base64');
    await admission.patchValidatingWebhookConfiguration({
      name: configName,
      body: [
        { op: 'replace', path: '/webhooks/0/clientConfig/caBundle', value: bogus },
        { op: 'remove', path: '/webhooks/1/clientConfig/caBundle' },
      ],
    });
    await waitFor('bundle re-injected', async () => {
      const bundles = await validatingCaBundles(configName);
      return bundles.every((b) => b.trim() === caPem.trim());
    });
  });
});

describe('rotation with a validity of seconds under load', () => {
  /**
   * Validities in these many ms per unit: a serving certificate is renewed with 2 units left.
   * On a machine whose CPUs are busy with other work a renewal (key, certificate, Secret and
   * webhook configuration writes) has taken over 2 s, so a unit is 3 s.
   */
  const ROTATION_SCALE = 3_000;
  const stop = new AbortController();
  const configName = uniqueName('pw-rot');
  let namespace: string;
  let server: WebhookServer;
  const swapped: ServingCertificate[] = [];
  let calls = 0;

  beforeAll(async () => {
    namespace = await createTestNamespace('webhook-rot');
    const port = await freePort();
    await admission.createValidatingWebhookConfiguration({
      body: {
        metadata: { name: configName },
        webhooks: [
          webhook(
            `rot.${configName}.planwright.dev`,
            namespace,
            `https://127.0.0.1:${port}/validate/count`,
          ),
        ],
      },
    });
    const { logger } = capturingLogger();
    const tlsSource = new SelfManagedTls({
      kubeConfig: kc,
      logger,
      namespace,
      secretName: 'webhook-tls',
      serviceName: 'planwright-webhook',
      ipAddresses: ['127.0.0.1'],
      webhookConfigurations: [{ kind: 'validating', name: configName }],
      checkIntervalMs: 500,
      policy: {
        servingValidityMs: 4 * ROTATION_SCALE,
        servingRenewBeforeMs: 2 * ROTATION_SCALE,
        caValidityMs: 14 * ROTATION_SCALE,
        caRenewBeforeMs: 8 * ROTATION_SCALE,
        caOverlapMs: 3 * ROTATION_SCALE,
      },
    });
    tlsSource.onCertificate((c) => swapped.push(c));
    server = loopbackWebhookServer(tlsSource, logger, { port });
    server.registerValidating('count', () => {
      calls++;
      return allow();
    });
    await server.listen(stop.signal);
    await waitFor('bundle injected', async () =>
      (await validatingCaBundles(configName)).every((b) => b.includes('BEGIN')),
    );
  });

  afterAll(async () => {
    await admission
      .deleteValidatingWebhookConfiguration({ name: configName })
      .catch(() => undefined);
    stop.abort();
    await server.stop();
  });

  it('rotates serving certs and the CA with zero failed admission calls', async () => {
    // Wait until the apiserver calls the webhook at all (config propagation).
    await waitFor('webhook called', async () => {
      await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { generateName: 'probe-' } },
      });
      return calls > 0;
    });
    const issuers = new Set<string>();
    const failures: string[] = [];
    let created = 0;
    const callsBefore = calls;
    const until = Date.now() + 18 * ROTATION_SCALE;
    const worker = async (): Promise<void> => {
      while (Date.now() < until) {
        try {
          await core.createNamespacedConfigMap({
            namespace,
            body: { metadata: { generateName: 'load-' } },
          });
          created++;
        } catch (err) {
          failures.push(err instanceof Error ? err.message : String(err));
        }
      }
    };
    await Promise.all([worker(), worker()]);
    for (const c of swapped) issuers.add(new X509Certificate(c.certPem).issuer);
    expect(failures).toEqual([]);
    expect(created).toBeGreaterThan(50);
    expect(calls - callsBefore).toBeGreaterThanOrEqual(created);
    // Several serving rotations, and at least one under a new CA.
    expect(swapped.length).toBeGreaterThanOrEqual(4);
    expect(issuers.size).toBeGreaterThanOrEqual(2);
  });
});

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}
