import { writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { issueCertificate, type CertificateAuthority } from '../pki/index.ts';

export interface UserCredentials {
  readonly name: string;
  readonly groups: readonly string[];
  readonly kubeconfigPath: string;
}

/**
 * Writes a kubeconfig for a client-certificate user: the certificate is signed by the
 * apiserver's client CA with CN = user and O = groups, which is how the apiserver
 * authenticates it. Credentials are embedded so the file is self-contained.
 */
export async function writeUserKubeconfig(options: {
  readonly path: string;
  readonly server: string;
  readonly servingCaPem: string;
  readonly clientCa: CertificateAuthority;
  readonly user: string;
  readonly groups?: readonly string[];
  readonly contextName?: string;
}): Promise<UserCredentials> {
  const groups = options.groups ?? [];
  const cert = issueCertificate(options.clientCa, {
    commonName: options.user,
    organizations: groups,
    usage: 'client',
    // As every key of a local cluster (localcluster/pki.ts): made in a tenth of a millisecond.
    keyAlgorithm: 'ecdsa-p256',
  });
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const context = options.contextName ?? 'planwright-local';
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'planwright-local',
        cluster: {
          server: options.server,
          'certificate-authority-data': b64(options.servingCaPem),
        },
      },
    ],
    users: [
      {
        name: options.user,
        user: {
          'client-certificate-data': b64(cert.certPem),
          'client-key-data': b64(cert.keyPem),
        },
      },
    ],
    contexts: [{ name: context, context: { cluster: 'planwright-local', user: options.user } }],
    'current-context': context,
  };
  await writeFile(options.path, stringify(doc), { mode: 0o600 });
  return { name: options.user, groups, kubeconfigPath: options.path };
}
