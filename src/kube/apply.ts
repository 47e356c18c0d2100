/**
 * Server-side apply and friends as separate operations: `get`, `apply` (optionally dry-run,
 * handing field ownership over when it must), `isUnchanged` (does the live object already hold
 * what we would send?), and `remove`. Sets of objects, the create-vs-apply choice and change
 * sets are resource-manager.ts's. Objects are plain JSON; the REST mapping comes from the
 * {@link ResourceMapper}. Status and managedFields are never sent.
 *
 * See examples/api/kube.ts.
 */
import type { KubeClient } from './client.ts';
import { ApiError } from './errors.ts';
import { parseApiVersion } from './api-version.ts';
import { objectPath, type ResourceMapper, type ResourceMapping } from './gvk.ts';
import { fieldsOf, ownEntry, ownershipUpgrade, type FieldsV1 } from './ownership.ts';

/** A Kubernetes object as JSON. */
export interface ApplyObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface ServerSideApplyOptions {
  readonly client: KubeClient;
  readonly mapper: ResourceMapper;
  readonly fieldManager: string;
  /** Per-request timeout. Default 30 s. */
  readonly timeoutMs?: number;
}

/** An object that cannot be addressed (no apiVersion, kind or name). */
export class ObjectIdentityError extends Error {
  override readonly name = 'ObjectIdentityError';
  constructor(detail: string) {
    super(`object cannot be applied: ${detail}`);
  }
}

export function describeObject(obj: ApplyObject): string {
  const ns = obj.metadata?.namespace;
  return `${obj.kind ?? '?'} ${ns ? `${ns}/` : ''}${obj.metadata?.name ?? '?'}`;
}

export class ServerSideApply {
  constructor(private readonly options: ServerSideApplyOptions) {}

  get mapper(): ResourceMapper {
    return this.options.mapper;
  }

  get client(): KubeClient {
    return this.options.client;
  }

  get fieldManager(): string {
    return this.options.fieldManager;
  }

  /** The per-request timeout of every request it makes. */
  get timeoutMs(): number {
    return this.options.timeoutMs ?? 30_000;
  }

  /** The REST mapping of an object's kind (discovery, cached by the mapper). */
  mapping(obj: ApplyObject, signal?: AbortSignal): Promise<ResourceMapping> {
    if (!obj.apiVersion || !obj.kind) {
      throw new ObjectIdentityError(`apiVersion and kind are required (${describeObject(obj)})`);
    }
    return this.options.mapper.resolve(
      { ...parseApiVersion(obj.apiVersion), kind: obj.kind },
      signal,
    );
  }

  private async path(obj: ApplyObject, signal?: AbortSignal): Promise<string> {
    const name = obj.metadata?.name;
    if (!name) throw new ObjectIdentityError(`metadata.name is required (${describeObject(obj)})`);
    const mapping = await this.mapping(obj, signal);
    return objectPath(mapping, name, mapping.namespaced ? obj.metadata?.namespace : undefined);
  }

  /** The live object, or undefined when it does not exist. */
  async get(obj: ApplyObject, signal?: AbortSignal): Promise<ApplyObject | undefined> {
    const path = await this.path(obj, signal);
    try {
      return await this.options.client.request<ApplyObject>({
        path,
        signal,
        timeoutMs: this.timeoutMs,
      });
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) return undefined;
      throw err;
    }
  }

  /**
   * Server-side apply with force; returns the object as stored (or as it would be, dry-run).
   * An object made by a create (resource-manager.ts) is owned by the manager's Update entry, and a field
   * only that entry owns survives an apply that no longer sets it. So its fields are handed to
   * the manager's Apply entry (a merge patch of managedFields, guarded by the resourceVersion)
   * before an apply that drops one — `live`, the object as last read with its managedFields,
   * tells — or, without `live`, after the apply and before applying again. An apply refused as
   * invalid (a field left behind can make the object so, e.g. a second controller owner
   * reference) hands them over and tries once more. A dry run answers as the server does.
   */
  async apply(
    obj: ApplyObject,
    options: { dryRun?: boolean; signal?: AbortSignal; live?: ApplyObject } = {},
  ): Promise<ApplyObject> {
    const path = await this.path(obj, options.signal);
    if (options.dryRun) return this.sendApply(path, obj, options);
    try {
      return await this.applyWithHandOver(path, obj, options);
    } finally {
      // A CRD makes kinds discovery may remember as unknown, or lists it read before: forget.
      if (obj.kind === 'CustomResourceDefinition') this.options.mapper.forgetUnknown();
    }
  }

  private async applyWithHandOver(
    path: string,
    obj: ApplyObject,
    options: { signal?: AbortSignal; live?: ApplyObject },
  ): Promise<ApplyObject> {
    const { live, signal } = options;
    if (live) await this.handOver(path, live, fieldsOf(stripForApply(obj)), signal);
    let stored: ApplyObject;
    try {
      stored = await this.sendApply(path, obj, options);
    } catch (err) {
      if (!(err instanceof ApiError) || err.statusCode !== 422) throw err;
      const current = await this.get(obj, signal);
      if (!current || !(await this.handOver(path, current, undefined, signal))) throw err;
      stored = await this.sendApply(path, obj, options);
    }
    if (live) return stored;
    const applied = ownEntry(stored, this.options.fieldManager, 'Apply')?.fieldsV1 ?? {};
    return (await this.handOver(path, stored, applied, signal))
      ? this.sendApply(path, obj, options)
      : stored;
  }

  /**
   * Hands the manager's Update-entry fields of `obj` to its Apply entry when they own a field
   * `covering` does not (always when `covering` is undefined). Resolves whether it did.
   */
  private async handOver(
    path: string,
    obj: ApplyObject,
    covering: FieldsV1 | undefined,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    const managedFields = ownershipUpgrade(
      obj.metadata?.['managedFields'],
      this.options.fieldManager,
      covering,
    );
    if (!managedFields) return false;
    await this.options.client.request<ApplyObject>({
      method: 'PATCH',
      path,
      contentType: 'application/merge-patch+json',
      body: { metadata: { managedFields, resourceVersion: obj.metadata?.['resourceVersion'] } },
      signal,
      timeoutMs: this.timeoutMs,
    });
    return true;
  }

  private sendApply(
    path: string,
    obj: ApplyObject,
    options: { dryRun?: boolean; signal?: AbortSignal },
  ): Promise<ApplyObject> {
    return this.options.client.request<ApplyObject>({
      method: 'PATCH',
      path,
      query: {
        fieldManager: this.options.fieldManager,
        force: true,
        dryRun: options.dryRun ? 'All' : undefined,
      },
      contentType: 'application/apply-patch+yaml',
      body: stripForApply(obj),
      signal: options.signal,
      timeoutMs: this.timeoutMs,
    });
  }

  /**
   * Deletes with background propagation. Resolves `gone` when the object no longer exists,
   * `deleting` when it still has finalizers to run.
   */
  async remove(obj: ApplyObject, signal?: AbortSignal): Promise<'gone' | 'deleting'> {
    const path = await this.path(obj, signal);
    let answer: ApplyObject | undefined;
    try {
      answer = await this.options.client.request<ApplyObject>({
        method: 'DELETE',
        path,
        query: { propagationPolicy: 'Background' },
        signal,
        timeoutMs: this.timeoutMs,
      });
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) return 'gone';
      throw err;
    }
    // The apiserver answers a Status when the object was removed at once, the object itself
    // (with deletionTimestamp) when finalizers still hold it.
    return answer?.kind === 'Status' || !answer?.metadata?.['deletionTimestamp']
      ? 'gone'
      : 'deleting';
  }
}

/**
 * Whether a create of `obj` stores exactly what a server-side apply of it would, errors
 * included: a ConfigMap, or a Secret without `stringData` (flat string maps: no list an apply
 * merges by key, where it refuses duplicates a create accepts), with no null anywhere (an apply
 * refuses a null a create prunes), no finalizers and at most one owner reference.
 */
export function createsAsApplied(obj: ApplyObject): boolean {
  if (obj.apiVersion !== 'v1') return false;
  if (obj.kind !== 'ConfigMap' && (obj.kind !== 'Secret' || obj['stringData'] !== undefined))
    return false;
  const meta = obj.metadata ?? {};
  if (meta['finalizers'] !== undefined) return false;
  const owners = meta['ownerReferences'];
  if (owners !== undefined && (!Array.isArray(owners) || owners.length > 1)) return false;
  return !hasNull(obj);
}

function hasNull(value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.some(hasNull);
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const k in record) if (Object.hasOwn(record, k) && hasNull(record[k])) return true;
  }
  return false;
}

/** The apply body: no status, managedFields, resourceVersion, uid or creationTimestamp. */
export function stripForApply(obj: ApplyObject): ApplyObject {
  const rest: ApplyObject = { ...obj };
  delete rest['status'];
  const meta = { ...(rest.metadata ?? {}) };
  delete meta['managedFields'];
  delete meta['resourceVersion'];
  delete meta['uid'];
  delete meta['creationTimestamp'];
  delete meta['generation'];
  return { ...rest, metadata: meta };
}

/**
 * Normalizes a rendered object the way the apiserver would store it, for comparison:
 * Secret `stringData` → `data` (base64), `protocol: TCP` defaulted on container and service
 * ports, status and creationTimestamp dropped.
 */
export function normalizeForCompare(obj: ApplyObject): ApplyObject {
  const out = structuredClone(stripForApply(obj));
  if (out.kind === 'Secret' && out['stringData'] && typeof out['stringData'] === 'object') {
    const data = { ...((out['data'] as Record<string, string> | undefined) ?? {}) };
    for (const [k, v] of Object.entries(out['stringData'] as Record<string, unknown>)) {
      data[k] = Buffer.from(String(v)).toString('base64');
    }
    out['data'] = data;
    delete out['stringData'];
  }
  defaultProtocols(out);
  return out;
}

function defaultProtocols(value: unknown, key?: string): void {
  if (Array.isArray(value)) {
    for (const item of value) {
      if (
        key === 'ports' &&
        item !== null &&
        typeof item === 'object' &&
        !('protocol' in item) &&
        ('containerPort' in item || 'port' in item)
      ) {
        (item as Record<string, unknown>)['protocol'] = 'TCP';
      }
      defaultProtocols(item);
    }
  } else if (value !== null && typeof value === 'object') {
    // for-in over own JSON members: no [key, value] array per member (this walks every
    // object the engine applies, several times per Instance).
    const record = value as Record<string, unknown>;
    for (const k in record) if (Object.hasOwn(record, k)) defaultProtocols(record[k], k);
  }
}

/**
 * True when every field of `desired` (normalized) is present with the same value in `live`
 * (numbers and their string forms are not equal: a change of type is a change). Lists must
 * have the same length and match item by item. Extra fields in `live` (defaults, other
 * managers) do not count.
 */
export function isUnchanged(desired: ApplyObject, live: ApplyObject): boolean {
  const want = normalizeForCompare(desired);
  return contains(want, live);
}

function contains(want: unknown, have: unknown): boolean {
  if (want === null || want === undefined) return have === null || have === undefined;
  if (Array.isArray(want)) {
    return (
      Array.isArray(have) &&
      want.length === have.length &&
      want.every((item, i) => contains(item, have[i]))
    );
  }
  if (typeof want === 'object') {
    if (have === null || typeof have !== 'object' || Array.isArray(have)) return false;
    const h = have as Record<string, unknown>;
    const w = want as Record<string, unknown>;
    for (const k in w) if (Object.hasOwn(w, k) && !contains(w[k], h[k])) return false;
    return true;
  }
  return want === have;
}
