// KUDO 0.19's manager (github.com/kudobuilder/kudo/cmd/manager), built from the Go wrapper
// module bench/kudo/ into the machine's cache once, and started out-of-cluster the way the
// bench needs it: its own client-certificate user, its webhook registered at 127.0.0.1:443.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureGoTool, type EnsureGoToolOptions } from '../../src/localcluster/go-tool.ts';
import { repositoryRoot } from '../../src/localcluster/paths.ts';
import { createCertificateAuthority, issueCertificate } from '../../src/pki/index.ts';
import { spawnLogged, type LoggedChild } from './child.ts';

export const KUDO_VERSION = 'v0.19.0';
const MODULE = 'github.com/kudobuilder/kudo';
/** controller-runtime 0.6's webhook server: port 443, files tls.crt/tls.key in CertDir. */
export const KUDO_WEBHOOK_PORT = 443;
/** The path KUDO registers its Instance admission handler at (cmd/manager/main.go). */
const KUDO_WEBHOOK_PATH = '/admit-kudo-dev-v1beta1-instance';

/** Path of KUDO's manager executable, building it on first use (≈ 2.5 min cold on 2 cores). */
export function ensureKudoManager(options: EnsureGoToolOptions = {}): Promise<string> {
  return ensureGoTool(
    {
      name: 'kudo-manager',
      cacheFolder: 'kudo',
      version: KUDO_VERSION,
      moduleDir: join(repositoryRoot(), 'bench', 'kudo'),
      pkg: `${MODULE}/cmd/manager`,
      ldflags: `-s -w -X ${MODULE}/pkg/version.gitVersion=${KUDO_VERSION}`,
      purpose: `KUDO ${KUDO_VERSION}'s manager for bench/vs-kudo.ts`,
      hint: 'bench/kudo/go.mod pins its dependencies (reflect2 v1.0.2 for Go >= 1.18).',
    },
    options,
  );
}

export interface KudoManagerProcess extends LoggedChild {
  /** The MutatingWebhookConfiguration to create (admissionregistration.k8s.io/v1). */
  readonly webhookConfiguration: object;
}

/**
 * Starts KUDO's manager with `KUBECONFIG` (its own user) and `KUDO_CERT_DIR` holding a serving
 * certificate for 127.0.0.1 from a fresh CA; the returned webhook configuration carries that
 * CA. It listens on 443 (controller-runtime 0.6 has no setting for it in KUDO's main), so the
 * bench must run as root, and on :8080 for metrics.
 */
export async function startKudoManager(options: {
  readonly binary: string;
  readonly kubeconfig: string;
  readonly workDir: string;
}): Promise<KudoManagerProcess> {
  const certDir = join(options.workDir, 'kudo-certs');
  await mkdir(certDir, { recursive: true });
  const ca = createCertificateAuthority({ commonName: 'bench-kudo-webhook-ca' });
  const serving = issueCertificate(ca, {
    commonName: '127.0.0.1',
    ipAddresses: ['127.0.0.1'],
    usage: 'server',
  });
  await writeFile(join(certDir, 'tls.crt'), serving.certPem, { mode: 0o600 });
  await writeFile(join(certDir, 'tls.key'), serving.keyPem, { mode: 0o600 });
  const child = spawnLogged(options.binary, [], {
    ...process.env,
    KUBECONFIG: options.kubeconfig,
    KUDO_CERT_DIR: certDir,
  });
  return {
    ...child,
    webhookConfiguration: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'kudo-manager-instance-admission-webhook-config' },
      webhooks: [
        {
          name: 'instance-admission.kudo.dev',
          // KUDO 0.19 decodes admission/v1beta1 reviews only.
          admissionReviewVersions: ['v1beta1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          matchPolicy: 'Equivalent',
          rules: [
            {
              operations: ['CREATE', 'UPDATE'],
              apiGroups: ['kudo.dev'],
              apiVersions: ['v1beta1'],
              resources: ['instances'],
              scope: 'Namespaced',
            },
          ],
          clientConfig: {
            url: `https://127.0.0.1:${KUDO_WEBHOOK_PORT}${KUDO_WEBHOOK_PATH}`,
            caBundle: Buffer.from(ca.certPem).toString('base64'),
          },
        },
      ],
    },
  };
}
