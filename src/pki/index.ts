/**
 * Small X.509 toolkit: certificate authorities and leaf certificates for TLS servers and
 * client-certificate users. Keys come from `node:crypto` (fast, native); certificates are
 * assembled and signed with node-forge, which node:crypto cannot do.
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
  type LeafKeyAlgorithm,
} from './certificates.ts';
