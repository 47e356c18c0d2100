import { generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import forge from 'node-forge';

/** PEM-encoded RSA key pair. */
export interface KeyPairPem {
  readonly privateKeyPem: string;
  readonly publicKeyPem: string;
}

/** A CA able to sign certificates: its certificate and private key, both PEM. */
export interface CertificateAuthority {
  readonly certPem: string;
  readonly keyPem: string;
}

/** What a leaf certificate is for: TLS server, TLS client, or both. */
export type CertificateUsage = 'server' | 'client' | 'server-and-client';

export interface CertificateRequest {
  readonly commonName: string;
  /** Subject organizations; Kubernetes reads these as the user's groups. */
  readonly organizations?: readonly string[];
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
  readonly usage: CertificateUsage;
  /** Validity from now; defaults to one year. */
  readonly validityMs?: number;
  /** Backdate notBefore to tolerate small clock differences between components. */
  readonly backdateMs?: number;
  /**
   * The instant validity counts from (default: now). Callers with their own clock pass it, so
   * the expiry follows that clock rather than however long key generation took.
   */
  readonly issuedAt?: Date;
}

export interface IssuedCertificate {
  readonly certPem: string;
  readonly keyPem: string;
  readonly notAfter: Date;
}

const YEAR_MS = 365 * 24 * 3600 * 1000;
const DEFAULT_BACKDATE_MS = 60 * 60 * 1000;

/** RSA-2048 key pair from node:crypto (forge's pure-JS key generation takes seconds). */
export function generateRsaKeyPair(): KeyPairPem {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

/** A self-signed CA certificate (ten years by default). */
export function createCertificateAuthority(options: {
  readonly commonName: string;
  readonly validityMs?: number;
  readonly backdateMs?: number;
  /** The instant validity counts from (default: now); see {@link CertificateRequest.issuedAt}. */
  readonly issuedAt?: Date;
}): CertificateAuthority {
  const keys = generateRsaKeyPair();
  const cert = newCertificate(
    keys.publicKeyPem,
    options.validityMs ?? 10 * YEAR_MS,
    options.backdateMs ?? DEFAULT_BACKDATE_MS,
    options.issuedAt,
  );
  const subject = [utf8Field('commonName', options.commonName)];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keys.privateKeyPem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.privateKeyPem };
}

/** A leaf certificate signed by `ca`. */
export function issueCertificate(
  ca: CertificateAuthority,
  request: CertificateRequest,
): IssuedCertificate {
  const keys = generateRsaKeyPair();
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const cert = newCertificate(
    keys.publicKeyPem,
    request.validityMs ?? YEAR_MS,
    request.backdateMs ?? DEFAULT_BACKDATE_MS,
    request.issuedAt,
  );
  const subject: forge.pki.CertificateField[] = [utf8Field('commonName', request.commonName)];
  for (const org of request.organizations ?? []) {
    subject.push(utf8Field('organizationName', org));
  }
  cert.setSubject(subject);
  cert.setIssuer(caCert.subject.attributes);
  const altNames = [
    ...(request.dnsNames ?? []).map((value) => ({ type: 2, value })),
    ...(request.ipAddresses ?? []).map((ip) => ({ type: 7, ip })),
  ];
  const extensions: object[] = [
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    {
      name: 'extKeyUsage',
      serverAuth: request.usage !== 'client',
      clientAuth: request.usage !== 'server',
    },
    {
      name: 'authorityKeyIdentifier',
      keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes(),
    },
  ];
  if (altNames.length > 0) extensions.push({ name: 'subjectAltName', altNames });
  cert.setExtensions(extensions);
  cert.sign(forge.pki.privateKeyFromPem(ca.keyPem), forge.md.sha256.create());
  const certPem = forge.pki.certificateToPem(cert);
  return { certPem, keyPem: keys.privateKeyPem, notAfter: cert.validity.notAfter };
}

/** The expiry of the first certificate in a PEM string. */
export function certificateNotAfter(certPem: string): Date {
  return new Date(new X509Certificate(certPem).validTo);
}

function newCertificate(
  publicKeyPem: string,
  validityMs: number,
  backdateMs: number,
  issuedAt: Date = new Date(),
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKeyPem);
  // Positive serial: the high bit of the first byte must be clear for DER INTEGER.
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  cert.serialNumber = serial.toString('hex');
  const now = issuedAt.getTime();
  cert.validity.notBefore = new Date(now - backdateMs);
  cert.validity.notAfter = new Date(now + validityMs);
  return cert;
}

/**
 * Subject fields as UTF8String: forge defaults to PrintableString, which cannot hold
 * characters such as `@`, `_` or `*` (common in user and group names), and Go's x509 parser
 * rejects such certificates outright.
 */
function utf8Field(name: string, value: string): forge.pki.CertificateField {
  return {
    name,
    value,
    // @types/node-forge types this as a tag class, but forge reads it as the ASN.1 type.
    valueTagClass: forge.asn1.Type.UTF8 as unknown as forge.asn1.Class,
  };
}
