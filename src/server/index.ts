/**
 * The webhook server: one HTTPS server per replica hosting admission webhooks, health,
 * readiness and metrics, with a certificate it manages itself (or reads from cert-manager's
 * files). Knows nothing of KUDO: handlers are registered by the domain layer.
 *
 * See examples/api/server.ts.
 */
export {
  DEFAULT_HANDLER_TIMEOUT_MS,
  WEBHOOK_SERVER_CHECK,
  WebhookServer,
  type WebhookServerOptions,
} from './server.ts';
export {
  allow,
  deny,
  denyForbidden,
  denyInternal,
  denyInvalid,
  patch,
  toAdmissionResponse,
  type AdmissionResult,
  type JsonPatchOperation,
  type ResultOptions,
} from './admission/response.ts';
export { ADMISSION_BOUNDS, boundStatus, boundWarnings, clip } from './admission/bounds.ts';
export type { AdmissionContext, AdmissionHandler, WebhookType } from './admission/handler.ts';
export { isPromise } from './admission/handler.ts';
export {
  parseAdmissionReview,
  ADMISSION_REVIEW_V1,
  type AdmissionOperation,
  type AdmissionObject,
  type AdmissionRequest,
  type AdmissionResponse,
  type AdmissionReviewResponse,
  type AdmissionStatus,
  type StatusCause,
} from './admission/review.ts';
export type { CertificateSource, ServingCertificate } from './tls/source.ts';
export { StaticCertificateSource } from './tls/static.ts';
export {
  AdmissionInputError,
  CaInjectionError,
  HandlerTimeoutError,
  ServerConfigError,
  TlsError,
} from './errors.ts';
export { SelfManagedTls, type SelfManagedTlsOptions } from './tls/self-managed.ts';
export {
  ApiCaBundleInjector,
  WatchConfigurationChangeFeed,
  type CaBundleInjector,
  type ConfigurationChangeFeed,
  type WebhookConfigurationRef,
} from './tls/ca-injector.ts';
export { SecretTlsStore, type TlsMaterialStore, type StoredMaterial } from './tls/secret-store.ts';
export {
  DEFAULT_ROTATION_POLICY,
  caBundle,
  type RotationPolicy,
  type TlsMaterial,
} from './tls/rotation.ts';
export { FileCertificateSource, type FileCertificateSourceOptions } from './tls/files.ts';
export {
  KubeMetricsAuthorizer,
  type KubeMetricsAuthorizerOptions,
  type MetricsAuthorizer,
  type MetricsVerdict,
} from './metrics-auth.ts';
