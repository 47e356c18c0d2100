// Compiled examples of src/runtime (type-checked with the rest; run none of them at import).
// Each function shows one part the way Planwright itself uses it.
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { KubeClient } from '../../src/kube/index.ts';
import {
  CacheRegistry,
  EventRecorder,
  JitteredBackoff,
  LeaderElector,
  Manager,
  NAMESPACE_INDEX,
  RuntimeMetrics,
  Store,
  TerminalError,
  Watcher,
  WorkQueue,
  aborted,
  byNamespace,
  generationChanged,
  objectKey,
  runnable,
  sleep,
  type KubeObject,
  type ManagerOptions,
} from '../../src/runtime/index.ts';

interface ConfigMap extends KubeObject {
  readonly data?: Readonly<Record<string, string>>;
}
interface Deployment extends KubeObject {
  readonly spec?: { readonly replicas?: number; readonly configMapName?: string };
}
const CONFIGMAP = { group: '', version: 'v1', kind: 'ConfigMap' };
const DEPLOYMENT = { group: 'apps', version: 'v1', kind: 'Deployment' };
const REPLICASET = { group: 'apps', version: 'v1', kind: 'ReplicaSet' };

/** A manager with one typed controller and a runnable of its own, run until `signal` aborts. */
export async function manager(options: ManagerOptions, signal: AbortSignal): Promise<number> {
  const manager = new Manager(options);
  manager
    .controller()
    .named('deployments')
    .for<Deployment>(DEPLOYMENT, generationChanged)
    .withIndex('by-config', (d) => (d.spec?.configMapName ? [d.spec.configMapName] : []))
    .owns(REPLICASET)
    // A ConfigMap wakes the Deployments that use it, found by the index on the primary cache.
    .watches<ConfigMap>(CONFIGMAP, (cm, deployments) =>
      deployments.byIndex('by-config', cm.metadata?.name ?? '').map(objectKey),
    )
    .workers(4)
    .complete(async (key, reconcileSignal, deployment) => {
      if (!deployment) return; // gone: nothing to do (owned objects are garbage-collected)
      if (deployment.spec?.replicas === undefined)
        throw new TerminalError(`Deployment ${key}: spec.replicas is missing; set it`);
      await sleep(0, reconcileSignal);
      return { requeueAfter: 30_000 };
    });
  // Every replica: e.g. a server or a pool, stopped when the manager stops.
  manager.add(
    runnable('heartbeat-file', false, async (runSignal) => {
      await aborted(runSignal);
    }),
  );
  manager.probes.addReadyz('configured', () => true);
  return manager.start(signal); // 0, or EXIT_FAILED / EXIT_SHUTDOWN_TIMEOUT
}

/** The shared caches: acquire, read (READ-ONLY objects), subscribe, release. */
export async function caches(
  client: KubeClient,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  const registry = new CacheRegistry({ clients: new Map([['local', client]]), logger, signal });
  const lease = await registry.acquire<ConfigMap>(CONFIGMAP, 'admission');
  await lease.cache.waitForSync(signal);
  lease.cache.get('default/my-config');
  lease.cache.byIndex(NAMESPACE_INDEX, 'default');
  const queue = new WorkQueue({ name: 'configmaps' });
  const unsubscribe = lease.cache.subscribe({ onAdd: (cm) => queue.add(objectKey(cm)) });
  unsubscribe();
  lease.release(); // the cache stays while others use it, and is dropped after a grace period
  await registry.stop();
}

/** A store built off to the side (what a relist swaps in). */
export function store(items: readonly ConfigMap[]): ConfigMap[] {
  return Store.from(items, new Map([[NAMESPACE_INDEX, byNamespace]])).byIndex(
    NAMESPACE_INDEX,
    'default',
  );
}

/** A watcher on its own (the cache uses one per kind). */
export async function watcher(
  client: KubeClient,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  const seen = new Map<string, ConfigMap>();
  const watcher = new Watcher<ConfigMap>({
    client,
    path: '/api/v1/configmaps',
    logger,
    onEvent: (e) => {
      if (e.type === 'relisted') {
        seen.clear();
        for (const cm of e.items) seen.set(objectKey(cm), cm);
      } else if (e.type === 'upsert') seen.set(objectKey(e.object), e.object);
      else seen.delete(objectKey(e.object));
    },
  });
  await watcher.run(signal); // resolves once signal aborts; never rejects
}

/** The work queue's contract: get → work → forget or addRateLimited → done. */
export async function workQueue(work: (key: string) => Promise<void>): Promise<void> {
  const queue = new WorkQueue({ name: 'instances' });
  queue.add('default/zk');
  const key = await queue.get(); // undefined once shut down
  if (key !== undefined) {
    try {
      await work(key);
      queue.forget(key);
    } catch {
      queue.addRateLimited(key);
    } finally {
      queue.done(key);
    }
  }
  await queue.shutDownWithDrain(10_000);
}

/** Retrying with the runtime's one backoff. */
export async function retry(once: () => Promise<void>, signal: AbortSignal): Promise<void> {
  const backoff = new JitteredBackoff(); // 0.8 s → 30 s, jittered, reset after 2 min healthy
  while (!signal.aborted) {
    try {
      await once();
      backoff.reset();
      return;
    } catch {
      await sleep(backoff.next(), signal);
    }
  }
}

/** Leader election by hand (the Manager does this for its leader runnables). */
export async function leaderElection(
  client: KubeClient,
  logger: Logger,
  signal: AbortSignal,
  lead: (term: AbortSignal) => Promise<void>,
): Promise<void> {
  const elector = new LeaderElector({
    client,
    namespace: 'kudo-system',
    name: 'planwright',
    logger,
  });
  while (await elector.acquire(signal)) {
    await lead(AbortSignal.any([signal, elector.lost])); // until the term is lost or we stop
    if (signal.aborted) break; // else: lost, stand for election again
  }
  await elector.release();
}

/** Events and metrics. */
export async function eventsAndMetrics(
  client: KubeClient,
  logger: Logger,
  instance: KubeObject,
): Promise<string> {
  const recorder = new EventRecorder({ client, component: 'planwright', logger });
  recorder.record(instance, 'Normal', 'PlanStarted', 'plan "deploy" started');
  await recorder.flush(); // on shutdown
  const registry = new Registry();
  new RuntimeMetrics(registry);
  return registry.metrics();
}
