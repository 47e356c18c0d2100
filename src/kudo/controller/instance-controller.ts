/**
 * Wires the Instance reconciler into the runtime: the controller reconciles Instances, is
 * woken by spec/metadata changes of an Instance (not by its own status writes), by owned
 * workloads changing (their status decides health), and by OperatorVersion changes.
 */
import type { Logger } from 'pino';
import {
  ServerSideApply,
  TargetServerPolicy,
  gvkKey,
  parseApiVersion,
  type GroupVersionKind,
} from '../../kube/index.ts';
import type { ApplyObject } from '../../kube/index.ts';
import {
  objectKey,
  ShardLabeler,
  type CacheRegistry,
  type ComponentEventRecorder,
  type EventFilter,
  type KubeObject,
  type Manager,
  type ShardedController,
} from '../../runtime/index.ts';
import {
  INSTANCE_GVK,
  OPERATOR_VERSION_GVK,
  type OperatorVersionSource,
  instanceOperatorVersionKeys,
  instanceShardKey,
  INSTANCES_BY_OPERATOR_VERSION,
  KUDO_GROUP,
  SHARD_LABEL,
  type Instance,
  readStatus,
} from '../api/index.ts';
import { Counter, Gauge, type Registry } from 'prom-client';
import {
  ANNOTATION_DRIFT,
  ANNOTATION_SKIP_TARGET_CLEANUP,
  DriftKeeper,
  Identities,
  INSTANCE_EVENTS_COMPONENT,
  InstanceReconciler,
  InstanceWatches,
  OWNED_OBJECTS,
  TargetClusters,
  type EventSink,
  type InstanceReconcilerOptions,
  labelledFor,
  type WorkloadSource,
  CachedObjects,
} from '../engine/index.ts';
import { READINESS_KINDS } from '../health/index.ts';
import { HERITAGE_KUDO, InlineRenderer, LABEL_HERITAGE, LABEL_INSTANCE } from '../render/index.ts';
import { ANNOTATION_SERVICE_ACCOUNT } from '../tasks/index.ts';

export { INSTANCE_GVK };

/**
 * Kinds whose changes decide health over time; their events wake the Instance that owns them
 * (controller owner reference) or that they are labelled for (`heritage=kudo` +
 * `kudo.dev/instance`, in the Instance's namespace: the Pods and ReplicaSets a Deployment
 * makes carry the pod template's labels, not an owner reference to the Instance).
 */
export const DEFAULT_OWNED_KINDS: readonly GroupVersionKind[] = [
  ...READINESS_KINDS,
  { group: 'batch', version: 'v1', kind: 'Job' },
  { group: '', version: 'v1', kind: 'Service' },
];

export const FIELD_MANAGER = 'planwright';

/**
 * Spec changes (generation), deletion start, finalizer changes, a malformed status; never our
 * own (well-formed) status writes.
 */
export const instanceChanged: EventFilter<Instance> = (event) => {
  if (event.type !== 'update' || !event.old) return true;
  const a = event.old.metadata;
  const b = event.object.metadata;
  return (
    a?.generation !== b?.generation ||
    a?.deletionTimestamp !== b?.deletionTimestamp ||
    a?.annotations?.[ANNOTATION_DRIFT] !== b?.annotations?.[ANNOTATION_DRIFT] ||
    a?.annotations?.[ANNOTATION_SERVICE_ACCOUNT] !== b?.annotations?.[ANNOTATION_SERVICE_ACCOUNT] ||
    a?.annotations?.[ANNOTATION_SKIP_TARGET_CLEANUP] !==
      b?.annotations?.[ANNOTATION_SKIP_TARGET_CLEANUP] ||
    JSON.stringify(a?.finalizers ?? []) !== JSON.stringify(b?.finalizers ?? []) ||
    // Someone else stored a status of the wrong shape (the CRD keeps it untyped):
    // wake the Instance so the controller rewrites it. One shape check per status write.
    (event.old.status !== event.object.status && readStatus(event.object).problems.length > 0)
  );
};

/** The controller's tunables, as the App's settings carry them (passed through unchanged). */
export interface InstanceControllerSettings extends Pick<
  InstanceReconcilerOptions,
  | 'waitMinMs'
  | 'waitMaxMs'
  | 'stepTimeoutMs'
  | 'stepRetryLimit'
  | 'filter'
  | 'pipeWaiterImage'
  | 'podExec'
  | 'tenancy'
> {
  /** Parallel reconciles. Default {@link DEFAULT_RECONCILE_WORKERS}. */
  readonly workers?: number;
  /** Kinds whose events wake their Instance. Default {@link DEFAULT_OWNED_KINDS}. */
  readonly ownedKinds?: readonly GroupVersionKind[];
  /** Target clusters (spec.kubeConfig). */
  readonly remote?: RemoteSettings;
}

export interface InstanceControllerOptions extends InstanceControllerSettings {
  readonly manager: Manager;
  readonly logger: Logger;
  readonly operatorVersions: OperatorVersionSource;
  readonly templates?: InstanceReconcilerOptions['templates'];
  /** Where the drift metric is registered. */
  readonly registry?: Registry;
}

export interface RemoteSettings {
  /** Let exec/auth-provider plugins, file paths and insecure TLS through in target kubeconfigs. */
  readonly allowUnsafeKubeconfig?: boolean;
  /** Server addresses/CIDR ranges target kubeconfigs may name although refused by default. */
  readonly allowedServers?: readonly string[];
  /** Timeout of each request to a target cluster. Default 10 s. */
  readonly requestTimeoutMs?: number;
  /** Reconciles at once per target cluster. Default 2 (of the controller's workers). */
  readonly maxConcurrentPerCluster?: number;
}

/**
 * Reconciles in flight at once. A pass spends most of its time waiting on the API server
 * (applies, the awaited plan Events, the status write), so throughput is workers / latency;
 * and etcd and kube-apiserver batch concurrent writes, so fewer in flight also costs them more
 * CPU per write; more than 8 gained nothing in bench/vs-kudo.ts (figures: bench/README.md,
 * "Reconcile workers"). Each worker holds at most one Instance's pass in memory.
 */
export const DEFAULT_RECONCILE_WORKERS = 8;

/** The Instances an object wakes: its Instance owner references and its instance label. */
export function instanceKeysOf(obj: KubeObject): string[] {
  const ns = obj.metadata?.namespace;
  if (!ns) return [];
  const keys = new Set<string>();
  for (const ref of obj.metadata?.ownerReferences ?? []) {
    if (ref.kind === 'Instance' && parseApiVersion(ref.apiVersion).group === KUDO_GROUP) {
      keys.add(`${ns}/${ref.name}`);
    }
  }
  const labels = obj.metadata?.labels ?? {};
  const instance = labels[LABEL_INSTANCE];
  if (instance && labels[LABEL_HERITAGE] === HERITAGE_KUDO) keys.add(`${ns}/${instance}`);
  return [...keys];
}

/** The workloads of an Instance from the controller's watch caches. */
class CachedWorkloadSource implements WorkloadSource {
  constructor(private readonly caches: CacheRegistry) {}

  async list(namespace: string, instanceName: string): Promise<ApplyObject[]> {
    const out: ApplyObject[] = [];
    for (const gvk of READINESS_KINDS) {
      const cache = await this.caches.peek(gvk, undefined, OWNED_OBJECTS);
      if (!cache) throw new Error(`no watch cache for ${gvkKey(gvk)} (controller not started?)`);
      for (const obj of cache.list(namespace)) {
        const o = obj as ApplyObject;
        if (labelledFor(o, instanceName)) out.push(o);
      }
    }
    return out;
  }
}

/** The runtime's Event recorder as the reconciler records with it. */
function instanceEvents(recorder: ComponentEventRecorder): EventSink {
  return {
    record: (object, type, reason, message) => recorder.record(object, type, reason, message),
    recordOnce: (object, event, signal) =>
      recorder.recordOnce(object, event.type, event.reason, event.message, event.id, signal),
  };
}

/**
 * Registers the Instance controller with the manager: sharded by {@link SHARD_LABEL} (each
 * replica reconciles the shards it runs, one controller per shard term), plus the labeler
 * that gives unlabelled Instances their shard.
 */
export function registerInstanceController(
  options: InstanceControllerOptions,
): ShardedController<Instance> {
  const { manager, logger, operatorVersions, workers, ownedKinds, remote, registry, ...tuning } =
    options;
  const ssa = new ServerSideApply({
    client: manager.client,
    mapper: manager.caches.mapper(),
    fieldManager: FIELD_MANAGER,
  });
  const builder = manager
    .controller()
    .named('instances')
    .for<Instance>(INSTANCE_GVK, instanceChanged)
    .withIndex(INSTANCES_BY_OPERATOR_VERSION, instanceOperatorVersionKeys)
    .watches(OPERATOR_VERSION_GVK, (ov, instances) =>
      instances.byIndex(INSTANCES_BY_OPERATOR_VERSION, objectKey(ov)).map(objectKey),
    )
    .workers(workers ?? DEFAULT_RECONCILE_WORKERS);
  // The readiness kinds are always watched: the Ready condition reads their caches.
  const watched = new Map(
    [...READINESS_KINDS, ...(ownedKinds ?? DEFAULT_OWNED_KINDS)].map((g) => [gvkKey(g), g]),
  );
  for (const gvk of watched.values()) builder.watchesView(gvk, OWNED_OBJECTS, instanceKeysOf);
  // Child Instances (operator in operator) wake their parent; a child is in its parent's
  // shard (api/shard.ts), so the shard's own cache sees it.
  builder.watches<Instance>(INSTANCE_GVK, (child) =>
    instanceKeysOf(child).filter((key) => key !== objectKey(child)),
  );
  const engine = instanceEngine({
    manager,
    logger,
    operatorVersions,
    remote,
    registry,
    tuning,
    ssa,
    watched,
    enqueue: (key) => sharded.enqueue(key),
  });
  const sharded = builder.completeSharded({
    label: SHARD_LABEL,
    // Each term of each shard gets its own reconciler: nothing it remembered outlives the term.
    reconcilerForTerm: (term) => InstanceReconciler.forTerm(engine.ctx, term),
    // The shard went elsewhere: the watches its Instances held go.
    onTermEnd: (keys) => {
      for (const key of keys) engine.watches.releaseAll(key);
    },
  });
  manager.add(
    new ShardLabeler({
      caches: manager.caches,
      gvk: INSTANCE_GVK,
      label: SHARD_LABEL,
      shards: manager.shards,
      keyOf: instanceShardKey,
      accept: tuning.filter && ((o) => tuning.filter?.(o as Instance) ?? true),
      logger: logger.child({ component: 'shard-labeler' }),
    }),
  );
  if (registry) {
    new Gauge({
      name: 'planwright_shard_instances',
      help: 'Instances in the cache of each shard this replica runs',
      labelNames: ['shard'] as const,
      registers: [registry],
      collect(): void {
        this.reset();
        for (const [shard, n] of sharded.objects()) this.set({ shard }, n);
      },
    });
  }
  return sharded;
}

/** The engine's context, made once: every term's reconciler gets it as it is. */
function instanceEngine(
  options: Pick<
    InstanceControllerOptions,
    'manager' | 'logger' | 'operatorVersions' | 'remote' | 'registry'
  > & {
    /** The reconciler's tunables, passed through unchanged. */
    readonly tuning: Omit<
      InstanceControllerOptions,
      'manager' | 'logger' | 'operatorVersions' | 'remote' | 'registry' | 'workers' | 'ownedKinds'
    >;
    readonly ssa: ServerSideApply;
    readonly watched: ReadonlyMap<string, GroupVersionKind>;
    readonly enqueue: (key: string) => void;
  },
): { readonly watches: InstanceWatches; readonly ctx: InstanceReconcilerOptions } {
  const { manager, logger, operatorVersions, remote, registry, tuning, ssa, watched, enqueue } =
    options;
  const watches = new InstanceWatches({ caches: manager.caches, logger, enqueue });
  const { allowedServers, ...remoteRest } = remote ?? {};
  const targets = new TargetClusters({
    ...remoteRest,
    servers: new TargetServerPolicy(allowedServers ?? []),
    home: ssa,
    caches: manager.caches,
    fieldManager: FIELD_MANAGER,
    logger,
    onClusterReplaced: (cluster) => watches.clusterReplaced(cluster),
  });
  // Plans write as a ServiceAccount of the Instance's namespace where the policy says so.
  const identities = tuning.tenancy?.serviceAccounts
    ? new Identities({ home: ssa, fieldManager: FIELD_MANAGER, policy: tuning.tenancy, logger })
    : undefined;
  if (identities)
    manager.signal.addEventListener('abort', () => identities.close(), { once: true });
  const ctx: InstanceReconcilerOptions = {
    ...tuning,
    templates: tuning.templates ?? new InlineRenderer(),
    now: (): Date => new Date(),
    identities,
    targets,
    watches,
    newDrift: driftKeepers(registry),
    operatorVersions,
    client: manager.client,
    ssa,
    // KUDO's Instance events come from `instance-controller` (kudo-compat.md, Events).
    events: instanceEvents(manager.events.forComponent(INSTANCE_EVENTS_COMPONENT)),
    logger,
    workloads: new CachedWorkloadSource(manager.caches),
    objects: new CachedObjects({
      caches: manager.caches,
      kinds: [...watched.values()],
      wakes: instanceKeysOf,
    }),
  };
  return { watches, ctx };
}

/**
 * Makes each term's drift baselines (a term starts without any: what an earlier term saw may
 * predate another replica's writes), counted in the registry's metrics: the baselines of the
 * terms running now are summed when scraped.
 */
function driftKeepers(registry: Registry | undefined): (term: AbortSignal) => DriftKeeper {
  const driftDetected = registry
    ? new Counter({
        name: 'planwright_drift_detected_total',
        help: 'Objects found changed outside a plan (planwright.dev/drift), by cluster, kind and mode',
        labelNames: ['cluster', 'kind', 'mode'] as const,
        registers: [registry],
      })
    : undefined;
  const keepers = new Set<DriftKeeper>();
  if (registry) {
    // Read when scraped: what drift costs in memory, per object it keeps (Instances with
    // drift off keep none).
    new Gauge({
      name: 'planwright_drift_baselines',
      help: 'Objects whose applied state is kept for drift checks (Instances with planwright.dev/drift on)',
      registers: [registry],
      collect(): void {
        this.set([...keepers].reduce((n, k) => n + k.size, 0));
      },
    });
  }
  return (term) => {
    const keeper = new DriftKeeper(driftDetected);
    keepers.add(keeper);
    term.addEventListener('abort', () => keepers.delete(keeper), { once: true });
    return keeper;
  };
}
