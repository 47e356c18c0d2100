/**
 * A small HTTP client for the Kubernetes API built on the auth and TLS settings of a
 * client-node `KubeConfig`. It exists because the runtime needs what the generated clients
 * hide: raw status codes, Retry-After, streaming watches with an inactivity timeout, and one
 * keep-alive connection pool per cluster that is closed on shutdown (no open handles).
 *
 * See examples/api/kube.ts.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { createSecureContext } from 'node:tls';
import { urlToHttpOptions } from 'node:url';
import type { KubeConfig } from './kubeconfig.ts';
import {
  ApiError,
  KubeConfigError,
  ResponseTooLargeError,
  WatchInactivityError,
  parseRetryAfter,
  type StatusBody,
} from './errors.ts';

export type QueryValue = string | number | boolean | undefined;

export interface RequestOptions {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute API path, e.g. `/api/v1/namespaces/x/configmaps`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  /** Serialised as JSON unless already a string. */
  readonly body?: unknown;
  /** Default `application/json`; use e.g. `application/merge-patch+json` for PATCH. */
  readonly contentType?: string;
  readonly signal?: AbortSignal;
  /** Whole-request timeout. Default 60 s. */
  readonly timeoutMs?: number;
  /** Receives the answer's `Warning` headers (admission warnings, deprecations), if any. */
  readonly onWarnings?: (warnings: readonly string[]) => void;
  /**
   * A successful answer longer than this fails with {@link ResponseTooLargeError} (the
   * connection is dropped): for documents whose size the server decides. Default unbounded.
   */
  readonly maxBytes?: number;
}

export interface WatchOptions {
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly signal: AbortSignal;
  /** Reconnect when no byte arrived for this long (dead TCP connections never error). */
  readonly inactivityMs: number;
  /** Called synchronously for every decoded line, in order. Throwing ends the watch with that error. */
  readonly onEvent: (event: unknown) => void;
}

/** Largest error body we read by default; Status objects are small. */
const MAX_ERROR_BODY = 64 * 1024;

/**
 * What a client reads from its server at most. The home API server is the administrator's and
 * gets no limits but the error body's; a target cluster is named by a tenant's kubeconfig, and
 * its client is bounded in size and time (engine/targets.ts), so a hostile server cannot make
 * the manager buffer without end or hold a watch forever.
 */
export interface KubeClientLimits {
  /** Largest successful answer (bytes): a larger one fails with ResponseTooLargeError. */
  readonly maxResponseBytes?: number;
  /** Largest error answer read (bytes); the rest is cut off unread. Default 64 KiB. */
  readonly maxErrorBytes?: number;
  /** Longest watch line (one event, bytes): a longer one ends the watch with ResponseTooLargeError. */
  readonly maxWatchLineBytes?: number;
  /** A watch ends after this long (as if the server had closed it; the caller watches again). */
  readonly maxWatchMs?: number;
  /** Resolves server host names (and refuses addresses): passed to every connection. */
  readonly lookup?: LookupFunction;
  /**
   * A request answered 429 with a Retry-After (an apiserver's watch cache still initializing
   * after a CRD was created, priority-and-fairness shedding load) is sent again after that
   * wait, at most this many times, as client-go does (10) — for one-shot callers such as the
   * CLI. Default 0: a controller's work queue already retries, with its own backoff.
   */
  readonly tooManyRequestsRetries?: number;
}

/** The longest Retry-After a request waits out (the server names it; a hostile one could say an hour). */
const MAX_RETRY_AFTER_S = 10;

export class KubeClient {
  private agent: https.Agent | http.Agent | undefined;
  /**
   * Watches hold their connection for minutes: they get a pool of their own, without a cap,
   * so that however many a replica holds (a kind per namespace watched, a cache per shard)
   * they never take the request pool's sockets and leave requests queued behind them.
   */
  private watchAgent: https.Agent | http.Agent | undefined;
  private readonly server: URL;
  /** Host, port and protocol of every request (from the server URL, taken apart once). */
  private readonly endpoint: http.RequestOptions;
  /** The server URL's own path (a proxy's prefix), without its trailing slash. */
  private readonly pathPrefix: string;
  private staticAuth: Authentication | undefined;
  private closed = false;

  constructor(
    readonly kubeConfig: KubeConfig,
    /** The cluster key this client talks to (`local` for the home cluster). */
    readonly cluster: string = 'local',
    /** What it reads at most (none but the error body's by default: the home cluster). */
    readonly limits: KubeClientLimits = {},
  ) {
    const current = kubeConfig.getCurrentCluster();
    if (!current) throw new KubeConfigError('no current cluster in the kubeconfig', cluster);
    this.server = new URL(current.server);
    const { protocol, hostname, port } = urlToHttpOptions(this.server);
    this.endpoint = { protocol, hostname, port };
    this.pathPrefix = this.server.pathname.replace(/\/$/, '');
  }

  /**
   * One JSON request. Non-2xx answers throw {@link ApiError}; a 429 with a Retry-After is
   * first waited out and sent again, as `limits.tooManyRequestsRetries` allows.
   */
  async request<T>(options: RequestOptions): Promise<T> {
    const retries = this.limits.tooManyRequestsRetries ?? 0;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.requestOnce<T>(options);
      } catch (err) {
        const wait =
          err instanceof ApiError && err.statusCode === 429 ? err.retryAfterSeconds : undefined;
        if (wait === undefined || attempt >= retries) throw err;
        await delay(Math.min(wait, MAX_RETRY_AFTER_S) * 1000, undefined, {
          signal: options.signal,
        });
      }
    }
  }

  private async requestOnce<T>(options: RequestOptions): Promise<T> {
    const verb = options.method ?? 'GET';
    const res = await this.send(options, options.timeoutMs ?? 60_000);
    if (options.onWarnings) {
      const warnings = warningHeaders(res.rawHeaders);
      if (warnings.length > 0) options.onWarnings(warnings);
    }
    if (res.statusCode === undefined || res.statusCode >= 300) {
      const text = await readBody(res, this.errorLimit, undefined);
      throw toApiError(res, text, verb, options.path);
    }
    // The client's bound for every answer, or the request's own if smaller.
    const limit = Math.min(options.maxBytes ?? Infinity, this.limits.maxResponseBytes ?? Infinity);
    const text = await readBody(
      res,
      limit,
      () => new ResponseTooLargeError(verb, options.path, 'answer', limit),
    );
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /**
   * Streams a watch until the server ends it (resolves), or fails (rejects with
   * {@link ApiError}, {@link WatchInactivityError}, {@link ResponseTooLargeError} or a network
   * error). Aborting `signal` resolves, and so does the client's `maxWatchMs` running out (the
   * caller watches again from where it is). `watch=true` is added.
   */
  async watch(options: WatchOptions): Promise<void> {
    if (options.signal.aborted) return;
    const local = new AbortController();
    const onAbort = (): void => local.abort();
    options.signal.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    let inactive = false;
    let expired = false;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        inactive = true;
        local.abort();
      }, options.inactivityMs);
    };
    const { maxWatchMs } = this.limits;
    const deadline =
      maxWatchMs === undefined
        ? undefined
        : setTimeout(() => {
            expired = true;
            local.abort();
          }, maxWatchMs);
    try {
      arm();
      const res = await this.send(
        { path: options.path, query: { ...options.query, watch: true }, signal: local.signal },
        undefined,
        true,
      );
      if (res.statusCode !== 200) {
        const text = await readBody(res, this.errorLimit, undefined);
        throw toApiError(res, text, 'WATCH', options.path);
      }
      await this.streamLines(res, options, arm);
    } catch (err) {
      if (options.signal.aborted || expired) return;
      if (inactive) throw new WatchInactivityError(options.path, options.inactivityMs);
      throw err;
    } finally {
      clearTimeout(timer);
      clearTimeout(deadline);
      options.signal.removeEventListener('abort', onAbort);
    }
  }

  /** Decodes the watch's lines in order until the stream ends; `arm` on every chunk. */
  private streamLines(
    res: http.IncomingMessage,
    options: WatchOptions,
    arm: () => void,
  ): Promise<void> {
    const maxLine = this.limits.maxWatchLineBytes ?? Infinity;
    return new Promise<void>((resolve, reject) => {
      let pending = '';
      const fail = (err: Error): void => {
        res.destroy();
        reject(err);
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        arm();
        // Only the new chunk is searched for line ends: a long line arrives in many chunks, and
        // searching all of it again for each one would cost its length squared.
        let start = 0;
        let nl: number;
        while ((nl = chunk.indexOf('\n', start)) >= 0) {
          const line = pending + chunk.slice(start, nl);
          pending = '';
          start = nl + 1;
          if (line.trim() === '') continue;
          try {
            options.onEvent(JSON.parse(line));
          } catch (err) {
            fail(err instanceof Error ? err : new Error(String(err)));
            return;
          }
        }
        pending += start === 0 ? chunk : chunk.slice(start);
        // A line without its end is held until it ends: never longer than the limit (UTF-16
        // length, at most the byte length).
        if (pending.length > maxLine) {
          pending = '';
          fail(new ResponseTooLargeError('WATCH', options.path, 'watch line', maxLine));
        }
      });
      res.on('end', () => resolve());
      res.on('error', reject);
      res.on('close', () =>
        res.complete ? resolve() : reject(new Error(`watch ${options.path}: connection closed`)),
      );
    });
  }

  private get errorLimit(): number {
    return this.limits.maxErrorBytes ?? MAX_ERROR_BODY;
  }

  /** Closes pooled connections. Requests after close fail. */
  close(): void {
    this.closed = true;
    this.agent?.destroy();
    this.agent = undefined;
    this.watchAgent?.destroy();
    this.watchAgent = undefined;
  }

  private async send(
    options: RequestOptions,
    timeoutMs: number | undefined,
    forWatch = false,
  ): Promise<http.IncomingMessage> {
    if (this.closed) throw new Error(`client for cluster ${this.cluster} is closed`);
    const auth = await this.authentication();
    const isHttps = this.server.protocol === 'https:';
    const newAgent = (maxSockets: number): https.Agent | http.Agent =>
      isHttps
        ? new SingleOriginAgent(`${this.server.host}:${this.cluster}`, {
            ...tlsOptionsOf(auth),
            keepAlive: true,
            maxSockets,
            ...(this.limits.lookup ? { lookup: this.limits.lookup } : {}),
          })
        : new http.Agent({
            keepAlive: true,
            ...(this.limits.lookup ? { lookup: this.limits.lookup } : {}),
          });
    if (forWatch) this.watchAgent ??= newAgent(Infinity);
    else this.agent ??= newAgent(64);
    const headers: Record<string, string> = { ...auth.headers };
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['Content-Type'] = options.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    const mod = isHttps ? https : http;
    return new Promise((resolve, reject) => {
      const req = mod.request(
        {
          ...this.endpoint,
          path: requestPath(this.pathPrefix, options.path, options.query),
          method: options.method ?? 'GET',
          headers,
          agent: forWatch ? this.watchAgent : this.agent,
          signal: options.signal,
        },
        resolve,
      );
      req.on('error', reject);
      if (timeoutMs !== undefined) armTimeout(req, timeoutMs);
      req.end(payload);
    });
  }

  /**
   * Headers (and, once, TLS material) from the kubeconfig. client-node's applyToHTTPSOptions
   * re-reads certificate files, decodes base64 and builds a throw-away agent on every call:
   * done per request that is a large part of a request's client-side cost. Only exec
   * plugins and auth providers (OIDC, cloud providers, the in-cluster token file) produce
   * credentials that change, so only those users are asked again per request; for the rest
   * (client certificates, static tokens, basic auth) the first answer is kept.
   */
  private async authentication(): Promise<Authentication> {
    if (this.staticAuth) return this.staticAuth;
    const opts: https.RequestOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(opts);
    const headers: Record<string, string> = { Accept: 'application/json' };
    // client-node puts bearer tokens and impersonation into a plain headers object.
    for (const [name, value] of Object.entries((opts.headers ?? {}) as Record<string, unknown>)) {
      if (typeof value === 'string') headers[name] = value;
    }
    if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    const auth: Authentication = { headers, tls: opts };
    const user = this.kubeConfig.getCurrentUser();
    if (!user?.exec && !user?.authProvider) this.staticAuth = auth;
    return auth;
  }
}

/**
 * An https.Agent for one server and one TLS identity (a client's agent is never shared), so
 * its connection pool needs one name. https.Agent#getName concatenates the CA, certificate
 * and key into the pool name on every request: kilobytes of string built and hashed per
 * request, one of the main process's largest allocation sites under a burst. The name also
 * keys the agent's TLS session cache, which keeps working with a fixed one.
 */
export class SingleOriginAgent extends https.Agent {
  constructor(
    private readonly poolName: string,
    options: https.AgentOptions,
  ) {
    super(options);
  }

  override getName(_options?: https.RequestOptions): string {
    return this.poolName;
  }
}

/** What a request takes from the kubeconfig: headers per request, TLS for the agent. */
interface Authentication {
  readonly headers: Readonly<Record<string, string>>;
  readonly tls: https.RequestOptions;
}

/**
 * The agent's TLS options. Certificates as strings: the agent derives a pool key from them
 * on every request (https.Agent#getName), and a Buffer there is converted to a string anew
 * each time.
 */
function tlsOptionsOf(auth: Authentication): https.AgentOptions {
  const { ca, cert, key, servername, rejectUnauthorized } = auth.tls;
  const material = { ca: pemText(ca), cert: pemText(cert), key: pemText(key) };
  return {
    ...material,
    // Built once per agent: without it tls.connect builds a SecureContext from the PEM text
    // (parsing the CA bundle, the certificate and the key) for every new connection, which a
    // burst opens by the dozen. The CA in it is still what the server is verified against;
    // servername and rejectUnauthorized stay per connection.
    secureContext: createSecureContext(material),
    servername,
    rejectUnauthorized,
  };
}

function pemText<T>(value: T): T | string {
  return Buffer.isBuffer(value) ? value.toString('utf8') : value;
}

/**
 * The request path with its query. Built as a string: a URL object per request (parse,
 * searchParams, and node's conversion back to request options) costs more than the rest of
 * the request's own JavaScript.
 */
export function requestPath(
  prefix: string,
  path: string,
  query: Readonly<Record<string, QueryValue>> | undefined,
): string {
  let out = prefix + path;
  if (query === undefined) return out;
  let sep = path.includes('?') ? '&' : '?';
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    out += `${sep}${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`;
    sep = '&';
  }
  return out;
}

/**
 * Ends the request (and a response being read) with a TimeoutError after `ms`: one timer per
 * request, cheaper than AbortSignal.timeout combined with the caller's signal through
 * AbortSignal.any (each allocates signals, listeners and weak references per request).
 */
function armTimeout(req: http.ClientRequest, ms: number): void {
  let res: http.IncomingMessage | undefined;
  req.once('response', (r: http.IncomingMessage) => (res = r));
  const timer = setTimeout(() => {
    const err = new DOMException(`no answer within ${ms} ms`, 'TimeoutError');
    if (res) res.destroy(err);
    req.destroy(err);
  }, ms);
  // 'close' comes when the response has been read to its end, or the request failed.
  req.once('close', () => clearTimeout(timer));
}

/**
 * The body, up to `limit` bytes. Past the limit the response is destroyed (the rest is never
 * read, and the socket is not reused): `tooLarge` says what to reject with, or, without it
 * (error bodies), what came before the limit is the body.
 */
function readBody(
  res: http.IncomingMessage,
  limit: number,
  tooLarge: (() => Error) | undefined,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const text = (): string =>
      (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))?.toString('utf8') ?? '';
    res.on('data', (chunk: Buffer) => {
      if (settled) return;
      if (size + chunk.length > limit) {
        settled = true;
        if (tooLarge) reject(tooLarge());
        else {
          chunks.push(chunk.subarray(0, limit - size));
          resolve(text());
        }
        chunks.length = 0;
        res.destroy();
        return;
      }
      size += chunk.length;
      chunks.push(chunk);
    });
    // Most answers arrive in one chunk: decoded as it is, without a concatenated copy.
    res.on('end', () => {
      if (!settled) resolve(text());
    });
    res.on('error', (err) => {
      if (!settled) reject(err);
    });
  });
}

function toApiError(res: http.IncomingMessage, text: string, verb: string, path: string): ApiError {
  let status: StatusBody | undefined;
  try {
    status = JSON.parse(text) as StatusBody;
  } catch {
    status = undefined;
  }
  const header: unknown = res.headers['retry-after'];
  const first = typeof header === 'string' ? header : undefined;
  const retryAfter = parseRetryAfter(first) ?? status?.details?.retryAfterSeconds;
  const code = res.statusCode ?? 0;
  return new ApiError(
    code,
    status?.reason ?? http.STATUS_CODES[code] ?? 'Unknown',
    status?.message ?? (text.slice(0, 200) || 'no body'),
    verb,
    path,
    retryAfter,
    status,
  );
}

/** Builds an ApiError from a watch `ERROR` event's Status object. */
export function statusToApiError(status: StatusBody, path: string): ApiError {
  return new ApiError(
    status.code ?? 500,
    status.reason ?? 'Unknown',
    status.message ?? 'watch error',
    'WATCH',
    path,
    status.details?.retryAfterSeconds,
    status,
  );
}

/**
 * The texts of `Warning: 299 - "<text>"` headers (RFC 7234 warn-text: a quoted string with
 * backslash escapes), one per header line, as kubectl prints them.
 */
export function warningHeaders(rawHeaders: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() !== 'warning') continue;
    const value = rawHeaders[i + 1] ?? '';
    const m = /^\d{3}\s+\S+\s+"((?:[^"\\]|\\.)*)"/.exec(value);
    out.push(m?.[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : value);
  }
  return out;
}
