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
import type { GroupVersionKind, KubeConfig } from './kube/index.ts';
import {
  CachedKudoUsage,
  CachedOperatorVersionSource,
  INSTANCE_USAGE_VIEW,
  LiveOperatorSource,
  LiveOperatorVersionSource,
  registerAdmissionWebhooks,
  type PackagePolicy,
} from './kudo/admission/index.ts';
import {
  INSTANCE_GVK,
  OPERATOR_VERSION_GVK,
  type Instance,
  type OperatorVersion,
} from './kudo/api/index.ts';
import {
  registerInstanceController,
  registerVerifyEvents,
  type InstanceControllerSettings,
} from './kudo/controller/index.ts';
import { ParameterValidator } from './kudo/params/index.ts';
import {
  RoutingRenderer,
  poolRunnable,
  renderPools,
  type RenderPool,
  type RenderSettings,
} from './kudo/pool/index.ts';
import type { TenancyPolicy } from './kudo/tasks/index.ts';
import { RoutingVerifier } from './kudo/verify/index.ts';
import {
  JitteredBackoff,
  Manager,
  aborted,
  runnable,
  sleep,
  type Cache,
  type CacheView,
  type KubeObject,
  type ManagerOptions,
} from './runtime/index.ts';
import { WebhookServer, type WebhookServerOptions } from './server/index.ts';

/** The webhook server's settings; logger, registry and probes are the App's. */
export type WebhookSettings = Omit<WebhookServerOptions, 'logger' | 'registry' | 'probes'>;

/** The manager's settings; kubeConfig, logger and registry are the App's. */
export type ManagerSettings = Omit<ManagerOptions, 'kubeConfig' | 'logger' | 'registry'>;

export interface AdmissionSettings {
  /** Usernames of Planwright itself (allowed to schedule `cleanup`). */
  readonly controllerUsers: readonly string[];
  /** What a `package verify` error in an OperatorVersion does: warn (default, as KUDO) or refuse. */
  readonly packagePolicy?: PackagePolicy;
  /** Whose OperatorVersions Instances may use (--allow-operator-version); default: their own. */
  readonly tenancy?: TenancyPolicy;
}

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

/** The readiness checks of the caches admission reads. */
export const OPERATOR_VERSION_CACHE_CHECK = 'cache-operatorversions-synced';
export const INSTANCE_CACHE_CHECK = 'cache-instances-synced';

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
  private readonly caches: {
    operatorVersions?: Cache<OperatorVersion>;
    instances?: Cache<Instance>;
  } = {};

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
   * The HTTPS server with the admission webhooks, and what admission reads: the caches of
   * OperatorVersions and Instances (held on every replica) and its own worker.
   */
  private serveAdmission(
    webhook: WebhookSettings,
    operatorVersions: CachedOperatorVersionSource,
  ): WebhookServer {
    const { logger, registry, admission } = this.settings;
    const { manager, admissionPool, caches } = this;
    const server = new WebhookServer({
      ...webhook,
      logger: logger.child({ component: 'webhook' }),
      registry,
      probes: manager.probes,
    });
    const verifier = new RoutingVerifier(admissionPool);
    registerAdmissionWebhooks(server, {
      operatorVersions,
      validator: new ParameterValidator({ maxCachedOperatorVersions: 256 }),
      controllerUsers: new Set(admission.controllerUsers),
      decoder: (raw, type, signal) => admissionPool.decode(raw, type, signal),
      // Bounded packages verify on this thread; the rest in the admission worker.
      verify: (ov, namespaceManifest, signal) => verifier.verify(ov, namespaceManifest, signal),
      packagePolicy: admission.packagePolicy ?? 'warn',
      tenancy: admission.tenancy,
      operators: new LiveOperatorSource({ client: manager.client, timeoutMs: 2_000 }),
      usage: new CachedKudoUsage({
        instances: () => caches.instances,
        operatorVersions: () => caches.operatorVersions,
        client: manager.client,
        timeoutMs: 3_000,
      }),
      // Every Instance admitted gets its shard's label: the replica running the shard reads it.
      sharding: { shards: manager.shards },
    });
    this.holdCache<OperatorVersion>(OPERATOR_VERSION_GVK, OPERATOR_VERSION_CACHE_CHECK, (held) => {
      caches.operatorVersions = held;
    });
    // Of the Instances only the names and OperatorVersion references: the full Instances are
    // in the caches of the shards this replica reconciles.
    const view = { transform: INSTANCE_USAGE_VIEW };
    this.holdCache<Instance>(
      INSTANCE_GVK,
      INSTANCE_CACHE_CHECK,
      (held) => {
        caches.instances = held;
      },
      view,
    );
    manager.add(poolRunnable('admission-pool', admissionPool));
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

  /**
   * Holds one cache admission reads on every replica (controllers running here share it),
   * ready once synced. Acquiring fails while the kind is not served (CRDs missing): it is
   * retried with backoff, and meanwhile admission reads live.
   */
  private holdCache<T extends KubeObject>(
    gvk: GroupVersionKind,
    check: string,
    keep: (cache: Cache<T>) => void,
    view?: CacheView,
  ): void {
    const manager = this.manager;
    let held: Cache<T> | undefined;
    manager.probes.addReadyz(check, () => held?.isSynced === true);
    manager.add(
      runnable(`cache:${gvk.kind}`, false, async (signal) => {
        const backoff = new JitteredBackoff({ initialMs: 500, maxMs: 30_000 });
        while (!signal.aborted) {
          try {
            const lease = await manager.caches.acquire<T>(gvk, 'admission', undefined, view);
            held = lease.cache;
            keep(held);
            await aborted(signal);
            lease.release();
            return;
          } catch (err) {
            if (signal.aborted) return;
            const retryInMs = Math.round(backoff.next());
            this.settings.logger.warn(
              { err, kind: gvk.kind, retryInMs },
              'no cache for admission yet; reading live meanwhile',
            );
            await sleep(retryInMs, signal);
          }
        }
      }),
    );
  }
}
