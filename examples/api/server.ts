// Compiled examples of src/server: the webhook server with its certificate sources and
// admission results (type-checked with the rest; nothing runs at import).
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { Probes } from '../../src/runtime/index.ts';
import {
  FileCertificateSource,
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

/** Reading a review by hand: throws AdmissionInputError (answered 400) when malformed. */
export function review(body: string): string {
  return parseAdmissionReview(JSON.parse(body)).uid;
}
