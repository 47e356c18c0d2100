/**
 * The composition root: one Manager and what it runs — the render pools and, on every
 * replica, the HTTPS server with the admission webhooks and the caches admission reads; the
 * Instance controller for each shard of the Instances the replica runs (the webhook labels
 * each Instance with its shard); the verify-Events controller on the leader. Plain wiring:
 * each nested settings object goes unchanged to the part it configures, and each part adds
 * itself to the manager. Used by `planwright start` (cli/commands/start.ts makes the settings
 * from its options) and by tests that run Planwright in-process. See examples/api/app.ts.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { KubeConfig } from './kube/index.ts';
import {
  CachedOperatorVersionSource,
  LiveOperatorSource,
  LiveOperatorVersionSource,
  serveAdmission,
  type AdmissionCaches,
  type AdmissionSettings,
} from './kudo/admission/index.ts';
import {
  registerInstanceController,
  registerVerifyEvents,
  type InstanceControllerSettings,
} from './kudo/controller/index.ts';
import {
  RoutingRenderer,
  poolRunnable,
  renderPools,
  type RenderPool,
  type RenderSettings,
} from './kudo/pool/index.ts';
import { RoutingVerifier } from './kudo/verify/index.ts';
import { Manager, runnable, type ManagerOptions } from './runtime/index.ts';
import { WebhookServer, type WebhookServerOptions } from './server/index.ts';

export {
  INSTANCE_CACHE_CHECK,
  OPERATOR_VERSION_CACHE_CHECK,
  type AdmissionSettings,
} from './kudo/admission/index.ts';

/** The webhook server's settings; logger, registry and probes are the App's. */
export type WebhookSettings = Omit<WebhookServerOptions, 'logger' | 'registry' | 'probes'>;

/** The manager's settings; kubeConfig, logger and registry are the App's. */
export type ManagerSettings = Omit<ManagerOptions, 'kubeConfig' | 'logger' | 'registry'>;

export interface AppSettings {
  readonly kubeConfig: KubeConfig;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly manager: ManagerSettings;
  /** The HTTPS server with the admission webhooks; false runs controllers only. */
  readonly webhook: WebhookSettings | false;
  readonly admission: AdmissionSettings;
  readonly controller?: InstanceControllerSettings;
  readonly render?: RenderSettings;
  /**
   * A Warning Event on each OperatorVersion `package verify` finds errors in (the webhook
   * admits them with warnings), on the leader; `namespaces` narrows it. Off without this.
   */
  readonly verifyEvents?: { readonly namespaces?: (namespace: string) => boolean };
}

export class App {
  readonly manager: Manager;
  readonly server: WebhookServer | undefined;
  /** Renders templates for the controller. */
  readonly renderPool: RenderPool;
  /** Decodes and verifies for the webhook: its own worker, never queued behind renders. */
  readonly admissionPool: RenderPool;
  /** Resolves with the webhook server's port once it listens; rejects if the App stops first. */
  readonly listening: Promise<number>;
  private listened: (port: number) => void = () => undefined;
  private notListening: (reason: Error) => void = () => undefined;
  /** The caches admission reads, once held (controllers here share the OperatorVersions'). */
  private readonly caches: AdmissionCaches = {};

  constructor(private readonly settings: AppSettings) {
    const { logger, registry } = settings;
    const manager = new Manager({
      ...settings.manager,
      kubeConfig: settings.kubeConfig,
      logger,
      registry,
    });
    this.manager = manager;
    const pools = renderPools(settings.render ?? {}, { logger, registry });
    [this.renderPool, this.admissionPool] = [pools.render, pools.admission];
    this.listening = new Promise<number>((resolve, reject) => {
      [this.listened, this.notListening] = [resolve, reject];
    });
    // Callers that do not wait for the port must not see an unhandled rejection.
    this.listening.catch(() => undefined);
    // The cached OperatorVersions, read live until the cache is synced (or on a miss).
    const operatorVersions = new CachedOperatorVersionSource({
      cache: { get: (key) => this.caches.operatorVersions?.get(key) },
      live: new LiveOperatorVersionSource({ client: manager.client, timeoutMs: 2_000 }),
    });
    // The controllers of the shards this replica runs render; a replica that runs none never
    // starts a render worker.
    manager.add(poolRunnable('render-pool', this.renderPool));
    if (settings.webhook) this.server = this.serveAdmission(settings.webhook, operatorVersions);
    else this.notListening(new Error('the App has no webhook server (webhook: false)'));
    registerInstanceController({
      ...settings.controller,
      manager,
      logger: logger.child({ controller: 'instances' }),
      operatorVersions,
      // Bounded templates render on this thread; the rest (and only then) in render workers.
      templates: new RoutingRenderer({ workers: this.renderPool, registry, pool: 'render' }),
      registry,
    });
    if (settings.verifyEvents) {
      const verifier = new RoutingVerifier(this.renderPool);
      registerVerifyEvents({
        manager,
        logger: logger.child({ controller: 'operatorversion-verify' }),
        verify: (ov, namespaceManifest, signal) => verifier.verify(ov, namespaceManifest, signal),
        operators: new LiveOperatorSource({ client: manager.client, timeoutMs: 5_000 }),
        namespaces: settings.verifyEvents.namespaces,
      });
    }
  }

  /**
   * The HTTPS server with the admission webhooks and what they read (kudo/admission's
   * serveAdmission): caches held on every replica and the admission worker.
   */
  private serveAdmission(
    webhook: WebhookSettings,
    operatorVersions: CachedOperatorVersionSource,
  ): WebhookServer {
    const { logger, registry, admission } = this.settings;
    const manager = this.manager;
    const server = new WebhookServer({
      ...webhook,
      logger: logger.child({ component: 'webhook' }),
      registry,
      probes: manager.probes,
    });
    serveAdmission({
      manager,
      logger,
      server,
      pool: this.admissionPool,
      operatorVersions,
      caches: this.caches,
      settings: admission,
    });
    manager.add(
      runnable('webhook-server', false, async (signal) => {
        this.listened((await server.listen(signal)).port);
        await server.start(signal);
      }),
    );
    return server;
  }

  /** Runs everything until `signal` aborts; resolves with the exit code (see Manager). */
  async start(signal: AbortSignal): Promise<number> {
    try {
      return await this.manager.start(signal);
    } finally {
      this.notListening(new Error('the App stopped before its webhook server listened'));
    }
  }
}
