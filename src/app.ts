/**
 * The composition root: one Manager (caches, leader election, controllers), one HTTPS server
 * (Instance admission webhook, health, metrics) and the Instance controller, built from
 * settings. Used by `npm start` and by tests that run Planwright in-process.
 *
 * @example
 * const app = new App({ kubeConfig, logger, registry, webhook: { port: 9443, tls },
 *   leaderElection: { namespace: 'planwright-system', name: 'planwright-leader' },
 *   controllerUsers: ['system:serviceaccount:planwright-system:planwright'] });
 * process.exitCode = await app.run();
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { GroupVersionKind } from './kube/gvk.ts';
import {
  CachedKudoUsage,
  CachedOperatorVersionSource,
  LiveOperatorSource,
  LiveOperatorVersionSource,
  OPERATOR_VERSION_GVK,
  registerAdmissionWebhooks,
  type UsageCache,
} from './kudo/admission/index.ts';
import type { Instance, OperatorVersion } from './kudo/api/types.ts';
import {
  INSTANCE_GVK,
  registerInstanceController,
  type RemoteSettings,
} from './kudo/controller/index.ts';
import { ParameterValidator } from './kudo/params/index.ts';
import { RenderPool } from './kudo/render/pool/index.ts';
import { Manager, type LeaderElectionOptions } from './runtime/index.ts';
import { WebhookServer, type CertificateSource } from './server/index.ts';

export interface WebhookSettings {
  readonly port: number;
  readonly host?: string;
  readonly tls: CertificateSource;
}

/** Limits of the render pools (rendering and parameter decoding run in worker processes). */
export interface RenderSettings {
  /** Render workers (parallel renders). Default 2. */
  readonly workers?: number;
  /** Wall-clock limit of one template render. Default 10 s. */
  readonly deadlineMs?: number;
  /** Heap of one render worker, MiB. Default 256. */
  readonly maxHeapMb?: number;
  /** Wall-clock limit of decoding one parameter value for admission. Default 4 s (under the webhook handler's 5 s). */
  readonly decodeDeadlineMs?: number;
}

export interface AppSettings {
  readonly kubeConfig: KubeConfig;
  readonly logger: Logger;
  readonly registry: Registry;
  /** The HTTPS server with the Instance webhook; false runs controllers only. */
  readonly webhook: WebhookSettings | false;
  readonly leaderElection: false | Omit<LeaderElectionOptions, 'client' | 'logger' | 'metrics'>;
  /** Usernames of Planwright itself (allowed to schedule `cleanup`). */
  readonly controllerUsers: readonly string[];
  readonly workers?: number;
  readonly instanceFilter?: (instance: Instance) => boolean;
  readonly waitMinMs?: number;
  readonly waitMaxMs?: number;
  readonly stepTimeoutMs?: number;
  readonly stepRetryLimit?: number;
  /** Image of the Pipe tasks' waiter container (default busybox; a mirror when air-gapped). */
  readonly pipeWaiterImage?: string;
  readonly ownedKinds?: readonly GroupVersionKind[];
  readonly inactivityMs?: number;
  readonly shutdownTimeoutMs?: number;
  readonly render?: RenderSettings;
  /** Target clusters named by Instances' spec.kubeConfig. */
  readonly remote?: RemoteSettings;
}

export class App {
  readonly manager: Manager;
  readonly server: WebhookServer | undefined;
  /** Renders templates for the controller (leader only, in practice). */
  readonly renderPool: RenderPool;
  /** Decodes array/map parameter values for the webhook: its own workers, never queued behind renders. */
  readonly admissionPool: RenderPool;
  private readonly serverStop = new AbortController();
  private readonly settings: AppSettings;

  constructor(settings: AppSettings) {
    this.settings = settings;
    this.manager = new Manager({
      kubeConfig: settings.kubeConfig,
      logger: settings.logger,
      registry: settings.registry,
      leaderElection: settings.leaderElection,
      ...(settings.shutdownTimeoutMs !== undefined
        ? { shutdownTimeoutMs: settings.shutdownTimeoutMs }
        : {}),
      ...(settings.inactivityMs !== undefined ? { inactivityMs: settings.inactivityMs } : {}),
    });
    const render = settings.render ?? {};
    this.renderPool = new RenderPool({
      name: 'render',
      size: render.workers ?? 2,
      deadlineMs: render.deadlineMs ?? 10_000,
      maxHeapMb: render.maxHeapMb ?? 256,
      logger: settings.logger.child({ component: 'render-pool' }),
      registry: settings.registry,
    });
    this.admissionPool = new RenderPool({
      name: 'admission',
      size: 1,
      deadlineMs: render.decodeDeadlineMs ?? 4_000,
      maxHeapMb: 128,
      logger: settings.logger.child({ component: 'admission-pool' }),
      registry: settings.registry,
    });
    const live = new LiveOperatorVersionSource({ client: this.manager.client, timeoutMs: 2_000 });
    // The OperatorVersion cache is shared by admission and the controller; until it exists
    // (or on a miss) one live GET answers.
    const operatorVersions = new CachedOperatorVersionSource({
      cache: { get: (key) => this.ovCache?.get(key) },
      live,
    });
    if (settings.webhook) {
      this.server = new WebhookServer({
        port: settings.webhook.port,
        ...(settings.webhook.host ? { host: settings.webhook.host } : {}),
        tls: settings.webhook.tls,
        logger: settings.logger.child({ component: 'webhook' }),
        registry: settings.registry,
      });
      registerAdmissionWebhooks(this.server, {
        operatorVersions,
        validator: new ParameterValidator({ maxCachedOperatorVersions: 256 }),
        controllerUsers: new Set(settings.controllerUsers),
        decoder: (raw, type, signal) => this.admissionPool.decode(raw, type, signal),
        verify: (ov, namespaceManifest, signal) =>
          this.admissionPool.verify(ov, namespaceManifest, signal),
        operators: new LiveOperatorSource({ client: this.manager.client, timeoutMs: 2_000 }),
        usage: new CachedKudoUsage({
          instances: () => this.instanceCache,
          operatorVersions: () => this.ovCache,
          client: this.manager.client,
          timeoutMs: 3_000,
        }),
      });
    }
    registerInstanceController({
      manager: this.manager,
      logger: settings.logger.child({ controller: 'instances' }),
      operatorVersions,
      templates: this.renderPool,
      ...(settings.workers !== undefined ? { workers: settings.workers } : {}),
      ...(settings.instanceFilter ? { filter: settings.instanceFilter } : {}),
      ...(settings.waitMinMs !== undefined ? { waitMinMs: settings.waitMinMs } : {}),
      ...(settings.waitMaxMs !== undefined ? { waitMaxMs: settings.waitMaxMs } : {}),
      ...(settings.stepTimeoutMs !== undefined ? { stepTimeoutMs: settings.stepTimeoutMs } : {}),
      ...(settings.stepRetryLimit !== undefined ? { stepRetryLimit: settings.stepRetryLimit } : {}),
      ...(settings.pipeWaiterImage ? { pipeWaiterImage: settings.pipeWaiterImage } : {}),
      ...(settings.ownedKinds ? { ownedKinds: settings.ownedKinds } : {}),
      ...(settings.remote ? { remote: settings.remote } : {}),
      registry: settings.registry,
    });
  }

  private ovCache:
    (UsageCache<OperatorVersion> & { get(key: string): OperatorVersion | undefined }) | undefined;
  /** Which Instances use an OperatorVersion (admission on every replica). */
  private instanceCache: UsageCache<Instance> | undefined;

  /** Starts the HTTPS server (every replica) and returns its port. */
  async startServer(): Promise<number | undefined> {
    if (!this.server) return undefined;
    this.acquireOperatorVersions('admission');
    this.acquireInstances();
    this.admissionPool.start(this.serverStop.signal);
    const { port } = await this.server.start(this.serverStop.signal);
    return port;
  }

  /**
   * The shared OperatorVersion cache, acquired in the background: until it is synced (or if
   * it cannot be, e.g. missing rights) every lookup is one live GET.
   */
  private acquireOperatorVersions(user: string): void {
    if (this.ovCacheRequested) return;
    this.ovCacheRequested = true;
    this.manager.caches
      .acquire<OperatorVersion & { metadata: object }>(OPERATOR_VERSION_GVK, user)
      .then((lease) => {
        this.ovCache = lease.cache;
        this.manager.signal.addEventListener('abort', () => lease.release(), { once: true });
      })
      .catch((err: unknown) => {
        this.settings.logger.warn(
          { err },
          'no OperatorVersion cache; reading OperatorVersions live',
        );
      });
  }

  private ovCacheRequested = false;

  /**
   * The shared Instance cache for the OperatorVersion/Operator webhooks (who uses what),
   * acquired in the background; until it is synced a lookup is one live list.
   */
  private acquireInstances(): void {
    this.manager.caches
      .acquire<Instance & { metadata: object }>(INSTANCE_GVK, 'admission')
      .then((lease) => {
        this.instanceCache = lease.cache;
        this.manager.signal.addEventListener('abort', () => lease.release(), { once: true });
      })
      .catch((err: unknown) => {
        this.settings.logger.warn({ err }, 'no Instance cache; admission lists Instances live');
      });
  }

  /** Runs until stopped; resolves with the exit code. Call startServer() first for the webhook. */
  async run(): Promise<number> {
    this.acquireOperatorVersions('controller:instances');
    this.renderPool.start(this.serverStop.signal);
    try {
      return await this.manager.start();
    } finally {
      this.serverStop.abort();
      await Promise.all([this.server?.stop(), this.renderPool.stop(), this.admissionPool.stop()]);
    }
  }

  stop(): void {
    this.manager.stop();
  }

  get logger(): Logger {
    return this.settings.logger;
  }
}
