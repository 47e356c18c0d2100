/**
 * Which served kind an object written for some apiVersion ends up as: served as written;
 * served in a newer version it converts to (a removed API: see removed-apis/); not served yet
 * although a CustomResourceDefinition declares it (wait); or not served at all (a mistake only
 * the package author can fix). Discovery is asked afresh on every miss: a kind that a CRD
 * applied by an earlier step provides is found as soon as the server serves it.
 *
 * See examples/api/kube.ts.
 */
import type { KubeClient } from './client.ts';
import { ApiError, UnknownKindError } from './errors.ts';
import { apiVersionOf, parseApiVersion, type ResourceMapper, type ResourceMapping } from './gvk.ts';
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
  client: KubeClient,
  group: string,
  version: string,
  kind: string,
  signal?: AbortSignal,
): Promise<{ crd: string; detail: string } | undefined> {
  // CRD groups must contain a dot; the core group and apps, batch, policy … cannot be CRDs.
  if (!group.includes('.')) return undefined;
  let list: CrdList;
  try {
    list = await client.request<CrdList>({
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      signal,
    });
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
  const gv = parseApiVersion(apiVersion);
  try {
    return { state: 'served', mapping: await mapper.resolve({ ...gv, kind }, signal) };
  } catch (err) {
    if (!(err instanceof UnknownKindError)) throw err;
  }
  const removed = removedApi(apiVersionOf(gv), kind);
  if (removed) {
    try {
      const mapping = await mapper.resolve({ ...parseApiVersion(removed.to), kind }, signal);
      return { state: 'converted', mapping, removed };
    } catch (err) {
      if (!(err instanceof UnknownKindError)) throw err;
    }
  }
  const pending = await pendingCrd(client, gv.group, gv.version, kind, signal);
  if (pending) return { state: 'pending', ...pending };
  return { state: 'unserved', served: await mapper.servedVersions(gv.group, kind, signal) };
}
