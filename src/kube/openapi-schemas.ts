/**
 * A cluster's OpenAPI v3 schemas, fetched per group/version and kept, to drop the fields of
 * an object the cluster does not know before it is applied (unknown-fields.ts says which).
 *
 * `/openapi/v3` is an index: one URL per group/version carrying a hash of its document, which
 * changes when the document does — a CustomResourceDefinition added or changed, the server
 * upgraded. A document is fetched once per hash and kept; the index is read again
 *  - when a group/version is missing from it (a CRD newer than the index),
 *  - before fields would be dropped, unless it was read in the last second: a field is never
 *    dropped on the word of a document its CRD has replaced since,
 *  - when it is older than ten minutes (a server upgraded under us).
 * Nothing here is per object or per Instance: a cluster costs a few requests until its CRDs
 * change. When the schema cannot be had (no such document, a refusal, a timeout, an answer
 * over the size limit), objects are applied as they are, as before this existed; failures are
 * not asked again for a minute.
 *
 * `/openapi/v3` is readable by every authenticated user (the `system:discovery` role), like
 * API discovery: no RBAC rule is needed.
 */
import type { KubeClient } from './client.ts';
import { parseApiVersion } from './api-version.ts';
import { pruneUnknownFields, reduceDocument, type GroupVersionSchemas } from './unknown-fields.ts';

/** The index is small: a URL per group/version (10 kB, 47 entries on Kubernetes 1.34). */
const MAX_INDEX_BYTES = 1024 * 1024;
/** The core group's document, the largest built-in one, is 1.5 MB on Kubernetes 1.34. */
const MAX_DOCUMENT_BYTES = 32 * 1024 * 1024;
const REVALIDATE_MS = 1_000;
const MAX_INDEX_AGE_MS = 10 * 60_000;
const RETRY_FAILED_MS = 60_000;

export interface OpenApiSchemasOptions {
  readonly client: KubeClient;
  /** Per-request timeout. Default 30 s. */
  readonly timeoutMs?: number;
  /** Milliseconds clock (tests). Default Date.now. */
  readonly now?: () => number;
}

export interface UnknownFields<T> {
  /** The object without the fields the cluster does not know (itself when there are none). */
  readonly object: T;
  /** Their paths (`spec.template.metadata.initializers`). */
  readonly dropped: readonly string[];
  /** `apps/v1 Deployment`: whose schema said so. */
  readonly schema: string;
}

interface Index {
  /** `apis/apps/v1` → `/openapi/v3/apis/apps/v1?hash=…`. */
  readonly urls: ReadonlyMap<string, string>;
}

interface Document {
  readonly url: string;
  readonly schemas: Promise<GroupVersionSchemas>;
}

type ObjectWithType = { readonly apiVersion?: string; readonly kind?: string };

export class OpenApiSchemas {
  private index: Promise<Index> | undefined;
  private indexAt = Number.NEGATIVE_INFINITY;
  private failedAt = Number.NEGATIVE_INFINITY;
  /** By group/version path; a new hash replaces the document. */
  private readonly documents = new Map<string, Document>();

  constructor(private readonly options: OpenApiSchemasOptions) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /**
   * `object` without the fields its group/version's schema does not know; undefined when the
   * schema is not to be had (apply the object as it is).
   */
  async withoutUnknownFields<T extends ObjectWithType>(
    object: T,
    signal?: AbortSignal,
  ): Promise<UnknownFields<T> | undefined> {
    const { apiVersion, kind } = object;
    if (!apiVersion || !kind) return undefined;
    const { group, version } = parseApiVersion(apiVersion);
    const path = group === '' ? `api/${version}` : `apis/${group}/${version}`;
    const schema = `${apiVersion} ${kind}`;
    const asked = this.now();
    try {
      let schemas = await abortable(this.schemasOf(path, group, version, false), signal);
      let result = schemas && pruneUnknownFields(object, kind, schemas);
      if (result && result.dropped.length > 0 && this.indexAt < asked - REVALIDATE_MS) {
        schemas = await abortable(this.schemasOf(path, group, version, true), signal);
        result = schemas && pruneUnknownFields(object, kind, schemas);
      }
      return result ? { ...result, schema } : undefined;
    } catch (err) {
      if (signal?.aborted) throw err;
      this.failedAt = this.now();
      return undefined;
    }
  }

  /**
   * The schemas of a group/version. Fetches are shared by every caller and run to their end
   * (bounded by the request timeout) whoever stops waiting: one caller's abort must not fail
   * the others' answer.
   */
  private async schemasOf(
    path: string,
    group: string,
    version: string,
    revalidate: boolean,
  ): Promise<GroupVersionSchemas | undefined> {
    let url = (await this.currentIndex(revalidate))?.urls.get(path);
    // A group/version newer than the index (a CRD just established): read it again, once.
    if (url === undefined && !revalidate) {
      url = (await this.currentIndex(true))?.urls.get(path);
    }
    if (url === undefined) return undefined;
    let doc = this.documents.get(path);
    if (doc?.url !== url) {
      const schemas = this.fetch(url, MAX_DOCUMENT_BYTES).then((body) =>
        reduceDocument(body, group, version),
      );
      doc = { url, schemas };
      this.documents.set(path, doc);
      schemas.catch(() => {
        if (this.documents.get(path) === doc) this.documents.delete(path);
      });
    }
    return doc.schemas;
  }

  /** The index, read again when asked to (unless just read), when old, or never read. */
  private currentIndex(fresh: boolean): Promise<Index | undefined> {
    const now = this.now();
    if (now - this.failedAt < RETRY_FAILED_MS) return Promise.resolve(undefined);
    const age = now - this.indexAt;
    if (this.index && age <= MAX_INDEX_AGE_MS && (!fresh || age <= REVALIDATE_MS)) {
      return this.index;
    }
    const reading = this.fetch('/openapi/v3', MAX_INDEX_BYTES).then((body) => ({
      urls: indexUrls(body),
    }));
    this.index = reading;
    this.indexAt = now;
    reading.catch(() => {
      if (this.index === reading) {
        this.index = undefined;
        this.indexAt = Number.NEGATIVE_INFINITY;
      }
    });
    return reading;
  }

  private fetch(url: string, maxBytes: number): Promise<unknown> {
    return this.options.client.request<unknown>({
      path: url,
      maxBytes,
      timeoutMs: this.options.timeoutMs ?? 30_000,
    });
  }
}

/** The index's `paths`: group/version → server-relative URL of its document. */
function indexUrls(body: unknown): Map<string, string> {
  const out = new Map<string, string>();
  const paths =
    typeof body === 'object' && body !== null ? (body as { paths?: unknown }).paths : undefined;
  if (typeof paths !== 'object' || paths === null) return out;
  for (const [key, value] of Object.entries(paths as Record<string, unknown>)) {
    const url =
      typeof value === 'object' && value !== null
        ? (value as { serverRelativeURL?: unknown }).serverRelativeURL
        : undefined;
    if (typeof url === 'string' && url.startsWith('/openapi/v3/')) out.set(key, url);
  }
  return out;
}

/** `promise`, or an AbortError as soon as `signal` aborts (the promise itself runs on). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void =>
      reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
