import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createCertificateAuthority,
  generateEcdsaKeyPair,
  issueCertificate,
  type CertificateAuthority,
} from '../pki/index.ts';

/** The user of the admin kubeconfig (group system:masters). */
export const ADMIN_USER = 'planwright-admin';

/** Key and certificate files of a cluster, as written into its cert folder. */
export interface ClusterPki {
  readonly certDir: string;
  readonly servingCa: CertificateAuthority;
  readonly clientCa: CertificateAuthority;
  readonly admin: { readonly certPem: string; readonly keyPem: string };
  readonly files: {
    readonly servingCa: string;
    readonly servingCert: string;
    readonly servingKey: string;
    readonly clientCa: string;
    readonly serviceAccountPublicKey: string;
    readonly serviceAccountPrivateKey: string;
    /** The apiserver's client certificate for kubelets (logs, exec) and its key. */
    readonly kubeletClientCert: string;
    readonly kubeletClientKey: string;
  };
}

/**
 * Every key of a local cluster, CAs included: ECDSA P-256. Each cluster's keys are new, and a
 * P-256 key is made in a tenth of a millisecond where an RSA-2048 key takes about 200 ms of
 * CPU (six of them made a cluster start ~1.2 CPU-s dearer); Kubernetes' components take
 * either.
 */
const KEY = 'ecdsa-p256';

/**
 * Generates the cluster's certificates into `certDir` (private files): a serving CA and the
 * apiserver's certificate for localhost, 127.0.0.1 and the in-cluster names; a client CA and
 * the admin user; the service-account signing key pair (ES256 tokens).
 */
export async function writeClusterPki(certDir: string): Promise<ClusterPki> {
  const servingCa = createCertificateAuthority({
    commonName: 'planwright-local-serving-ca',
    keyAlgorithm: KEY,
  });
  const clientCa = createCertificateAuthority({
    commonName: 'planwright-local-client-ca',
    keyAlgorithm: KEY,
  });
  const serving = issueCertificate(servingCa, {
    keyAlgorithm: KEY,
    commonName: 'kube-apiserver',
    dnsNames: [
      'localhost',
      'kubernetes',
      'kubernetes.default',
      'kubernetes.default.svc',
      'kubernetes.default.svc.cluster.local',
    ],
    ipAddresses: ['127.0.0.1', '10.0.0.1'],
    usage: 'server',
  });
  const admin = issueCertificate(clientCa, {
    keyAlgorithm: KEY,
    commonName: ADMIN_USER,
    organizations: ['system:masters'],
    usage: 'client',
  });
  const kubeletClient = issueCertificate(clientCa, {
    keyAlgorithm: KEY,
    commonName: 'kube-apiserver-kubelet-client',
    usage: 'client',
  });
  const sa = generateEcdsaKeyPair();
  const files = {
    servingCa: join(certDir, 'serving-ca.crt'),
    servingCert: join(certDir, 'apiserver.crt'),
    servingKey: join(certDir, 'apiserver.key'),
    clientCa: join(certDir, 'client-ca.crt'),
    serviceAccountPublicKey: join(certDir, 'sa.pub'),
    serviceAccountPrivateKey: join(certDir, 'sa.key'),
    kubeletClientCert: join(certDir, 'kubelet-client.crt'),
    kubeletClientKey: join(certDir, 'kubelet-client.key'),
  };
  const contents: ReadonlyArray<readonly [string, string]> = [
    [files.servingCa, servingCa.certPem],
    [files.servingCert, serving.certPem + servingCa.certPem],
    [files.servingKey, serving.keyPem],
    [files.clientCa, clientCa.certPem],
    [files.serviceAccountPublicKey, sa.publicKeyPem],
    [files.serviceAccountPrivateKey, sa.privateKeyPem],
    [files.kubeletClientCert, kubeletClient.certPem],
    [files.kubeletClientKey, kubeletClient.keyPem],
  ];
  for (const [path, content] of contents) await writeFile(path, content, { mode: 0o600 });
  return { certDir, servingCa, clientCa, admin, files };
}
