/**
 * The certificate `planwright start`'s webhook server serves, chosen by where it runs: with
 * `--cert-dir` (files mode, the cert-manager variant) tls.crt/tls.key from that folder,
 * swapped in place when they change; in a cluster behind the planwright-webhook Service, a
 * certificate it manages itself in a Secret and injects into both webhook configurations;
 * otherwise a development certificate for 127.0.0.1, whose CA start registers the webhooks
 * with (--install, local).
 */
import type { Logger } from 'pino';
import {
  FileCertificateSource,
  SelfManagedTls,
  StaticCertificateSource,
  type CertificateSource,
} from '../server/index.ts';
import { behindService, type Connection } from './cluster-source.ts';
import { REGISTRATION_NAME, WEBHOOK_SERVICE } from './registration.ts';

/** The validating configuration of manifests/webhook/ (the mutating one is the registration). */
const VALIDATING_CONFIGURATION = 'planwright-validation';

export interface WebhookTls {
  readonly tls: CertificateSource;
  /** The CA of a development certificate, to register the webhooks with. */
  readonly caPem?: string;
}

export function webhookTls(
  where: {
    readonly certDir: string | undefined;
    readonly connection: Connection;
    readonly namespace: string;
  },
  logger: Logger,
): WebhookTls {
  const tlsLogger = logger.child({ component: 'tls' });
  if (where.certDir) {
    return { tls: new FileCertificateSource({ directory: where.certDir, logger: tlsLogger }) };
  }
  if (behindService(where.connection)) {
    const tls = new SelfManagedTls({
      kubeConfig: where.connection.kubeConfig,
      logger: tlsLogger,
      namespace: where.namespace,
      secretName: 'planwright-webhook-tls',
      serviceName: WEBHOOK_SERVICE,
      webhookConfigurations: [
        { kind: 'mutating', name: REGISTRATION_NAME },
        { kind: 'validating', name: VALIDATING_CONFIGURATION },
      ],
    });
    return { tls };
  }
  const loopback = StaticCertificateSource.forLoopback('planwright-local');
  return { tls: loopback.source, caPem: loopback.caPem };
}
