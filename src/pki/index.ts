/**
 * Small X.509 toolkit: certificate authorities and leaf certificates for TLS servers and
 * client-certificate users, with RSA-2048 or ECDSA P-256 keys. Keys and signatures come from
 * `node:crypto` (native); node-forge encodes the certificates, which node:crypto cannot do.
 *
 * Knows nothing of Kubernetes; used by the local control plane (apiserver serving cert,
 * client CA, admin user) and by the webhook server's self-managed TLS.
 *
 * See examples/api/pki.ts.
 */
export {
  createCertificateAuthority,
  issueCertificate,
  generateRsaKeyPair,
  generateEcdsaKeyPair,
  certificateNotAfter,
  type CertificateAuthority,
  type CertificateRequest,
  type IssuedCertificate,
  type KeyPairPem,
  type CertificateUsage,
  type KeyAlgorithm,
  type LeafKeyAlgorithm,
} from './certificates.ts';
