/**
 * The one HTTPS server every replica runs: `/mutate/<name>`, `/validate/<name>`, `/healthz`,
 * `/readyz`, `/metrics`. Handlers and readiness checks are registered from outside; the
 * certificate comes from a {@link CertificateSource} and is swapped in place when it changes.
 *
 * See examples/api/server.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { SecureContextOptions, TLSSocket } from 'node:tls';
import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { DEFAULT_BODY_LIMIT_BYTES } from './admission/body.ts';
import type { AdmissionHandler, WebhookType } from './admission/handler.ts';
import { admissionRoute } from './admission/route.ts';
import { enforceDeadlines, NODE_DEADLINES_OFF } from './deadlines.ts';
import { ServerConfigError, TlsError } from './errors.ts';
import { ServerMetrics } from './metrics.ts';
import type { MetricsAuthorizer } from './metrics-auth.ts';
import { aborted, Probes } from '../runtime/index.ts';
import { healthzRoute, readyzRoute } from './routes/health.ts';
import type { CertificateSource, ServingCertificate } from './tls/source.ts';

/**
 * A handler call's default deadline. The manifests register every webhook with
 * `timeoutSeconds: 5`, and the apiserver counts its 5 s from its side, TLS and transfer
 * included: a handler that also took 5 s would always lose the race, and the user at
 * `kubectl edit` would read the apiserver's "context deadline exceeded" instead of our
 * denial. Half a second is left for the way back.
 */
export const DEFAULT_HANDLER_TIMEOUT_MS = 4_500;

export interface WebhookServerOptions {
  /** TCP port; 0 picks a free one (tests). */
  readonly port: number;
  /** Interface to bind; default all interfaces. */
  readonly host?: string;
  readonly tls: CertificateSource;
  readonly logger: Logger;
  readonly registry: Registry;
  /**
   * The `/readyz` and `/healthz` registry (the manager's); the certificate source's checks
   * are added to it. Default: a registry of the server's own.
   */
  readonly probes?: Probes;
  /**
   * Who may read `/metrics` (TokenReview + SubjectAccessReview, metrics-auth.ts); absent:
   * anyone who reaches the port (local runs).
   */
  readonly metricsAuth?: MetricsAuthorizer;
  /**
   * Deadline for one handler call. Default {@link DEFAULT_HANDLER_TIMEOUT_MS}: under the
   * `timeoutSeconds` the manifests register, so the apiserver gets our reasoned denial rather
   * than its own "context deadline exceeded".
   */
  readonly handlerTimeoutMs?: number;
  /** Default 7 MiB, as controller-runtime. */
  readonly bodyLimitBytes?: number;
  /** Time allowed to receive request headers. Default 10 s. */
  readonly headersTimeoutMs?: number;
  /** Time allowed to receive a whole request. Default 30 s. */
  readonly requestTimeoutMs?: number;
  /**
   * Idle keep-alive time. Default 120 s: longer than Go's 90 s idle timeout, so the apiserver
   * closes idle connections first and never sends a POST on one we are closing (a POST is
   * not retried).
   */
  readonly keepAliveTimeoutMs?: number;
  /**
   * How long stop drains before cutting connections. Default 5 s. While draining, no new
   * connection is accepted, every answer carries `Connection: close` (the client closes the
   * connection after reading it, so no request is ever sent on a connection we are closing),
   * idle connections are closed half-way, and whatever is left at the end is cut.
   */
  readonly shutdownGraceMs?: number;
}

/** The `/readyz` check that is true while the server accepts connections. */
export const WEBHOOK_SERVER_CHECK = 'webhook-server';

const NAME_PATTERN = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;

/** The answer to a client error Node's parser or timers report (default: 400). */
const CLIENT_ERROR_STATUS: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

export class WebhookServer {
  private readonly options: Required<
    Omit<WebhookServerOptions, 'host' | 'probes' | 'metricsAuth'>
  > & {
    metricsAuth?: MetricsAuthorizer;
    host?: string;
  };
  /** Served as `/readyz` and `/healthz`. */
  readonly probes: Probes;
  private readonly handlers: Record<WebhookType, Map<string, AdmissionHandler>> = {
    mutating: new Map(),
    validating: new Map(),
  };
  private readonly metrics: ServerMetrics;
  private readonly stopController = new AbortController();
  /** Aborts the handlers' work at the end of the drain, not at its start (see close). */
  private readonly handlerStop = new AbortController();
  private server: https.Server | undefined;
  private listened: Promise<{ port: number }> | undefined;
  private stopped: Promise<void> | undefined;
  /** Stopping: answers close their connections (see close). */
  private draining = false;

  constructor(options: WebhookServerOptions) {
    const positive = (setting: keyof WebhookServerOptions, value: number): number => {
      if (!Number.isFinite(value) || value <= 0) {
        throw new ServerConfigError(`must be a positive number, got ${value}`, setting);
      }
      return value;
    };
    if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
      throw new ServerConfigError(`must be an integer 0-65535, got ${options.port}`, 'port');
    }
    if (!options.tls) throw new ServerConfigError('a certificate source is required', 'tls');
    if (!options.logger) throw new ServerConfigError('a pino logger is required', 'logger');
    if (!options.registry)
      throw new ServerConfigError('a prom-client Registry is required', 'registry');
    this.options = {
      ...options,
      handlerTimeoutMs: positive(
        'handlerTimeoutMs',
        options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS,
      ),
      bodyLimitBytes: positive(
        'bodyLimitBytes',
        options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
      ),
      headersTimeoutMs: positive('headersTimeoutMs', options.headersTimeoutMs ?? 10_000),
      requestTimeoutMs: positive('requestTimeoutMs', options.requestTimeoutMs ?? 30_000),
      keepAliveTimeoutMs: positive('keepAliveTimeoutMs', options.keepAliveTimeoutMs ?? 120_000),
      shutdownGraceMs: positive('shutdownGraceMs', options.shutdownGraceMs ?? 5_000),
    };
    this.metrics = new ServerMetrics(options.registry);
    this.probes = options.probes ?? new Probes();
    for (const [name, check] of Object.entries(options.tls.readinessChecks())) {
      this.probes.addReadyz(name, check);
    }
    // Ready only while it accepts connections: not before listen, not once stopping.
    this.probes.addReadyz(
      WEBHOOK_SERVER_CHECK,
      () => this.server?.listening === true && !this.stopController.signal.aborted,
    );
  }

  /** Serves `handler` at `/mutate/<name>`. */
  registerMutating(name: string, handler: AdmissionHandler): void {
    this.register('mutating', name, handler);
  }

  /** Serves `handler` at `/validate/<name>`; it must not return a patch. */
  registerValidating(name: string, handler: AdmissionHandler): void {
    this.register('validating', name, handler);
  }

  /** The bound port, once started. */
  get port(): number {
    const address = this.server?.address();
    if (!address || typeof address === 'string') {
      throw new ServerConfigError('the server is not listening', 'port');
    }
    return address.port;
  }

  /**
   * The {@link Runnable} shape: listens (see {@link listen}), serves until `signal` aborts or
   * {@link stop} is called, and resolves once the server has closed. Rejects when it cannot
   * listen (no certificate, port taken).
   */
  async start(signal: AbortSignal): Promise<void> {
    await this.listen(signal);
    await aborted(AbortSignal.any([signal, this.stopController.signal]));
    await this.stop();
  }

  /**
   * Starts the certificate source, waits for its first certificate, listens and resolves
   * with the port, leaving the server running until `signal` aborts ({@link stop} does the
   * same and can be awaited). For callers that need the port; {@link start} calls it too
   * (the second call returns the first one's result).
   */
  listen(signal: AbortSignal): Promise<{ port: number }> {
    this.listened ??= this.open(signal);
    return this.listened;
  }

  private async open(signal: AbortSignal): Promise<{ port: number }> {
    if (signal.aborted) throw new ServerConfigError('the signal is already aborted', 'start');
    const tls = this.options.tls;
    tls.start(AbortSignal.any([signal, this.stopController.signal]));
    const first = await firstCertificate(
      tls,
      AbortSignal.any([signal, this.stopController.signal]),
    );
    this.metrics.certificateLoaded(first.notAfter);

    const server = https.createServer({
      ...secureContext(first),
      minVersion: 'TLSv1.2',
      keepAlive: true,
      // Node's checker wakes the process every interval for the server's whole life; the
      // same deadlines as timers per connection wake nothing while no one is connected.
      ...NODE_DEADLINES_OFF,
    });
    server.keepAliveTimeout = this.options.keepAliveTimeoutMs;
    enforceDeadlines(server, this.options);
    server.on('request', this.requestListener());
    server.on('secureConnection', (socket: TLSSocket) => {
      this.metrics.connectionAccepted(socket.isSessionReused());
    });
    server.on('tlsClientError', (err) => {
      this.options.logger.debug({ err }, 'TLS handshake failed');
    });
    server.on('clientError', (err: Error & { code?: string }, socket) => {
      // Malformed or too slow HTTP: answer if the socket is still writable, never crash.
      const status = CLIENT_ERROR_STATUS[err.code ?? ''] ?? '400 Bad Request';
      if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
      else socket.destroy();
      this.options.logger.debug({ err, code: err.code }, 'malformed HTTP request');
    });
    tls.onCertificate((certificate) => {
      try {
        server.setSecureContext({ ...secureContext(certificate) });
        this.metrics.certificateLoaded(certificate.notAfter);
        this.options.logger.info(
          { notAfter: certificate.notAfter.toISOString() },
          'serving certificate swapped in',
        );
      } catch (err) {
        this.options.logger.error({ err }, 'new serving certificate rejected; keeping the old one');
      }
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.options.logger.error({ err }, 'HTTPS server error'));
    signal.addEventListener('abort', () => void this.stop(), { once: true });
    this.options.logger.info({ port: this.port }, 'webhook server listening');
    return { port: this.port };
  }

  /** Stops accepting, lets in-flight requests finish (bounded by the grace), closes all. */
  stop(): Promise<void> {
    this.stopped ??= this.close();
    return this.stopped;
  }

  private async close(): Promise<void> {
    this.stopController.abort(new Error('webhook server stopping'));
    const server = this.server;
    if (!server) {
      this.handlerStop.abort(new Error('webhook server stopped'));
      return;
    }
    this.draining = true;
    // net.Server's close stops the listener only. http.Server's own close also closes every
    // idle kept-alive connection at once, and the apiserver may be writing a POST on one at
    // that moment: a POST is not retried, so that admission request would fail. The apiserver
    // pools connections by the Service's name, not by endpoint, so it keeps using connections
    // to a pod that has left the endpoints.
    const closed = new Promise<void>((resolve) => {
      net.Server.prototype.close.call(server, () => resolve());
    });
    const idle = setTimeout(() => server.closeIdleConnections(), this.options.shutdownGraceMs / 2);
    const grace = setTimeout(() => {
      this.handlerStop.abort(new Error('webhook server stopped'));
      server.closeAllConnections();
    }, this.options.shutdownGraceMs);
    await closed;
    clearTimeout(idle);
    clearTimeout(grace);
    this.handlerStop.abort(new Error('webhook server stopped'));
  }

  private register(type: WebhookType, name: string, handler: AdmissionHandler): void {
    if (!NAME_PATTERN.test(name)) {
      throw new ServerConfigError(
        `"${name}" is not a valid webhook name (lowercase letters, digits, '-' and '.')`,
        `${type} webhook name`,
      );
    }
    if (typeof handler !== 'function') {
      throw new ServerConfigError(`handler for "${name}" must be a function`, `${type} webhook`);
    }
    if (this.handlers[type].has(name)) {
      throw new ServerConfigError(`"${name}" is already registered`, `${type} webhook name`);
    }
    this.handlers[type].set(name, handler);
  }

  /**
   * Admission reviews take a direct path (prefix match, no express router): on a no-op
   * handler the router alone costs a large share of the time. Everything else goes to express.
   */
  private requestListener(): (req: IncomingMessage, res: ServerResponse) => void {
    const common = {
      metrics: this.metrics,
      logger: this.options.logger,
      bodyLimitBytes: this.options.bodyLimitBytes,
      handlerTimeoutMs: this.options.handlerTimeoutMs,
      signal: this.handlerStop.signal,
    };
    const mutate = admissionRoute({
      ...common,
      type: 'mutating',
      handlers: this.handlers.mutating,
    });
    const validate = admissionRoute({
      ...common,
      type: 'validating',
      handlers: this.handlers.validating,
    });
    const app = this.app();
    return (req, res) => {
      if (this.draining) res.setHeader('Connection', 'close');
      const url = req.url ?? '';
      if (req.method === 'POST') {
        const route = url.startsWith('/validate/')
          ? validate
          : url.startsWith('/mutate/')
            ? mutate
            : undefined;
        if (route) {
          const rest = url.slice(url.indexOf('/', 1) + 1);
          const end = rest.search(/[/?#]/);
          void route(decodeName(end === -1 ? rest : rest.slice(0, end)), req, res);
          return;
        }
      }
      void app(req, res);
    };
  }

  private app(): express.Express {
    const app = express();
    app.disable('x-powered-by');
    app.disable('etag');
    app.get('/healthz', healthzRoute(this.probes));
    app.get('/readyz', readyzRoute(this.probes));
    app.get('/metrics', (req: Request, res: Response, next: NextFunction) => {
      const auth = this.options.metricsAuth;
      const verdict = auth
        ? auth.authorize(req.headers.authorization)
        : Promise.resolve({ allowed: true as const });
      verdict
        .then(async (v) => {
          if (!v.allowed) {
            res.status(v.status).json({ message: v.message });
            return;
          }
          const text = await this.metrics.registry.metrics();
          res.type(this.metrics.registry.contentType).send(text);
        })
        .catch(next);
    });
    app.use((req: Request, res: Response) => {
      req.resume();
      res.status(404).json({ message: `no route for ${req.method} ${req.path}` });
    });
    app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
      this.options.logger.error({ err }, 'unhandled error in a route');
      if (!res.headersSent) res.status(500).json({ message: 'internal error' });
    });
    return app;
  }
}

function decodeName(raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function secureContext(certificate: ServingCertificate): SecureContextOptions {
  return { cert: certificate.certPem, key: certificate.keyPem };
}

function firstCertificate(
  source: CertificateSource,
  signal: AbortSignal,
): Promise<ServingCertificate> {
  const current = source.current();
  if (current) return Promise.resolve(current);
  return new Promise((resolve, reject) => {
    const onAbort = (): void =>
      reject(new TlsError('stopped before a serving certificate was loaded', 'certificate source'));
    signal.addEventListener('abort', onAbort, { once: true });
    source.onCertificate((certificate) => {
      signal.removeEventListener('abort', onAbort);
      resolve(certificate);
    });
  });
}
