import { describe, expect, it } from '@jest/globals';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import {
  certificateNotAfter,
  createCertificateAuthority,
  issueCertificate,
} from '../../../src/pki/index.ts';

describe('pki', () => {
  const ca = createCertificateAuthority({ commonName: 'test-ca' });

  it('creates a self-signed CA that can sign', () => {
    const cert = new X509Certificate(ca.certPem);
    expect(cert.ca).toBe(true);
    expect(cert.subject).toBe('CN=test-ca');
    expect(cert.verify(cert.publicKey)).toBe(true);
    // The key in the bundle belongs to the certificate.
    expect(cert.checkPrivateKey(createPrivateKey(ca.keyPem))).toBe(true);
  });

  it('issues a server certificate with the requested names, verifiable by the CA', () => {
    const leaf = issueCertificate(ca, {
      commonName: 'webhook',
      dnsNames: ['webhook.ns.svc', 'localhost'],
      ipAddresses: ['127.0.0.1'],
      usage: 'server',
      validityMs: 60_000,
    });
    const cert = new X509Certificate(leaf.certPem);
    const caCert = new X509Certificate(ca.certPem);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.checkHost('webhook.ns.svc')).toBe('webhook.ns.svc');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkHost('other.example')).toBeUndefined();
    expect(cert.keyUsage).toContain('1.3.6.1.5.5.7.3.1'); // serverAuth
    expect(cert.keyUsage).not.toContain('1.3.6.1.5.5.7.3.2'); // clientAuth
    const notAfter = certificateNotAfter(leaf.certPem).getTime();
    expect(Math.abs(notAfter - leaf.notAfter.getTime())).toBeLessThan(1000);
    expect(notAfter - Date.now()).toBeLessThanOrEqual(60_000);
  });

  it('issues an ECDSA P-256 leaf signed by the RSA CA, as OpenSSL parses and verifies it', () => {
    const leaf = issueCertificate(ca, {
      commonName: 'webhook',
      dnsNames: ['webhook.ns.svc'],
      ipAddresses: ['127.0.0.1'],
      usage: 'server',
      keyAlgorithm: 'ecdsa-p256',
    });
    const cert = new X509Certificate(leaf.certPem);
    const caCert = new X509Certificate(ca.certPem);
    expect(cert.publicKey.asymmetricKeyType).toBe('ec');
    expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(cert.checkPrivateKey(createPrivateKey(leaf.keyPem))).toBe(true);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    // Signed by another CA's key it does not verify: the signature really covers this body.
    const other = createCertificateAuthority({ commonName: 'test-ca' });
    expect(cert.verify(new X509Certificate(other.certPem).publicKey)).toBe(false);
    expect(cert.checkHost('webhook.ns.svc')).toBe('webhook.ns.svc');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(cert.ca).toBe(false);
    expect(cert.issuer).toBe('CN=test-ca');
  });

  it('issues client certificates whose organizations are the Kubernetes groups', () => {
    const leaf = issueCertificate(ca, {
      commonName: 'alice',
      organizations: ['devs', 'system:masters'],
      usage: 'client',
    });
    const cert = new X509Certificate(leaf.certPem);
    expect(cert.subject.split('\n')).toEqual(['CN=alice', 'O=devs', 'O=system:masters']);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(createPublicKey(leaf.keyPem).export({ format: 'pem', type: 'spki' })).toBe(
      cert.publicKey.export({ format: 'pem', type: 'spki' }),
    );
  });

  it('does not verify a certificate against a different CA', () => {
    const other = createCertificateAuthority({ commonName: 'other-ca' });
    const leaf = issueCertificate(ca, { commonName: 'x', usage: 'server' });
    expect(
      new X509Certificate(leaf.certPem).verify(new X509Certificate(other.certPem).publicKey),
    ).toBe(false);
  });
});

describe('subject encoding', () => {
  it('creates an ECDSA P-256 CA whose RSA and ECDSA leaves OpenSSL verifies, key identifiers linked', () => {
    const ca = createCertificateAuthority({ commonName: 'rsa-ca' });
    const ecCa = createCertificateAuthority({ commonName: 'ec-ca', keyAlgorithm: 'ecdsa-p256' });
    const caCert = new X509Certificate(ecCa.certPem);
    expect(caCert.ca).toBe(true);
    expect(caCert.publicKey.asymmetricKeyType).toBe('ec');
    expect(caCert.verify(caCert.publicKey)).toBe(true);
    expect(caCert.checkPrivateKey(createPrivateKey(ecCa.keyPem))).toBe(true);
    for (const keyAlgorithm of ['ecdsa-p256', 'rsa-2048'] as const) {
      const leaf = issueCertificate(ecCa, {
        commonName: `leaf-${keyAlgorithm}`,
        organizations: ['system:masters'],
        usage: 'client',
        keyAlgorithm,
      });
      const cert = new X509Certificate(leaf.certPem);
      // checkIssued also compares the leaf's authority key identifier with the CA's own.
      expect(cert.checkIssued(caCert)).toBe(true);
      expect(cert.verify(caCert.publicKey)).toBe(true);
      expect(cert.verify(new X509Certificate(ca.certPem).publicKey)).toBe(false);
      expect(cert.issuer).toBe('CN=ec-ca');
      expect(cert.checkPrivateKey(createPrivateKey(leaf.keyPem))).toBe(true);
    }
    // An RSA CA's leaf names it by its key identifier too.
    const rsaLeaf = new X509Certificate(
      issueCertificate(ca, { commonName: 'x', usage: 'client' }).certPem,
    );
    expect(rsaLeaf.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
    expect(rsaLeaf.checkIssued(caCert)).toBe(false);
  });

  it('keeps characters PrintableString cannot hold (Go rejects those certificates otherwise)', () => {
    const ca = createCertificateAuthority({ commonName: 'planwright-ca@1700000000' });
    expect(new X509Certificate(ca.certPem).subject).toBe('CN=planwright-ca@1700000000');
    const leaf = issueCertificate(ca, { commonName: 'user@example', usage: 'client' });
    expect(new X509Certificate(leaf.certPem).subject).toBe('CN=user@example');
  });
});
