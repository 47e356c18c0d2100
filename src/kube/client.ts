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
import { createSecureContext } from 'node:tls';
import { urlToHttpOptions } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  ApiError,
  KubeConfigError,
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

/** Largest error body we read; Status objects are small. */
const MAX_ERROR_BODY = 64 * 1024;

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
  ) {
    const current = kubeConfig.getCurrentCluster();
    if (!current) throw new KubeConfigError('no current cluster in the kubeconfig', cluster);
    this.server = new URL(current.server);
    const { protocol, hostname, port } = urlToHttpOptions(this.server);
    this.endpoint = { protocol, hostname, port };
    this.pathPrefix = this.server.pathname.replace(/\/$/, '');
  }

  /** One JSON request. Non-2xx answers throw {@link ApiError}. */
  async request<T>(options: RequestOptions): Promise<T> {
    const verb = options.method ?? 'GET';
    const res = await this.send(options, options.timeoutMs ?? 60_000);
    if (options.onWarnings) {
      const warnings = warningHeaders(res.rawHeaders);
      if (warnings.length > 0) options.onWarnings(warnings);
    }
    const text = await readBody(
      res,
      res.statusCode !== undefined && res.statusCode >= 300 ? MAX_ERROR_BODY : Infinity,
    );
    if (res.statusCode === undefined || res.statusCode >= 300) {
      throw toApiError(res, text, verb, options.path);
    }
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /**
   * Streams a watch until the server ends it (resolves), or fails (rejects with
   * {@link ApiError}, {@link WatchInactivityError} or a network error). Aborting `signal`
   * resolves. `watch=true` is added.
   */
  async watch(options: WatchOptions): Promise<void> {
    if (options.signal.aborted) return;
    const local = new AbortController();
    const onAbort = (): void => local.abort();
    options.signal.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    let inactive = false;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        inactive = true;
        local.abort();
      }, options.inactivityMs);
    };
    try {
      arm();
      const res = await this.send(
        { path: options.path, query: { ...options.query, watch: true }, signal: local.signal },
        undefined,
        true,
      );
      if (res.statusCode !== 200) {
        const text = await readBody(res, MAX_ERROR_BODY);
        throw toApiError(res, text, 'WATCH', options.path);
      }
      await new Promise<void>((resolve, reject) => {
        let pending = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          arm();
          pending += chunk;
          let nl: number;
          while ((nl = pending.indexOf('\n')) >= 0) {
            const line = pending.slice(0, nl);
            pending = pending.slice(nl + 1);
            if (line.trim() === '') continue;
            try {
              options.onEvent(JSON.parse(line));
            } catch (err) {
              res.destroy();
              reject(err instanceof Error ? err : new Error(String(err)));
              return;
            }
          }
        });
        res.on('end', () => resolve());
        res.on('error', reject);
        res.on('close', () =>
          res.complete ? resolve() : reject(new Error(`watch ${options.path}: connection closed`)),
        );
      });
    } catch (err) {
      if (options.signal.aborted) return;
      if (inactive) throw new WatchInactivityError(options.path, options.inactivityMs);
      throw err;
    } finally {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
    }
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
          })
        : new http.Agent({ keepAlive: true });
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

function readBody(res: http.IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    // Most answers arrive in one chunk: decoded as it is, without a concatenated copy.
    res.on('end', () =>
      resolve((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))?.toString('utf8') ?? ''),
    );
    res.on('error', reject);
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
