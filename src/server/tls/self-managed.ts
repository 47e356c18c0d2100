/**
 * Self-managed TLS (the default): a CA and serving certificate kept in one Secret shared by
 * all replicas, the CA bundle kept in the webhook configurations, rotation ahead of expiry
 * with a CA overlap, and every new certificate handed to the server for a hot swap.
 *
 * One loop per replica: read the Secret → take due rotation steps (optimistic write; on a
 * lost race re-read and use the winner's) → serve what the Secret holds → inject the bundle.
 * It runs every `checkIntervalMs` (sooner when a step falls due), and whenever a webhook
 * configuration changes. Because every replica re-reads the Secret before injecting, a stale
 * replica cannot put an old bundle back.
 *
 * See examples/api/server.ts.
 */
import type { Logger } from 'pino';
import { KubeClient, type KubeConfig } from '../../kube/index.ts';
import { JitteredBackoff, sleep } from '../../runtime/index.ts';
import { certificateNotAfter } from '../../pki/index.ts';
import { ServerConfigError, TlsError } from '../errors.ts';
import type { ProbeCheck } from '../../runtime/index.ts';
import {
  ApiCaBundleInjector,
  WatchConfigurationChangeFeed,
  type CaBundleInjector,
  type ConfigurationChangeFeed,
  type WebhookConfigurationRef,
} from './ca-injector.ts';
import {
  advance,
  caBundle,
  DEFAULT_ROTATION_POLICY,
  nextDue,
  validatePolicy,
  type RotationPolicy,
  type ServingIdentity,
  type TlsMaterial,
} from './rotation.ts';
import { SecretTlsStore, type TlsMaterialStore } from './secret-store.ts';
import type { CertificateSource, ServingCertificate } from './source.ts';

export interface SelfManagedTlsOptions {
  readonly kubeConfig: KubeConfig;
  readonly logger: Logger;
  /** Namespace of the Secret and the Service. */
  readonly namespace: string;
  readonly secretName: string;
  /** The Service in front of the webhook; its DNS names go into the certificate. */
  readonly serviceName: string;
  readonly extraDnsNames?: readonly string[];
  /** e.g. `['127.0.0.1']` for local runs where the apiserver calls a URL. */
  readonly ipAddresses?: readonly string[];
  /** Configurations whose `caBundle` is kept current. */
  readonly webhookConfigurations: readonly WebhookConfigurationRef[];
  /** Rotation timings; defaults: CA 10 y renewed 1 y ahead, serving 1 y renewed 90 d ahead. */
  readonly policy?: Partial<RotationPolicy>;
  /** How often the Secret and configurations are re-checked. Default 10 min. */
  readonly checkIntervalMs?: number;
  /** Retry delay cap after a failed check. Default 30 s. */
  readonly maxRetryDelayMs?: number;
  /** Replaceable parts (tests, or a cache-fed feed later). */
  readonly store?: TlsMaterialStore;
  readonly injector?: CaBundleInjector;
  readonly changeFeed?: ConfigurationChangeFeed;
}

const DNS_1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export class SelfManagedTls implements CertificateSource {
  private readonly logger: Logger;
  private readonly policy: RotationPolicy;
  private readonly identity: ServingIdentity;
  private readonly checkIntervalMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly store: TlsMaterialStore;
  private readonly injector: CaBundleInjector;
  private readonly changeFeed: ConfigurationChangeFeed;
  private readonly refs: readonly WebhookConfigurationRef[];
  private readonly listeners: Array<(certificate: ServingCertificate) => void> = [];
  private certificate: ServingCertificate | undefined;
  private injectedBundle: string | undefined;
  private wantedBundle: string | undefined;
  /** Aborted to cut the current wait short (a configuration changed). */
  private wake = new AbortController();
  private started = false;
  /** The API client of the default parts (closed when the loop ends). */
  private readonly client: KubeClient | undefined;

  constructor(options: SelfManagedTlsOptions) {
    for (const key of ['namespace', 'secretName', 'serviceName'] as const) {
      if (!options[key] || !DNS_1123.test(options[key])) {
        throw new ServerConfigError(
          `must be a DNS-1123 name, got ${JSON.stringify(options[key])}`,
          key,
        );
      }
    }
    if (!options.kubeConfig) throw new ServerConfigError('a KubeConfig is required', 'kubeConfig');
    if (!options.logger) throw new ServerConfigError('a pino logger is required', 'logger');
    if (!Array.isArray(options.webhookConfigurations)) {
      throw new ServerConfigError(
        'must list the configurations to inject into',
        'webhookConfigurations',
      );
    }
    this.logger = options.logger.child({ component: 'self-managed-tls' });
    this.policy = { ...DEFAULT_ROTATION_POLICY, ...options.policy };
    this.checkIntervalMs = options.checkIntervalMs ?? 10 * 60_000;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
    if (!(this.checkIntervalMs > 0)) {
      throw new ServerConfigError(
        `must be positive, got ${this.checkIntervalMs}`,
        'checkIntervalMs',
      );
    }
    validatePolicy(this.policy, this.checkIntervalMs);
    const svc = options.serviceName;
    const ns = options.namespace;
    this.identity = {
      commonName: `${svc}.${ns}.svc`,
      dnsNames: [
        svc,
        `${svc}.${ns}`,
        `${svc}.${ns}.svc`,
        `${svc}.${ns}.svc.cluster.local`,
        ...(options.extraDnsNames ?? []),
      ],
      ipAddresses: [...(options.ipAddresses ?? [])],
    };
    this.refs = options.webhookConfigurations;
    const client =
      options.store && options.injector && options.changeFeed
        ? undefined
        : new KubeClient(options.kubeConfig);
    this.client = client;
    const api = (): KubeClient => client as KubeClient;
    this.store =
      options.store ?? new SecretTlsStore(api(), ns, options.secretName, options.serviceName);
    this.injector = options.injector ?? new ApiCaBundleInjector(api(), this.refs);
    this.changeFeed = options.changeFeed ?? new WatchConfigurationChangeFeed(api(), this.logger);
  }

  start(signal: AbortSignal): void {
    if (this.started) throw new ServerConfigError('start was already called', 'SelfManagedTls');
    this.started = true;
    if (this.refs.length > 0) this.changeFeed.subscribe(this.refs, () => this.trigger(), signal);
    void this.run(signal);
  }

  current(): ServingCertificate | undefined {
    return this.certificate;
  }

  onCertificate(listener: (certificate: ServingCertificate) => void): void {
    this.listeners.push(listener);
  }

  readinessChecks(): Readonly<Record<string, ProbeCheck>> {
    return {
      'tls-certificate-loaded': () => this.certificate !== undefined,
      'tls-ca-bundle-injected': () =>
        this.injectedBundle !== undefined && this.injectedBundle === this.wantedBundle,
    };
  }

  /** One pass: exposed for tests and for a manager that wants to force a check. */
  async reconcile(): Promise<TlsMaterial> {
    const material = await this.settle();
    this.serve(material);
    const bundle = caBundle(material);
    this.wantedBundle = bundle;
    if (this.refs.length > 0) await this.injector.inject(bundle);
    this.injectedBundle = bundle;
    return material;
  }

  private async run(signal: AbortSignal): Promise<void> {
    const backoff = new JitteredBackoff({ initialMs: 250, maxMs: this.maxRetryDelayMs });
    try {
      while (!signal.aborted) {
        let delay: number;
        try {
          const material = await this.reconcile();
          backoff.reset();
          delay = Math.max(
            50,
            Math.min(this.checkIntervalMs, nextDue(material, this.policy).getTime() - Date.now()),
          );
        } catch (err) {
          delay = backoff.next();
          this.logger.error({ err, retryInMs: Math.round(delay) }, 'self-managed TLS check failed');
        }
        const wake = this.wake;
        if (!wake.signal.aborted) await sleep(delay, AbortSignal.any([signal, wake.signal]));
        this.wake = new AbortController();
      }
    } finally {
      this.client?.close();
    }
  }

  /** Reads the Secret and takes due steps; on a lost race, re-reads and uses the winner's. */
  private async settle(): Promise<TlsMaterial> {
    for (let attempt = 1; attempt <= 5; attempt++) {
      const stored = await this.store.read();
      const now = new Date();
      const { material, steps } = advance(stored?.material, now, this.policy, this.identity);
      if (steps.length === 0) return material;
      const outcome = stored
        ? await this.store.update(material, stored.resourceVersion)
        : await this.store.create(material);
      if (outcome === 'created' || outcome === 'updated') {
        this.logger.info({ steps, secret: this.store.description }, 'TLS material written');
        return material;
      }
      this.logger.debug(
        { steps, outcome },
        'another replica wrote the TLS Secret first; re-reading',
      );
    }
    throw new TlsError('kept losing write races; will retry', this.store.description);
  }

  private serve(material: TlsMaterial): void {
    if (this.certificate?.certPem === material.serving.certPem) return;
    const certificate: ServingCertificate = {
      certPem: material.serving.certPem,
      keyPem: material.serving.keyPem,
      notAfter: certificateNotAfter(material.serving.certPem),
    };
    this.certificate = certificate;
    for (const listener of this.listeners) listener(certificate);
  }

  private trigger(): void {
    this.wake.abort();
  }
}
