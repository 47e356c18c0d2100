/**
 * The composition root: one Manager and what it runs — the HTTPS server with the Instance
 * admission webhook, the caches admission reads and the render pools on every replica; the
 * Instance controller for each shard of the Instances the replica runs (the webhook labels
 * each Instance with its shard); the verify-Events controller on the leader. Plain wiring:
 * each nested settings object goes unchanged to the part it configures. Used by `planwright
 * start` (cli/start.ts makes the settings from its options) and by tests that run Planwright
 * in-process. See examples/api/app.ts.
 */
import { availableParallelism } from 'node:os';
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
import { RoutingVerifier } from './kudo/verify/index.ts';
import { ParameterValidator } from './kudo/params/index.ts';
import { RenderPool, RoutingRenderer } from './kudo/pool/index.ts';
import type { TenancyPolicy } from './kudo/tasks/index.ts';
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
  type Runnable,
} from './runtime/index.ts';
import { WebhookServer, type WebhookServerOptions } from './server/index.ts';
import {
  ADMISSION_WORKER_HEAP_MB,
  RENDER_WORKER_HEAP_MB,
  cgroupMemoryLimitMb,
  workersFitting,
} from './kudo/render/index.ts';

/** The webhook server's settings; logger, registry and probes are the App's. */
export type WebhookSettings = Omit<WebhookServerOptions, 'logger' | 'registry' | 'probes'>;

/** The manager's settings; kubeConfig, logger and registry are the App's. */
export type ManagerSettings = Omit<ManagerOptions, 'kubeConfig' | 'logger' | 'registry'>;

/**
 * Limits of the render pools (rendering, OperatorVersion verification and the decoding of
 * large parameter values run in worker processes). Workers start when work needs them and
 * exit after their idle time without work. Admission decodes small values inline and starts
 * its one worker only for an OperatorVersion write or a large value: at normal priority the
 * start fits well inside the webhook's deadline even on a loaded node.
 */
export interface RenderSettings {
  /** Render workers at most (parallel renders). Default: the CPU count, 1 to 4. */
  readonly workers?: number;
  /** A render worker without work this long exits. Default 30 s. */
  readonly idleMs?: number;
  /**
   * The admission worker without work this long exits. Default 1 s: its jobs are rare (an
   * OperatorVersion write, a large value) and a start is cheap (inside the webhook's
   * deadline), while it costs a Node runtime's memory for as long as it lives — a longer idle
   * time kept it in the peak of the Instance burst that follows an OperatorVersion write. 1 s
   * still serves the back-to-back writes of one `kubectl kudo install` or `kubectl apply -f
   * <dir>`. Figures: bench/README.md, "Figures behind defaults".
   */
  readonly admissionIdleMs?: number;
  /** CPU-time limit of one template render (wall-clock: 10 × as much). Default 10 s. */
  readonly deadlineMs?: number;
  /** Heap of one render worker, MiB. Default 256. */
  readonly maxHeapMb?: number;
  /** Wall-clock limit of decoding one parameter value for admission. Default 4 s (under the webhook handler's 4.5 s). */
  readonly decodeDeadlineMs?: number;
}

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
  /** The HTTPS server with the Instance webhook; false runs controllers only. */
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

/**
 * Render workers by default: one per CPU, at least 1 and at most 4, and no more than fit
 * under the container's memory limit (kudo/render/memory-budget.ts).
 */
export function defaultRenderWorkers(
  limitMb: number | undefined = cgroupMemoryLimitMb(),
  heapMb: number = RENDER_WORKER_HEAP_MB,
): number {
  const byCpu = Math.max(1, Math.min(4, availableParallelism()));
  return limitMb === undefined ? byCpu : Math.min(byCpu, workersFitting(limitMb, heapMb));
}

export class App {
  readonly manager: Manager;
  readonly server: WebhookServer | undefined;
  /** Renders templates for the controller. */
  readonly renderPool: RenderPool;
  /** Decodes array/map parameter values for the webhook: its own workers, never queued behind renders. */
  readonly admissionPool: RenderPool;
  /** Resolves with the webhook server's port once it listens; rejects if the App stops first. */
  readonly listening: Promise<number>;
  private listened: ((port: number) => void) | undefined;
  private notListening: ((reason: Error) => void) | undefined;
  private readonly logger: Logger;
  /** The caches admission reads, once acquired (controllers here share the OperatorVersions'). */
  private operatorVersionCache: Cache<OperatorVersion> | undefined;
  private instanceCache: Cache<Instance> | undefined;

  constructor(settings: AppSettings) {
    const { logger, registry } = settings;
    this.logger = logger;
    this.manager = new Manager({
      ...settings.manager,
      kubeConfig: settings.kubeConfig,
      logger,
      registry,
    });
    const render = settings.render ?? {};
    this.renderPool = new RenderPool({
      name: 'render',
      size: render.workers ?? defaultRenderWorkers(cgroupMemoryLimitMb(), render.maxHeapMb),
      deadlineMs: render.deadlineMs ?? 10_000,
      idleMs: render.idleMs,
      maxHeapMb: render.maxHeapMb ?? RENDER_WORKER_HEAP_MB,
      logger: logger.child({ component: 'render-pool' }),
      registry,
    });
    this.admissionPool = new RenderPool({
      name: 'admission',
      size: 1,
      deadlineMs: render.decodeDeadlineMs ?? 4_000,
      // The webhook's window is wall-clock time: past it, a reasoned denial, not a timeout.
      wallLimitMs: render.decodeDeadlineMs ?? 4_000,
      idleMs: render.admissionIdleMs ?? 1_000,
      // It answers within the webhook's wall-clock deadline: not starved behind the node's
      // other work (its CPU is bounded by that deadline anyway).
      niceness: 0,
      maxHeapMb: ADMISSION_WORKER_HEAP_MB,
      logger: logger.child({ component: 'admission-pool' }),
      registry,
    });
    const live = new LiveOperatorVersionSource({ client: this.manager.client, timeoutMs: 2_000 });
    // Until the cache is synced (or on a miss) one live GET answers.
    const operatorVersions = new CachedOperatorVersionSource({
      cache: { get: (key) => this.operatorVersionCache?.get(key) },
      live,
    });
    this.listening = new Promise<number>((resolve, reject) => {
      this.listened = resolve;
      this.notListening = reject;
    });
    // Callers that do not wait for the port must not see an unhandled rejection.
    this.listening.catch(() => undefined);
    const manager = this.manager;
    // The controllers of the shards this replica runs render; a replica that runs none never
    // starts a render worker (they start when renders wait, and exit when idle).
    manager.add(pool('render-pool', this.renderPool, false));
    if (settings.webhook)
      this.server = this.serveAdmission(settings.webhook, settings, operatorVersions);
    else this.notListening?.(new Error('the App has no webhook server (webhook: false)'));
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
      const renderVerifier = new RoutingVerifier(this.renderPool);
      registerVerifyEvents({
        manager,
        logger: logger.child({ controller: 'operatorversion-verify' }),
        verify: (ov, namespaceManifest, signal) =>
          renderVerifier.verify(ov, namespaceManifest, signal),
        operators: new LiveOperatorSource({ client: manager.client, timeoutMs: 5_000 }),
        namespaces: settings.verifyEvents.namespaces,
      });
    }
  }

  /**
   * The HTTPS server with the admission webhooks, and what admission reads: the caches of
   * OperatorVersions and Instances (warmed on every replica) and its decoding worker.
   */
  private serveAdmission(
    webhook: WebhookSettings,
    settings: AppSettings,
    operatorVersions: CachedOperatorVersionSource,
  ): WebhookServer {
    const { logger, registry } = settings;
    const manager = this.manager;
    const server = new WebhookServer({
      ...webhook,
      logger: logger.child({ component: 'webhook' }),
      registry,
      probes: manager.probes,
    });
    const admissionVerifier = new RoutingVerifier(this.admissionPool);
    registerAdmissionWebhooks(server, {
      operatorVersions,
      validator: new ParameterValidator({ maxCachedOperatorVersions: 256 }),
      controllerUsers: new Set(settings.admission.controllerUsers),
      decoder: (raw, type, signal) => this.admissionPool.decode(raw, type, signal),
      // Bounded packages verify on this thread; the rest in the admission worker.
      verify: (ov, namespaceManifest, signal) =>
        admissionVerifier.verify(ov, namespaceManifest, signal),
      packagePolicy: settings.admission.packagePolicy ?? 'warn',
      tenancy: settings.admission.tenancy,
      operators: new LiveOperatorSource({ client: manager.client, timeoutMs: 2_000 }),
      usage: new CachedKudoUsage({
        instances: () => this.instanceCache,
        operatorVersions: () => this.operatorVersionCache,
        client: manager.client,
        timeoutMs: 3_000,
      }),
      // Every Instance admitted gets its shard's label: the replica running the shard reads it.
      sharding: { shards: manager.shards },
    });
    // What admission reads, warmed on every replica (the rest only where a shard runs).
    manager.add(
      this.admissionCache<OperatorVersion>(OPERATOR_VERSION_GVK, (cache) => {
        this.operatorVersionCache = cache;
      }),
    );
    // Only the names and OperatorVersion references: the full Instances are in the caches of
    // the shards this replica reconciles.
    manager.add(
      this.admissionCache<Instance>(
        INSTANCE_GVK,
        (cache) => {
          this.instanceCache = cache;
        },
        { transform: INSTANCE_USAGE_VIEW },
      ),
    );
    manager.probes.addReadyz(
      OPERATOR_VERSION_CACHE_CHECK,
      () => this.operatorVersionCache?.isSynced === true,
    );
    manager.probes.addReadyz(INSTANCE_CACHE_CHECK, () => this.instanceCache?.isSynced === true);
    // No readiness check waits for an admission worker: none runs until a job needs it.
    manager.add(pool('admission-pool', this.admissionPool, false));
    manager.add(
      runnable('webhook-server', false, async (signal) => {
        this.listened?.((await server.listen(signal)).port);
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
      this.notListening?.(new Error('the App stopped before its webhook server listened'));
    }
  }

  /**
   * Holds one cache admission reads, on every replica (controllers running here share it).
   * Acquiring fails while the kind is not served (CRDs missing): it is retried with backoff,
   * and meanwhile admission reads live.
   */
  private admissionCache<T extends KubeObject>(
    gvk: GroupVersionKind,
    acquired: (cache: Cache<T>) => void,
    view?: CacheView,
  ): Runnable {
    return runnable(`cache:${gvk.kind}`, false, async (signal) => {
      const backoff = new JitteredBackoff({ initialMs: 500, maxMs: 30_000 });
      while (!signal.aborted) {
        try {
          const lease = await this.manager.caches.acquire<T>(gvk, 'admission', undefined, view);
          acquired(lease.cache);
          await aborted(signal);
          lease.release();
          return;
        } catch (err) {
          if (signal.aborted) return;
          const retryInMs = Math.round(backoff.next());
          this.logger.warn(
            { err, kind: gvk.kind, retryInMs },
            'no cache for admission yet; reading live meanwhile',
          );
          await sleep(retryInMs, signal);
        }
      }
    });
  }
}

/**
 * A render pool as a runnable: takes jobs until the signal aborts, then stopped — on every
 * replica, or (`needLeaderElection`) for each term of leadership. Its workers start when
 * jobs need them.
 */
function pool(name: string, renderPool: RenderPool, needLeaderElection: boolean): Runnable {
  return runnable(name, needLeaderElection, async (signal) => {
    renderPool.start(signal);
    await aborted(signal);
    await renderPool.stop();
  });
}
