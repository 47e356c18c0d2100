// Compiled examples of src/server: the webhook server with its certificate sources and
// admission results, its lifetime, certificate rotation (type-checked with the rest; nothing runs at import).
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { KubeClient } from '../../src/kube/index.ts';
import { Probes } from '../../src/runtime/index.ts';
import {
  DEFAULT_ROTATION_POLICY,
  FileCertificateSource,
  SecretTlsStore,
  SelfManagedTls,
  StaticCertificateSource,
  WebhookServer,
  allow,
  denyForbidden,
  denyInvalid,
  parseAdmissionReview,
  patch,
  type AdmissionHandler,
  type AdmissionRequest,
  type CertificateSource,
} from '../../src/server/index.ts';
import { advance } from '../../src/server/tls/rotation.ts';

/** Self-managed TLS: CA + serving certificate in a Secret, the CA bundle injected. */
export function selfManaged(kubeConfig: KubeConfig, logger: Logger): CertificateSource {
  return new SelfManagedTls({
    kubeConfig,
    logger,
    namespace: 'planwright-system',
    secretName: 'planwright-webhook-tls',
    serviceName: 'planwright-webhook',
    webhookConfigurations: [
      { kind: 'mutating', name: 'planwright-instances' },
      { kind: 'validating', name: 'planwright-validation' },
    ],
  });
}

/** Files mode (cert-manager's mounted Secret) and the loopback certificate of local runs. */
export function otherSources(logger: Logger): CertificateSource[] {
  const files = new FileCertificateSource({
    directory: '/tmp/k8s-webhook-server/serving-certs',
    logger,
  });
  // For a webhook the local apiserver calls at https://127.0.0.1:<port>/…:
  const { source } = StaticCertificateSource.forLoopback('planwright-local');
  return [files, source];
}

/** Admission results: allow, deny with causes, forbid, patch with warnings. */
export const frozenSize: AdmissionHandler = (request: AdmissionRequest, { dryRun }) => {
  if (request.operation === 'DELETE')
    return denyForbidden('deletion is refused while plan "upgrade" runs');
  const size = (request.object?.['spec'] as { size?: number } | undefined)?.size;
  const oldSize = (request.oldObject?.['spec'] as { size?: number } | undefined)?.size;
  if (oldSize !== undefined && size !== oldSize) {
    return denyInvalid('spec.size cannot change while plan "deploy" runs', [
      { field: 'spec.size', message: 'plan "deploy" is running since 12:03' },
    ]);
  }
  if (dryRun) return allow();
  return patch([{ op: 'add', path: '/metadata/labels/checked', value: 'yes' }], {
    warnings: ['spec.size will be fixed from now on'],
  });
};

/** The server, serving until `signal` aborts; the probes are the manager's in Planwright. */
export async function server(
  tls: CertificateSource,
  logger: Logger,
  signal: AbortSignal,
): Promise<number> {
  const probes = new Probes();
  const server = new WebhookServer({ port: 9443, tls, logger, registry: new Registry(), probes });
  server.registerValidating('sizes', frozenSize);
  probes.addReadyz('caches-synced', () => true);
  const { port } = await server.listen(signal); // stops when signal aborts (or on stop())
  return port;
}

/**
 * The server as a Runnable (the App's `webhook-server`): listen for the port, then serve until
 * `signal` aborts; start resolves once the server has closed. `/readyz` includes
 * WEBHOOK_SERVER_CHECK, true while it accepts connections.
 */
export async function serverRunnable(server: WebhookServer, signal: AbortSignal): Promise<void> {
  const { port } = await server.listen(signal);
  void port; // e.g. tell a test where to connect
  await server.start(signal);
}

/**
 * One rotation pass over CA + serving certificate stored in a Secret: advance is pure (what
 * is due now), the store writes it back with optimistic concurrency.
 */
export async function rotateOnce(
  client: KubeClient,
): Promise<'updated' | 'conflict' | 'created' | 'exists' | 'nothing due'> {
  const store = new SecretTlsStore(client, 'planwright-system', 'planwright-webhook-tls');
  const identity = {
    commonName: 'planwright-webhook.planwright-system.svc',
    dnsNames: ['planwright-webhook.planwright-system.svc'],
    ipAddresses: [],
  };
  const stored = await store.read();
  const { material, steps } = advance(
    stored?.material,
    new Date(),
    DEFAULT_ROTATION_POLICY,
    identity,
  );
  if (steps.length === 0) return 'nothing due';
  return stored ? store.update(material, stored.resourceVersion) : store.create(material);
}

/** Reading a review by hand: throws AdmissionInputError (answered 400) when malformed. */
export function review(body: string): string {
  return parseAdmissionReview(JSON.parse(body)).uid;
}
