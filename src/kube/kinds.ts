/**
 * Which served kind an object written for some apiVersion ends up as: served as written;
 * served in a newer version it converts to (a removed API: see removed-apis/); not served yet
 * although a CustomResourceDefinition declares it (wait); or not served at all (a mistake only
 * the package author can fix). What discovery did not find is remembered for a while (the
 * mapper's unknowns, and the list of CustomResourceDefinitions read on the way), so many objects
 * of made-up kinds cost a bounded number of requests; a kind a CustomResourceDefinition declares
 * is always asked afresh, so one applied by an earlier step is found as soon as it is served.
 *
 * See examples/api/kube.ts.
 */
import type { KubeClient } from './client.ts';
import { ApiError, UnknownKindError } from './errors.ts';
import { gvkKey, type GroupVersionKind, type ResourceMapper, type ResourceMapping } from './gvk.ts';
import { apiVersionOf, parseApiVersion } from './api-version.ts';
import { removedApi, type RemovedApi } from './removed-apis/index.ts';

export type KindResolution =
  | { readonly state: 'served'; readonly mapping: ResourceMapping }
  | {
      readonly state: 'converted';
      /** The mapping of the version the object is converted to. */
      readonly mapping: ResourceMapping;
      readonly removed: RemovedApi;
    }
  /** A CustomResourceDefinition declares the kind but the server does not serve it yet. */
  | { readonly state: 'pending'; readonly crd: string; readonly detail: string }
  /** No CRD declares it; `served` lists the apiVersions that serve the kind (maybe none). */
  | { readonly state: 'unserved'; readonly served: readonly string[] };

interface CrdList {
  items?: Array<{
    metadata?: { name?: string };
    spec?: {
      group?: string;
      names?: { kind?: string };
      versions?: Array<{ name?: string; served?: boolean }>;
    };
    status?: { conditions?: Array<{ type?: string; status?: string; reason?: string }> };
  }>;
}

async function pendingCrd(
  mapper: ResourceMapper,
  client: KubeClient,
  gvk: GroupVersionKind,
  signal?: AbortSignal,
): Promise<{ crd: string; detail: string } | undefined> {
  const { group, version, kind } = gvk;
  // CRD groups must contain a dot; the core group and apps, batch, policy … cannot be CRDs.
  if (!group.includes('.')) return undefined;
  let list: CrdList;
  try {
    list = await mapper.onMiss('customresourcedefinitions', () =>
      client.request<CrdList>({
        path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        signal,
      }),
    );
  } catch (err) {
    if (err instanceof ApiError && (err.statusCode === 403 || err.statusCode === 404)) {
      return undefined;
    }
    throw err;
  }
  for (const crd of list.items ?? []) {
    const spec = crd.spec;
    if (spec?.group !== group || spec.names?.kind !== kind) continue;
    if (!(spec.versions ?? []).some((v) => v.name === version && v.served !== false)) continue;
    const established = crd.status?.conditions?.find((c) => c.type === 'Established');
    return {
      crd: crd.metadata?.name ?? '',
      detail: `Established=${established?.status ?? 'Unknown'}${established?.reason ? ` (${established.reason})` : ''}`,
    };
  }
  return undefined;
}

export async function resolveKind(
  mapper: ResourceMapper,
  client: KubeClient,
  apiVersion: string,
  kind: string,
  signal?: AbortSignal,
): Promise<KindResolution> {
  const gvk = { ...parseApiVersion(apiVersion), kind };
  const answer = `unserved:${gvkKey(gvk)}`;
  try {
    return { state: 'served', mapping: await mapper.resolve(gvk, signal) };
  } catch (err) {
    if (!(err instanceof UnknownKindError)) throw err;
  }
  const removed = removedApi(apiVersionOf(gvk), kind);
  if (removed) {
    try {
      const mapping = await mapper.resolve({ ...parseApiVersion(removed.to), kind }, signal);
      return { state: 'converted', mapping, removed };
    } catch (err) {
      if (!(err instanceof UnknownKindError)) throw err;
    }
  }
  const pending = await pendingCrd(mapper, client, gvk, signal);
  if (pending) {
    // A CRD declares the kind: what discovery remembered as unknown may be stale; ask afresh.
    mapper.forgetUnknown();
    try {
      return { state: 'served', mapping: await mapper.resolve(gvk, signal) };
    } catch (err) {
      if (!(err instanceof UnknownKindError)) throw err;
    }
    return { state: 'pending', ...pending };
  }
  const served = await mapper.onMiss(answer, () => mapper.servedVersions(gvk.group, kind, signal));
  return { state: 'unserved', served };
}
