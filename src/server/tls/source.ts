/**
 * Where the server's serving certificate comes from. The server only needs the current
 * certificate, to hear about a new one, and readiness inputs; how it is made (self-managed
 * Secret, cert-manager files, a fixed pair in tests) is the source's business.
 */
import type { ProbeCheck } from '../../runtime/index.ts';

export interface ServingCertificate {
  readonly certPem: string;
  readonly keyPem: string;
  readonly notAfter: Date;
}

export interface CertificateSource {
  /** Starts loading/renewing; every loop, watch and timer stops when `signal` aborts. */
  start(signal: AbortSignal): void;
  /** The certificate to serve now; undefined until the first one is loaded. */
  current(): ServingCertificate | undefined;
  /** Called with every new certificate after it replaced the previous one. */
  onCertificate(listener: (certificate: ServingCertificate) => void): void;
  /** Named readiness inputs, e.g. `tls-certificate-loaded`, `tls-ca-bundle-injected`. */
  readinessChecks(): Readonly<Record<string, ProbeCheck>>;
}
