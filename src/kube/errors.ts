/** Typed errors of the API layer, each carrying what a person (or a retry loop) needs. */

/** The shape of a `meta/v1 Status` returned by the apiserver on failure. */
export interface StatusBody {
  readonly kind?: string;
  readonly status?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly code?: number;
  readonly details?: { readonly retryAfterSeconds?: number; readonly [key: string]: unknown };
}

/**
 * A non-2xx answer from the apiserver (or a watch ERROR event).
 *
 * See examples/api/kube.ts.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly statusCode: number,
    readonly reason: string,
    message: string,
    readonly verb: string,
    readonly path: string,
    /** From the Retry-After header or `details.retryAfterSeconds`. */
    readonly retryAfterSeconds?: number,
    readonly status?: StatusBody,
  ) {
    super(`${verb} ${path}: ${statusCode} ${reason}: ${message}`);
  }

  /** 410 Gone / Expired: the resourceVersion is too old; the caller must relist. */
  get isGone(): boolean {
    return this.statusCode === 410 || this.reason === 'Expired' || this.reason === 'Gone';
  }
}

/** The kubeconfig / in-cluster configuration is missing or invalid. */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
  constructor(
    message: string,
    /** Where the configuration was looked for (file path, "in-cluster"). */
    readonly source: string,
  ) {
    super(`${message} (configuration source: ${source})`);
  }
}

/** A watch stream delivered nothing (not even a bookmark) for too long: the connection is dead. */
export class WatchInactivityError extends Error {
  override readonly name = 'WatchInactivityError';
  constructor(
    readonly path: string,
    readonly inactivityMs: number,
  ) {
    super(`watch ${path}: no data for ${inactivityMs} ms, reconnecting`);
  }
}

/** The server does not serve the requested group/version/kind. */
export class UnknownKindError extends Error {
  override readonly name = 'UnknownKindError';
  constructor(
    readonly gvk: string,
    detail: string,
  ) {
    super(`the server does not serve ${gvk}: ${detail}`);
  }
}

/** Parses a Retry-After header value (delay-seconds or an HTTP date) into seconds. */
export function parseRetryAfter(
  value: string | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === undefined || value === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, (date - now) / 1000);
}

/**
 * An answer larger than the client accepts (a body, a watch line): the connection is closed at
 * the limit and nothing of it is kept. Only clients of servers a tenant names (target clusters)
 * set limits.
 */
export class ResponseTooLargeError extends Error {
  override readonly name = 'ResponseTooLargeError';
  constructor(
    readonly verb: string,
    readonly path: string,
    /** `answer` or `watch line`. */
    readonly what: string,
    readonly limitBytes: number,
  ) {
    super(
      `${verb} ${path}: the ${what} exceeds ${limitBytes} bytes, the most Planwright reads from this server; the connection was closed`,
    );
  }
}
