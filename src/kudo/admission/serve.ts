/**
 * Admission set up on a manager (controller-runtime's SetupWithManager): the webhooks on the
 * replica's HTTPS server, the caches they read (held on every replica, ready once synced) and
 * the admission worker. The App composes it; nothing here starts before the manager does.
 */
import type { Logger } from 'pino';
import type { GroupVersionKind } from '../../kube/index.ts';
import {
  JitteredBackoff,
  aborted,
  runnable,
  sleep,
  type Cache,
  type CacheView,
  type KubeObject,
  type Manager,
} from '../../runtime/index.ts';
import type { WebhookServer } from '../../server/index.ts';
import { INSTANCE_GVK, type Instance, type OperatorVersion } from '../api/index.ts';
import { ParameterValidator } from '../params/index.ts';
import { poolRunnable, type RenderPool } from '../pool/index.ts';
import type { TenancyPolicy } from '../tasks/index.ts';
import { RoutingVerifier } from '../verify/index.ts';
import { registerAdmissionWebhooks } from './register.ts';
import {
  LiveOperatorSource,
  OPERATOR_VERSION_GVK,
  type CachedOperatorVersionSource,
} from './source.ts';
import { CachedKudoUsage, INSTANCE_USAGE_VIEW } from './usage.ts';
import type { PackagePolicy } from './verify-verdict.ts';

/** The readiness checks of the caches admission reads. */
export const OPERATOR_VERSION_CACHE_CHECK = 'cache-operatorversions-synced';
export const INSTANCE_CACHE_CHECK = 'cache-instances-synced';

export interface AdmissionSettings {
  /** Usernames of Planwright itself (allowed to schedule `cleanup`). */
  readonly controllerUsers: readonly string[];
  /** What a `package verify` error in an OperatorVersion does: warn (default, as KUDO) or refuse. */
  readonly packagePolicy?: PackagePolicy;
  /** Whose OperatorVersions Instances may use (--allow-operator-version); default: their own. */
  readonly tenancy?: TenancyPolicy;
}

/** The caches admission reads, once held (controllers on the replica share the OperatorVersions'). */
export interface AdmissionCaches {
  operatorVersions?: Cache<OperatorVersion>;
  instances?: Cache<Instance>;
}

export interface ServeAdmission {
  readonly manager: Manager;
  readonly logger: Logger;
  readonly server: WebhookServer;
  /** Decodes and verifies for the webhooks: its own worker, never queued behind renders. */
  readonly pool: RenderPool;
  /** The OperatorVersions as the controllers read them too (cached, live until synced). */
  readonly operatorVersions: CachedOperatorVersionSource;
  /** Filled in as the caches are held. */
  readonly caches: AdmissionCaches;
  readonly settings: AdmissionSettings;
}

/** Registers the admission webhooks on `ctx.server` and adds what they read to the manager. */
export function serveAdmission(ctx: ServeAdmission): void {
  const { manager, pool, caches, settings } = ctx;
  const verifier = new RoutingVerifier(pool);
  registerAdmissionWebhooks(ctx.server, {
    operatorVersions: ctx.operatorVersions,
    validator: new ParameterValidator({ maxCachedOperatorVersions: 256 }),
    controllerUsers: new Set(settings.controllerUsers),
    decoder: (raw, type, signal) => pool.decode(raw, type, signal),
    // Bounded packages verify on this thread; the rest in the admission worker.
    verify: (ov, namespaceManifest, signal) => verifier.verify(ov, namespaceManifest, signal),
    packagePolicy: settings.packagePolicy ?? 'warn',
    tenancy: settings.tenancy,
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
  holdCache<OperatorVersion>(ctx, {
    gvk: OPERATOR_VERSION_GVK,
    check: OPERATOR_VERSION_CACHE_CHECK,
    keep: (held) => (caches.operatorVersions = held),
  });
  holdCache<Instance>(ctx, {
    gvk: INSTANCE_GVK,
    check: INSTANCE_CACHE_CHECK,
    keep: (held) => (caches.instances = held),
    // Of the Instances only the names and OperatorVersion references: the full Instances are
    // in the caches of the shards this replica reconciles.
    view: { transform: INSTANCE_USAGE_VIEW },
  });
  manager.add(poolRunnable('admission-pool', pool));
}

/** One cache admission reads: its kind, its readiness check, where it is kept, its view. */
interface HeldCache<T extends KubeObject> {
  readonly gvk: GroupVersionKind;
  readonly check: string;
  readonly keep: (cache: Cache<T>) => void;
  readonly view?: CacheView;
}

/**
 * Holds one cache admission reads on every replica (controllers running here share it),
 * ready once synced. Acquiring fails while the kind is not served (CRDs missing): it is
 * retried with backoff, and meanwhile admission reads live.
 */
function holdCache<T extends KubeObject>(ctx: ServeAdmission, held: HeldCache<T>): void {
  const { manager, logger } = ctx;
  const { gvk, check, keep, view } = held;
  let cache: Cache<T> | undefined;
  manager.probes.addReadyz(check, () => cache?.isSynced === true);
  manager.add(
    runnable(`cache:${gvk.kind}`, false, async (signal) => {
      const backoff = new JitteredBackoff({ initialMs: 500, maxMs: 30_000 });
      while (!signal.aborted) {
        try {
          const lease = await manager.caches.acquire<T>(gvk, 'admission', undefined, view);
          cache = lease.cache;
          keep(cache);
          await aborted(signal);
          lease.release();
          return;
        } catch (err) {
          if (signal.aborted) return;
          const retryInMs = Math.round(backoff.next());
          logger.warn(
            { err, kind: gvk.kind, retryInMs },
            'no cache for admission yet; reading live meanwhile',
          );
          await sleep(retryInMs, signal);
        }
      }
    }),
  );
}
