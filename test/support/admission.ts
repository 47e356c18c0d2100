// admission.k8s.io/v1 AdmissionReviews as the apiserver sends them, and the loopback webhook
// server the tests post them to.
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import {
  WebhookServer,
  type CertificateSource,
  type WebhookServerOptions,
} from '../../src/server/index.ts';

/** An AdmissionReview carrying `request` as it is (tests of wrong shapes pass anything). */
export function admissionReview(request: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request };
}

/** An AdmissionReview of a kudo.dev Instance: `request` plus the Instance's kind and resource. */
export function instanceReview(request: Record<string, unknown>): Record<string, unknown> {
  return admissionReview({
    kind: { group: 'kudo.dev', version: 'v1beta1', kind: 'Instance' },
    resource: { group: 'kudo.dev', version: 'v1beta1', resource: 'instances' },
    ...request,
  });
}

/** An AdmissionReview of alice creating ConfigMap ns/cm; `request` adds to it or overrides. */
export function configMapReview(request: Record<string, unknown>): Record<string, unknown> {
  return admissionReview({
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    operation: 'CREATE',
    namespace: 'ns',
    name: 'cm',
    userInfo: { username: 'alice' },
    object: { metadata: { name: 'cm' } },
    ...request,
  });
}

/** A WebhookServer on 127.0.0.1, on a free port, with a registry of its own. */
export function loopbackWebhookServer(
  tls: CertificateSource,
  logger: Logger,
  options: Partial<WebhookServerOptions> = {},
): WebhookServer {
  return new WebhookServer({
    port: 0,
    host: '127.0.0.1',
    tls,
    logger,
    registry: new Registry(),
    ...options,
  });
}
