// Compiled examples of src/kube: configuration, the raw client, mapping, server-side apply,
// removed API versions, target clusters (type-checked with the rest; nothing runs at import).
import type { Logger } from 'pino';
import { ServerSideApply, isUnchanged, type ApplyObject } from '../../src/kube/apply.ts';
import {
  ApiError,
  ClusterGate,
  ClusterUnavailableError,
  GatedKubeClient,
  KubeClient,
  ResourceMapper,
  collectionPath,
  loadKubeConfig,
  parseTargetKubeconfig,
} from '../../src/kube/index.ts';
import { resolveKind } from '../../src/kube/kinds.ts';
import { removedApi } from '../../src/kube/removed-apis/index.ts';

export async function client(
  kubeconfig: string | undefined,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  const { kubeConfig, source } = loadKubeConfig({ kubeconfig });
  logger.info({ source }, 'API configuration loaded');
  const client = new KubeClient(kubeConfig, 'local');
  try {
    const list = await client.request<{ metadata: { resourceVersion: string }; items: unknown[] }>({
      path: '/api/v1/configmaps',
      query: { limit: 500 },
    });
    await client.watch({
      path: '/api/v1/configmaps',
      query: { resourceVersion: list.metadata.resourceVersion },
      inactivityMs: 180_000,
      signal,
      onEvent: (event) => logger.debug({ event }, 'watch event'),
    });
  } finally {
    client.close();
  }
}

export async function getOrUndefined(client: KubeClient, path: string): Promise<unknown> {
  try {
    return await client.request({ path });
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 404) return undefined;
    throw err;
  }
}

export async function mapping(client: KubeClient): Promise<string> {
  const mapper = new ResourceMapper(client);
  const cm = await mapper.resolve({ group: '', version: 'v1', kind: 'ConfigMap' });
  return `${cm.plural} at ${collectionPath(cm, 'default')}`; // configmaps at /api/v1/namespaces/default/configmaps
}

export async function apply(
  client: KubeClient,
  desired: ApplyObject,
  signal: AbortSignal,
): Promise<void> {
  const mapper = new ResourceMapper(client);
  const r = await resolveKind(mapper, client, desired.apiVersion ?? '', desired.kind ?? '', signal);
  const obj = r.state === 'converted' ? r.removed.convert(desired) : desired;
  const ssa = new ServerSideApply({ client, mapper, fieldManager: 'planwright' });
  const live = await ssa.get(obj, signal);
  if (!live || !isUnchanged(obj, live)) await ssa.apply(obj, { signal });
  const outcome = await ssa.remove(obj, signal); // 'gone' or 'deleting'
  void outcome;
}

export function convertRemoved(pdb: ApplyObject): ApplyObject | undefined {
  const removed = removedApi('policy/v1beta1', 'PodDisruptionBudget');
  return removed?.convert(pdb); // a policy/v1 PodDisruptionBudget
}

/**
 * A client for a target cluster whose kubeconfig a Secret holds, behind a gate that fails fast
 * (ClusterUnavailableError) while the cluster is unreachable, with backoff.
 */
export async function targetCluster(secretText: string): Promise<void> {
  const kubeConfig = parseTargetKubeconfig(secretText, {
    source: 'Secret ns/target key value',
  });
  const gate = new ClusterGate(
    'secret:ns/target/value',
    kubeConfig.getCurrentCluster()?.server ?? '',
  );
  const client = new GatedKubeClient(kubeConfig, gate, { timeoutMs: 10_000 });
  try {
    await client.request({ path: '/version' });
  } catch (err) {
    if (!(err instanceof ClusterUnavailableError)) throw err;
    // Shut until err.retryAt: callers requeue instead of waiting on a dead cluster.
  }
}
