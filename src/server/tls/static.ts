/**
 * A fixed certificate: for tests, benchmarks and local runs where something else made the
 * pair. No rotation.
 *
 * See examples/api/server.ts.
 */
import {
  certificateNotAfter,
  createCertificateAuthority,
  issueCertificate,
} from '../../pki/index.ts';
import type { ProbeCheck } from '../../runtime/index.ts';
import type { CertificateSource, ServingCertificate } from './source.ts';

export class StaticCertificateSource implements CertificateSource {
  private readonly certificate: ServingCertificate;

  constructor(pair: { readonly certPem: string; readonly keyPem: string }) {
    this.certificate = { ...pair, notAfter: certificateNotAfter(pair.certPem) };
  }

  /**
   * A throwaway CA and a serving certificate for 127.0.0.1 and localhost: what a webhook on
   * loopback needs (local mode, tests, benchmarks). `caPem` goes into the registration's
   * caBundle.
   */
  static forLoopback(name: string): { source: StaticCertificateSource; caPem: string } {
    // Throwaway, made at every start: a P-256 key takes a tenth of a millisecond, an RSA one
    // about 200 ms of CPU.
    const ca = createCertificateAuthority({ commonName: `${name}-ca`, keyAlgorithm: 'ecdsa-p256' });
    const leaf = issueCertificate(ca, {
      commonName: name,
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1'],
      usage: 'server',
      keyAlgorithm: 'ecdsa-p256',
    });
    return { source: new StaticCertificateSource(leaf), caPem: ca.certPem };
  }

  start(_signal: AbortSignal): void {}

  current(): ServingCertificate {
    return this.certificate;
  }

  onCertificate(_listener: (certificate: ServingCertificate) => void): void {}

  readinessChecks(): Readonly<Record<string, ProbeCheck>> {
    return { 'tls-certificate-loaded': () => true };
  }
}
