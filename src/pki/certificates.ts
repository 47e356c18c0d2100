import {
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  X509Certificate,
} from 'node:crypto';
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

/**
 * A leaf's key: RSA-2048, or ECDSA on P-256 — the server signs at every handshake, an ECDSA
 * signature is an order of magnitude cheaper than an RSA one, and the apiserver opens new
 * connections to a webhook now and then (figures: bench/README.md, "Figures behind defaults").
 * CAs stay RSA: a client verifies the CA's signature on the leaf at every handshake, and
 * an RSA verify is cheaper than an ECDSA one.
 */
export type LeafKeyAlgorithm = 'rsa-2048' | 'ecdsa-p256';

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
  /** Default `rsa-2048`. */
  readonly keyAlgorithm?: LeafKeyAlgorithm;
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
  const ecdsa = request.keyAlgorithm === 'ecdsa-p256';
  const keys = ecdsa ? generateEcdsaKeyPair() : generateRsaKeyPair();
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const cert = newCertificate(
    // forge writes RSA public keys only: an ECDSA leaf gets the CA's as a stand-in, and its
    // own is put in place when signing (signWithSubjectKey).
    ecdsa ? forge.pki.publicKeyToPem(caCert.publicKey) : keys.publicKeyPem,
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
    // keyEncipherment is RSA key transport: an EC key never does it.
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: !ecdsa, critical: true },
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
  const certPem = ecdsa
    ? signWithSubjectKey(cert, keys.publicKeyPem, ca.keyPem)
    : (cert.sign(forge.pki.privateKeyFromPem(ca.keyPem), forge.md.sha256.create()),
      forge.pki.certificateToPem(cert));
  return { certPem, keyPem: keys.privateKeyPem, notAfter: cert.validity.notAfter };
}

/** ECDSA P-256 key pair from node:crypto, PKCS#8 / SPKI PEM. */
export function generateEcdsaKeyPair(): KeyPairPem {
  const { privateKey, publicKey } = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

/** forge's own encoder of a certificate's to-be-signed part (not in @types/node-forge). */
interface ForgeTbs {
  getTBSCertificate(cert: forge.pki.Certificate): forge.asn1.Asn1;
}

/** Index of subjectPublicKeyInfo in TBSCertificate (after version, serial, signature, issuer, validity, subject). */
const TBS_SPKI_INDEX = 6;

/**
 * `cert` signed by the RSA CA key `caKeyPem` (sha256WithRSAEncryption, as forge's own sign),
 * with `subjectPublicKeyPem` (any key node:crypto reads) as its subject key: forge encodes the
 * to-be-signed part, its stand-in RSA key is swapped for the real subjectPublicKeyInfo, and
 * node:crypto signs the DER.
 */
function signWithSubjectKey(
  cert: forge.pki.Certificate,
  subjectPublicKeyPem: string,
  caKeyPem: string,
): string {
  const { asn1 } = forge;
  cert.siginfo.algorithmOid = forge.pki.oids['sha256WithRSAEncryption'] ?? '';
  cert.signatureOid = cert.siginfo.algorithmOid;
  const tbs = (forge.pki as unknown as ForgeTbs).getTBSCertificate(cert);
  const spkiDer = createPublicKey(subjectPublicKeyPem).export({ type: 'spki', format: 'der' });
  const fields = tbs.value as forge.asn1.Asn1[];
  fields[TBS_SPKI_INDEX] = asn1.fromDer(spkiDer.toString('binary'));
  const tbsDer = Buffer.from(asn1.toDer(tbs).getBytes(), 'binary');
  const signature = sign('sha256', tbsDer, caKeyPem);
  const algorithm = fields[2];
  if (!algorithm) throw new Error('forge produced a TBSCertificate without its signature field');
  const certificate = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    tbs,
    asn1.fromDer(asn1.toDer(algorithm)),
    asn1.create(
      asn1.Class.UNIVERSAL,
      asn1.Type.BITSTRING,
      false,
      // No unused bits, then the signature.
      String.fromCharCode(0) + signature.toString('binary'),
    ),
  ]);
  const der = Buffer.from(asn1.toDer(certificate).getBytes(), 'binary');
  return `-----BEGIN CERTIFICATE-----\n${(der.toString('base64').match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`;
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
