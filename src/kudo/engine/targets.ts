/**
 * Where an Instance's plan applies: the home cluster, or the target named by
 * `spec.kubeConfig.secretRef` — a Secret in the Instance's namespace holding a kubeconfig
 * (key `secretRef.key`, else `value`, else `value.yaml`). The Secret is read on every
 * resolve (one GET), so a rotated Secret is used by the next reconcile: a changed content
 * replaces the cluster's client and rebuilds its caches.
 *
 * A target cluster is a {@link CacheRegistry} cluster keyed `secret:<ns>/<name>/<key>`, whose
 * client passes a {@link ClusterGate} (a cluster that does not answer is paused with a growing
 * retry time) and whose reconciles are limited per cluster (`tryEnter`), so a dead or slow
 * cluster costs only its own Instances.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import {
  ServerSideApply,
  ClusterGate,
  GatedKubeClient,
  TargetServerPolicy,
  type KubeClientLimits,
  ApiError,
  KubeConfigError,
  parseTargetKubeconfig,
  namespacedName,
} from '../../kube/index.ts';
import type { KubeClient } from '../../kube/index.ts';
import type { CacheRegistry } from '../../runtime/index.ts';
import type { Instance } from '../api/index.ts';

/**
 * What the manager reads from a target cluster at most (docs/limits.md): a server a tenant
 * names must not make it buffer without end (a huge list, an endless watch line) or hold a
 * watch open forever. Far above what a real API server sends: an object is at most ~1.5 MiB in
 * etcd, and lists are paged (500 items).
 */
export const TARGET_CLIENT_LIMITS: Required<Omit<KubeClientLimits, 'lookup'>> = {
  maxResponseBytes: 64 * 1024 * 1024,
  maxErrorBytes: 16 * 1024,
  maxWatchLineBytes: 16 * 1024 * 1024,
  maxWatchMs: 15 * 60_000,
  // The manager's work queue retries, with its own backoff: a target's Retry-After is not
  // waited out inside a request.
  tooManyRequestsRetries: 0,
};

/** Keys tried, in order, when `secretRef.key` is not set (Flux's convention). */
export const DEFAULT_KUBECONFIG_KEYS: readonly string[] = ['value', 'value.yaml'];

export interface Target {
  /** The cluster's registry key; undefined for the home cluster. */
  readonly cluster: string | undefined;
  readonly ssa: ServerSideApply;
  readonly gate?: ClusterGate;
  /** The home cluster's identity the plan writes with, for messages (acting-as.ts). */
  readonly actingAs?: string;
}

/** The Instance's target cannot be used; the message says why and what to do. */
export class TargetError extends Error {
  override readonly name = 'TargetError';
  constructor(
    readonly instance: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`target cluster of Instance ${instance}: ${detail}`, options);
  }
}

export interface TargetClustersOptions {
  readonly home: ServerSideApply;
  readonly caches: CacheRegistry;
  readonly fieldManager: string;
  readonly logger: Logger;
  /** Allow exec/auth-provider plugins, file paths and insecure TLS in target kubeconfigs. */
  readonly allowUnsafeKubeconfig?: boolean;
  /** Which server addresses target kubeconfigs may name. Default: the default policy. */
  readonly servers?: TargetServerPolicy;
  /** What a target's client reads at most. Default {@link TARGET_CLIENT_LIMITS}. */
  readonly limits?: Omit<KubeClientLimits, 'lookup'>;
  /** Timeout of each request to a target cluster. Default 10 s. */
  readonly requestTimeoutMs?: number;
  /** Reconciles running at once per target cluster. Default 2. */
  readonly maxConcurrentPerCluster?: number;
  /** Called after a cluster's client was replaced (its caches are gone). */
  readonly onClusterReplaced?: (cluster: string) => void;
}

interface Known {
  readonly hash: string;
  readonly target: Target;
}

/** `secret:<namespace>/<name>/<key>` */
export function clusterKey(namespace: string, secret: string, key: string): string {
  return `secret:${namespace}/${secret}/${key}`;
}

export function targetRef(instance: Instance): { name: string; key?: string } | undefined {
  const ref = instance.spec?.kubeConfig?.secretRef;
  if (!ref || typeof ref.name !== 'string' || ref.name === '') return undefined;
  return typeof ref.key === 'string' && ref.key !== ''
    ? { name: ref.name, key: ref.key }
    : { name: ref.name };
}

/**
 * The cluster keys inventory entries of `instance` may name: those of the Secret its
 * spec.kubeConfig names (fixed at creation), under its key or each default key; none without.
 */
export function targetClusterKeys(instance: Instance): string[] {
  const ref = targetRef(instance);
  if (!ref) return [];
  const ns = instance.metadata.namespace ?? '';
  return (ref.key ? [ref.key] : DEFAULT_KUBECONFIG_KEYS).map((k) => clusterKey(ns, ref.name, k));
}

interface SecretObject {
  data?: Record<string, string>;
}

export class TargetClusters {
  private readonly known = new Map<string, Known>();
  private readonly running = new Map<string, number>();
  private readonly switching = new Map<string, { hash: string; target: Promise<Target> }>();
  private readonly home: Target;
  private readonly servers: TargetServerPolicy;

  constructor(private readonly options: TargetClustersOptions) {
    this.home = { cluster: undefined, ssa: options.home };
    this.servers = options.servers ?? new TargetServerPolicy();
  }

  private get homeClient(): KubeClient {
    return this.options.home.client;
  }

  /** The target of `instance`; throws {@link TargetError} when it cannot be used. */
  async resolve(instance: Instance, signal: AbortSignal): Promise<Target> {
    const ref = targetRef(instance);
    if (!ref) {
      if (instance.spec?.kubeConfig?.secretRef !== undefined) {
        throw new TargetError(
          namespacedName(instance.metadata),
          'spec.kubeConfig.secretRef has no name; name the Secret that holds the kubeconfig',
        );
      }
      return this.home;
    }
    const ns = instance.metadata.namespace ?? '';
    const where = `Secret ${ns}/${ref.name}`;
    let secret: SecretObject;
    try {
      secret = await this.homeClient.request<SecretObject>({
        path: `/api/v1/namespaces/${encodeURIComponent(ns)}/secrets/${encodeURIComponent(ref.name)}`,
        signal,
      });
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) {
        throw new TargetError(
          namespacedName(instance.metadata),
          `${where} named by spec.kubeConfig.secretRef does not exist; create it with the target's kubeconfig: kubectl create secret generic ${ref.name} -n ${ns} --from-file=${ref.key ?? 'value'}=<kubeconfig file>`,
          { cause: err },
        );
      }
      if (err instanceof ApiError && err.statusCode === 403) {
        throw new TargetError(
          namespacedName(instance.metadata),
          `Planwright may not read ${where} (forbidden): grant its service account get on secrets in namespace ${ns}`,
          { cause: err },
        );
      }
      throw err;
    }
    const data = secret.data ?? {};
    const keys = ref.key ? [ref.key] : DEFAULT_KUBECONFIG_KEYS;
    const key = keys.find((k) => Object.hasOwn(data, k));
    if (key === undefined) {
      throw new TargetError(
        namespacedName(instance.metadata),
        `${where} has no key ${keys.map((k) => `"${k}"`).join(' or ')} (it has: ${Object.keys(data).join(', ') || 'no keys'}); put the kubeconfig under ${ref.key ? `"${ref.key}"` : '"value"'} or set spec.kubeConfig.secretRef.key`,
      );
    }
    const text = Buffer.from(data[key] ?? '', 'base64').toString('utf8');
    const cluster = clusterKey(ns, ref.name, key);
    const hash = createHash('sha256').update(text).digest('hex');
    const known = this.known.get(cluster);
    if (known?.hash === hash) return known.target;
    // One switch per cluster and content at a time: concurrent reconciles wait for it.
    const inFlight = this.switching.get(cluster);
    if (inFlight?.hash === hash) return inFlight.target;
    const switched = this.connect(instance, {
      cluster,
      source: `${where}, key ${key}`,
      text,
      replacing: known !== undefined,
    });
    this.switching.set(cluster, { hash, target: switched });
    try {
      const target = await switched;
      this.known.set(cluster, { hash, target });
      return target;
    } finally {
      if (this.switching.get(cluster)?.target === switched) this.switching.delete(cluster);
    }
  }

  private async connect(
    instance: Instance,
    kubeconfig: {
      readonly cluster: string;
      /** Where the kubeconfig text is (Secret and key), for messages. */
      readonly source: string;
      readonly text: string;
      /** The cluster had another kubeconfig before. */
      readonly replacing: boolean;
    },
  ): Promise<Target> {
    const { cluster, text, replacing } = kubeconfig;
    let kubeConfig;
    try {
      kubeConfig = parseTargetKubeconfig(text, {
        source: kubeconfig.source,
        allowUnsafe: this.options.allowUnsafeKubeconfig ?? false,
        servers: this.servers,
      });
    } catch (err) {
      if (err instanceof KubeConfigError) {
        throw new TargetError(namespacedName(instance.metadata), err.message, { cause: err });
      }
      throw err;
    }
    const server = kubeConfig.getCurrentCluster()?.server ?? '';
    const gate = new ClusterGate(cluster, server);
    const client = new GatedKubeClient(kubeConfig, gate, {
      timeoutMs: this.options.requestTimeoutMs ?? 10_000,
      limits: { ...(this.options.limits ?? TARGET_CLIENT_LIMITS), lookup: this.servers.lookup },
    });
    const caches = this.options.caches;
    if (caches.hasCluster(cluster)) await caches.replaceCluster(cluster, client);
    else caches.addCluster(cluster, client);
    const target: Target = {
      cluster,
      gate,
      ssa: new ServerSideApply({
        client,
        mapper: caches.mapper(cluster),
        fieldManager: this.options.fieldManager,
        timeoutMs: this.options.requestTimeoutMs ?? 10_000,
      }),
    };
    if (replacing) {
      this.options.logger.info({ cluster, server }, 'target kubeconfig changed; client replaced');
      this.options.onClusterReplaced?.(cluster);
    }
    return target;
  }

  /**
   * A slot for one reconcile against `cluster`, or undefined when the cluster already has
   * its share of workers busy (the caller requeues instead of waiting).
   */
  tryEnter(cluster: string | undefined): (() => void) | undefined {
    if (cluster === undefined) return () => undefined;
    const busy = this.running.get(cluster) ?? 0;
    if (busy >= (this.options.maxConcurrentPerCluster ?? 2)) return undefined;
    this.running.set(cluster, busy + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const n = (this.running.get(cluster) ?? 1) - 1;
      if (n <= 0) this.running.delete(cluster);
      else this.running.set(cluster, n);
    };
  }

  /** The target already known for a cluster key (inventory entries name it). */
  byCluster(cluster: string): Target | undefined {
    return this.known.get(cluster)?.target;
  }
}
