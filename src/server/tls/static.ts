/**
 * A fixed certificate: for tests, benchmarks and local runs where something else made the
 * pair. No rotation.
 *
 * @example
 * const tls = new StaticCertificateSource({ certPem, keyPem });
 */
import { certificateNotAfter } from '../../pki/index.ts';
import type { ReadinessCheck } from '../routes/health.ts';
import type { CertificateSource, ServingCertificate } from './source.ts';

export class StaticCertificateSource implements CertificateSource {
  private readonly certificate: ServingCertificate;

  constructor(pair: { readonly certPem: string; readonly keyPem: string }) {
    this.certificate = { ...pair, notAfter: certificateNotAfter(pair.certPem) };
  }

  start(_signal: AbortSignal): void {}

  current(): ServingCertificate {
    return this.certificate;
  }

  onCertificate(_listener: (certificate: ServingCertificate) => void): void {}

  readinessChecks(): Readonly<Record<string, ReadinessCheck>> {
    return { 'tls-certificate-loaded': () => true };
  }
}
