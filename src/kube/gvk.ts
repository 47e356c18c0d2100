/**
 * Group/version/kind ↔ REST resource mapping, learned from API discovery and remembered per
 * client. Built-in core kinds and custom resources are handled the same way.
 *
 * See examples/api/kube.ts.
 */
import type { KubeClient } from './client.ts';
import { ApiError, UnknownKindError } from './errors.ts';
import { OpenApiSchemas } from './openapi-schemas.ts';

export interface GroupVersionKind {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface ResourceMapping extends GroupVersionKind {
  readonly plural: string;
  readonly namespaced: boolean;
}

/** `apps/v1/Deployment`, `v1/ConfigMap`: stable, readable key for maps and logs. */
export function gvkKey(gvk: GroupVersionKind): string {
  return gvk.group === ''
    ? `${gvk.version}/${gvk.kind}`
    : `${gvk.group}/${gvk.version}/${gvk.kind}`;
}

/** `apps/v1` or `v1`. */
export function apiVersionOf(gvk: Pick<GroupVersionKind, 'group' | 'version'>): string {
  return gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
}

/** Splits an apiVersion (`apps/v1`, `v1`) into group and version. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

function groupVersionPath(gvk: Pick<GroupVersionKind, 'group' | 'version'>): string {
  return gvk.group === '' ? `/api/${gvk.version}` : `/apis/${gvk.group}/${gvk.version}`;
}

/** Path of a collection; all namespaces when `namespace` is undefined. */
export function collectionPath(mapping: ResourceMapping, namespace?: string): string {
  const base = groupVersionPath(mapping);
  return mapping.namespaced && namespace !== undefined
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/${mapping.plural}`
    : `${base}/${mapping.plural}`;
}

/** Path of one object. */
export function objectPath(mapping: ResourceMapping, name: string, namespace?: string): string {
  return `${collectionPath(mapping, namespace)}/${encodeURIComponent(name)}`;
}

interface APIResourceList {
  resources: { name: string; kind: string; namespaced: boolean }[];
}

export class ResourceMapper {
  private readonly known = new Map<string, Promise<ResourceMapping>>();
  /** The cluster's OpenAPI schemas, kept beside its discovery (one per cluster, like it). */
  readonly schemas: OpenApiSchemas;

  /** `client` also reads CustomResourceDefinitions for resolveKind (the engine's own reads). */
  constructor(readonly client: KubeClient) {
    this.schemas = new OpenApiSchemas({ client });
  }

  /** The mapping for a kind, from discovery of its group/version (cached; failures are not). */
  resolve(gvk: GroupVersionKind, signal?: AbortSignal): Promise<ResourceMapping> {
    const key = gvkKey(gvk);
    let found = this.known.get(key);
    if (!found) {
      found = this.discover(gvk, signal);
      this.known.set(key, found);
      found.catch(() => this.known.delete(key));
    }
    return found;
  }

  /**
   * The apiVersions of `group` that serve `kind`, asked afresh (failures are never cached, so
   * this is the discovery refresh after a miss).
   */
  async servedVersions(group: string, kind: string, signal?: AbortSignal): Promise<string[]> {
    let versions: string[];
    try {
      if (group === '') {
        const core = await this.client.request<{ versions?: string[] }>({ path: '/api', signal });
        versions = core.versions ?? [];
      } else {
        const info = await this.client.request<{ versions?: Array<{ version: string }> }>({
          path: `/apis/${group}`,
          signal,
        });
        versions = (info.versions ?? []).map((v) => v.version);
      }
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) return [];
      throw err;
    }
    const out: string[] = [];
    for (const version of versions) {
      try {
        await this.resolve({ group, version, kind }, signal);
        out.push(apiVersionOf({ group, version }));
      } catch (err) {
        if (!(err instanceof UnknownKindError)) throw err;
      }
    }
    return out;
  }

  /** Forget what was learned (e.g. after a CRD changed). */
  invalidate(): void {
    this.known.clear();
  }

  private async discover(gvk: GroupVersionKind, signal?: AbortSignal): Promise<ResourceMapping> {
    let list: APIResourceList;
    try {
      list = await this.client.request<APIResourceList>({ path: groupVersionPath(gvk), signal });
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) {
        throw new UnknownKindError(gvkKey(gvk), `group/version ${apiVersionOf(gvk)} is not served`);
      }
      throw err;
    }
    // Subresources (`pods/status`) share the kind; the top-level resource has no slash.
    const resource = list.resources.find((r) => r.kind === gvk.kind && !r.name.includes('/'));
    if (!resource) {
      throw new UnknownKindError(
        gvkKey(gvk),
        `no resource of kind ${gvk.kind} in ${apiVersionOf(gvk)}`,
      );
    }
    return { ...gvk, plural: resource.name, namespaced: resource.namespaced };
  }
}
