/**
 * Group/version/kind ↔ REST resource mapping, learned from API discovery and remembered per
 * client. Built-in core kinds and custom resources are handled the same way.
 *
 * See examples/api/kube.ts.
 */
import type { KubeClient } from './client.ts';
import { apiVersionOf } from './api-version.ts';
import { ApiError, UnknownKindError } from './errors.ts';
import { ExpiringCache } from './expiring-cache.ts';
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

export interface ResourceMapperOptions {
  /**
   * How long what discovery did not find (a kind, a group/version, a group) is remembered as
   * unknown, so objects of made-up kinds cost a bounded number of discovery requests. Default
   * 10 s. A CustomResourceDefinition applied through this mapper's clients, or one found
   * declaring a kind (resolveKind), ends it at once.
   */
  readonly unknownTtlMs?: number;
  /** How many unknowns are remembered at most (oldest forgotten first). Default 1,024. */
  readonly maxUnknown?: number;
  readonly now?: () => number;
}

export class ResourceMapper {
  private readonly known = new Map<string, Promise<ResourceMapping>>();
  /** Answers read on the way to "unknown" (keys `gv:`, `list:`, `answer:`), for a while. */
  private readonly misses: ExpiringCache<unknown>;
  /** The cluster's OpenAPI schemas, kept beside its discovery (one per cluster, like it). */
  readonly schemas: OpenApiSchemas;

  /** `client` also reads CustomResourceDefinitions for resolveKind (the engine's own reads). */
  constructor(
    readonly client: KubeClient,
    options: ResourceMapperOptions = {},
  ) {
    this.misses = new ExpiringCache(
      options.unknownTtlMs ?? 10_000,
      options.maxUnknown ?? 1_024,
      options.now,
    );
    this.schemas = new OpenApiSchemas({ client });
  }

  /**
   * The mapping for a kind, from discovery of its group/version (cached; a kind or
   * group/version found unknown is remembered as unknown for a while, see the options).
   */
  resolve(gvk: GroupVersionKind, signal?: AbortSignal): Promise<ResourceMapping> {
    const key = gvkKey(gvk);
    let found = this.known.get(key);
    if (found) return found;
    const missing = this.misses.get(`gv:${apiVersionOf(gvk)}`);
    if (typeof missing === 'string') return Promise.reject(new UnknownKindError(key, missing));
    // The group/version's resources as read when another kind was missing from them.
    const listed = this.misses.get(`list:${apiVersionOf(gvk)}`) as APIResourceList | undefined;
    found = listed ? this.fromList(gvk, listed) : this.discover(gvk, signal);
    this.known.set(key, found);
    found.catch(() => this.known.delete(key));
    return found;
  }

  /**
   * What `read` answers, remembered as long as an unknown kind (for reads on the way to
   * "unknown": the group's versions, the CustomResourceDefinitions). Failures are not kept.
   */
  async onMiss<T>(key: string, read: () => Promise<T>): Promise<T> {
    const cached = this.misses.get(`answer:${key}`);
    if (cached !== undefined) return cached as T;
    const value = await read();
    this.misses.set(`answer:${key}`, value);
    return value;
  }

  /** Forgets what was remembered as unknown (a CustomResourceDefinition declares a kind now). */
  forgetUnknown(): void {
    this.misses.clear();
  }

  /**
   * The apiVersions of `group` that serve `kind` (a kind or group found unknown is remembered,
   * see the options; so is the group's list of versions).
   */
  async servedVersions(group: string, kind: string, signal?: AbortSignal): Promise<string[]> {
    const versions = await this.onMiss(`group:${group}`, () => this.groupVersions(group, signal));
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

  private async groupVersions(group: string, signal?: AbortSignal): Promise<string[]> {
    try {
      if (group === '') {
        const core = await this.client.request<{ versions?: string[] }>({ path: '/api', signal });
        return core.versions ?? [];
      }
      const info = await this.client.request<{ versions?: Array<{ version: string }> }>({
        path: `/apis/${group}`,
        signal,
      });
      return (info.versions ?? []).map((v) => v.version);
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) return [];
      throw err;
    }
  }

  /** Forget what was learned (e.g. after a CRD changed). */
  invalidate(): void {
    this.known.clear();
    this.misses.clear();
  }

  private async discover(gvk: GroupVersionKind, signal?: AbortSignal): Promise<ResourceMapping> {
    let list: APIResourceList;
    try {
      list = await this.client.request<APIResourceList>({ path: groupVersionPath(gvk), signal });
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) {
        const detail = `group/version ${apiVersionOf(gvk)} is not served`;
        this.misses.set(`gv:${apiVersionOf(gvk)}`, detail);
        throw new UnknownKindError(gvkKey(gvk), detail);
      }
      throw err;
    }
    return this.fromList(gvk, list);
  }

  /** The kind's mapping from its group/version's resources; a miss remembers the list. */
  private async fromList(gvk: GroupVersionKind, list: APIResourceList): Promise<ResourceMapping> {
    // Subresources (`pods/status`) share the kind; the top-level resource has no slash.
    const resource = list.resources.find((r) => r.kind === gvk.kind && !r.name.includes('/'));
    if (!resource) {
      this.misses.set(`list:${apiVersionOf(gvk)}`, list);
      throw new UnknownKindError(
        gvkKey(gvk),
        `no resource of kind ${gvk.kind} in ${apiVersionOf(gvk)}`,
      );
    }
    return Promise.resolve({ ...gvk, plural: resource.name, namespaced: resource.namespaced });
  }
}
