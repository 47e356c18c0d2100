import {
  createHash,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  X509Certificate,
  type KeyObject,
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
 * A key: RSA-2048, or ECDSA on P-256. A leaf's key signs at every handshake, and an ECDSA
 * signature is an order of magnitude cheaper than an RSA one (figures: bench/README.md,
 * "Figures behind defaults"). A P-256 key is also made in a tenth of a millisecond, where an
 * RSA-2048 key takes about 200 ms of CPU: what a throwaway CA (a local cluster, a webhook on
 * loopback) wants. A long-lived CA may stay RSA, whose verify is the cheaper one.
 */
export type KeyAlgorithm = 'rsa-2048' | 'ecdsa-p256';

/** The key of a leaf certificate (see {@link KeyAlgorithm}). */
export type LeafKeyAlgorithm = KeyAlgorithm;

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
  /** Default `rsa-2048`. */
  readonly keyAlgorithm?: KeyAlgorithm;
}): CertificateAuthority {
  const keys = generateKeyPair(options.keyAlgorithm ?? 'rsa-2048');
  const publicKey = createPublicKey(keys.publicKeyPem);
  const cert = newCertificate(
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
    subjectKeyIdentifierExtension(subjectKeyIdentifier(publicKey)),
  ]);
  const certPem = signCertificate(cert, {
    subjectKey: publicKey,
    issuerKeyPem: keys.privateKeyPem,
  });
  return { certPem, keyPem: keys.privateKeyPem };
}

/** A leaf certificate signed by `ca`. */
export function issueCertificate(
  ca: CertificateAuthority,
  request: CertificateRequest,
): IssuedCertificate {
  const ecdsa = request.keyAlgorithm === 'ecdsa-p256';
  const keys = generateKeyPair(request.keyAlgorithm ?? 'rsa-2048');
  const caCert = new X509Certificate(ca.certPem);
  const cert = newCertificate(
    request.validityMs ?? YEAR_MS,
    request.backdateMs ?? DEFAULT_BACKDATE_MS,
    request.issuedAt,
  );
  const subject: forge.pki.CertificateField[] = [utf8Field('commonName', request.commonName)];
  for (const org of request.organizations ?? []) {
    subject.push(utf8Field('organizationName', org));
  }
  cert.setSubject(subject);
  // A stand-in: the CA's own encoded subject is put in place when signing.
  cert.setIssuer(subject);
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
      keyIdentifier: subjectKeyIdentifier(caCert.publicKey).toString('binary'),
    },
  ];
  if (altNames.length > 0) extensions.push({ name: 'subjectAltName', altNames });
  cert.setExtensions(extensions);
  const certPem = signCertificate(cert, {
    subjectKey: createPublicKey(keys.publicKeyPem),
    issuerKeyPem: ca.keyPem,
    issuerName: subjectNameOf(caCert),
  });
  return { certPem, keyPem: keys.privateKeyPem, notAfter: cert.validity.notAfter };
}

function generateKeyPair(algorithm: KeyAlgorithm): KeyPairPem {
  return algorithm === 'ecdsa-p256' ? generateEcdsaKeyPair() : generateRsaKeyPair();
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

/** Fields of TBSCertificate (RFC 5280), version [0] present. */
const TBS = { signature: 2, issuer: 3, subject: 5, subjectPublicKeyInfo: 6 } as const;

const SIGNATURE_OIDS = {
  rsa: '1.2.840.113549.1.1.11', // sha256WithRSAEncryption
  ec: '1.2.840.10045.4.3.2', // ecdsa-with-SHA256
} as const;

/**
 * `cert` signed by `issuerKeyPem` (RSA or ECDSA) with node:crypto. forge assembles the
 * to-be-signed part but knows RSA keys only, and signs in JavaScript (tens of milliseconds per
 * RSA signature): its stand-in subject key is swapped for the real subjectPublicKeyInfo, the
 * issuer's encoded name put in place (a CA with an EC key is one forge cannot read), and the
 * signature algorithm set from the issuer's key type.
 */
function signCertificate(
  cert: forge.pki.Certificate,
  input: {
    readonly subjectKey: KeyObject;
    readonly issuerKeyPem: string;
    /** The issuer's subject Name, DER; absent for a self-signed certificate. */
    readonly issuerName?: forge.asn1.Asn1;
  },
): string {
  const { asn1 } = forge;
  const issuerType = createPublicKey(input.issuerKeyPem).asymmetricKeyType;
  if (issuerType !== 'rsa' && issuerType !== 'ec') {
    throw new Error(`cannot sign a certificate with a ${issuerType ?? 'unknown'} key`);
  }
  const tbs = (forge.pki as unknown as ForgeTbs).getTBSCertificate(cert);
  const fields = tbs.value as forge.asn1.Asn1[];
  const spkiDer = input.subjectKey.export({ type: 'spki', format: 'der' });
  fields[TBS.subjectPublicKeyInfo] = asn1.fromDer(spkiDer.toString('binary'));
  if (input.issuerName) fields[TBS.issuer] = input.issuerName;
  const algorithm = (): forge.asn1.Asn1 =>
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
      asn1.create(
        asn1.Class.UNIVERSAL,
        asn1.Type.OID,
        false,
        asn1.oidToDer(SIGNATURE_OIDS[issuerType]).getBytes(),
      ),
      // RSA's AlgorithmIdentifier carries NULL parameters; ECDSA's has none (RFC 5758).
      ...(issuerType === 'rsa'
        ? [asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, '')]
        : []),
    ]);
  fields[TBS.signature] = algorithm();
  const tbsDer = Buffer.from(asn1.toDer(tbs).getBytes(), 'binary');
  const signature = sign('sha256', tbsDer, input.issuerKeyPem);
  const certificate = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    tbs,
    algorithm(),
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

/** A certificate's subject Name as encoded in it (the issuer of what it signs, byte for byte). */
function subjectNameOf(cert: X509Certificate): forge.asn1.Asn1 {
  const parsed = forge.asn1.fromDer(cert.raw.toString('binary'));
  const tbs = (parsed.value as forge.asn1.Asn1[])[0];
  const name = (tbs?.value as forge.asn1.Asn1[] | undefined)?.[TBS.subject];
  if (!name) throw new Error('a CA certificate without a subject');
  return name;
}

/**
 * RFC 5280's key identifier, method 1: the SHA-1 of the subjectPublicKey bits — the PKCS#1
 * RSAPublicKey of an RSA key, the uncompressed point of an EC key.
 */
function subjectKeyIdentifier(key: KeyObject): Buffer {
  let bits: Buffer;
  if (key.asymmetricKeyType === 'rsa') {
    bits = key.export({ type: 'pkcs1', format: 'der' });
  } else {
    const jwk = key.export({ format: 'jwk' });
    bits = Buffer.concat([
      Buffer.from([4]),
      Buffer.from(jwk.x ?? '', 'base64url'),
      Buffer.from(jwk.y ?? '', 'base64url'),
    ]);
  }
  return createHash('sha1').update(bits).digest();
}

/** The subjectKeyIdentifier extension, its value given: forge would hash its stand-in key. */
function subjectKeyIdentifierExtension(id: Buffer): object {
  const { asn1 } = forge;
  return {
    name: 'subjectKeyIdentifier',
    id: forge.pki.oids['subjectKeyIdentifier'],
    value: asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, id.toString('binary')),
  };
}

/** The expiry of the first certificate in a PEM string. */
export function certificateNotAfter(certPem: string): Date {
  return new Date(new X509Certificate(certPem).validTo);
}

/** forge writes RSA public keys only: every certificate starts with this one, swapped when signed. */
const STAND_IN_KEY = forge.pki.setRsaPublicKey(
  new forge.jsbn.BigInteger('3'),
  new forge.jsbn.BigInteger('3'),
);

function newCertificate(
  validityMs: number,
  backdateMs: number,
  issuedAt: Date = new Date(),
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = STAND_IN_KEY;
  // forge encodes this into the to-be-signed part; signCertificate replaces it.
  cert.siginfo.algorithmOid = SIGNATURE_OIDS.rsa;
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
