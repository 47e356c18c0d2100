// HTTP-level garbage over raw TLS sockets: a bad request line, oversized headers, headers or
// a body that never finish. Each is answered or closed within the server's timeouts, and the
// server keeps serving real reviews afterwards.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import tls from 'node:tls';
import type { WebhookServer } from '../../../src/server/index.ts';
import { allow, StaticCertificateSource } from '../../../src/server/index.ts';
import { capturingLogger, httpsRequest } from '../../support/https.ts';
import { admissionReview, loopbackWebhookServer } from '../../support/admission.ts';

const loopback = StaticCertificateSource.forLoopback('garbage-webhook');

interface RawResult {
  /** Everything the server sent before closing. */
  readonly text: string;
  /** Milliseconds from the first byte written to the close. */
  readonly closedAfterMs: number;
}

/** Writes `chunks` (a function writes more later) and collects the answer until the close. */
function raw(port: number, write: (socket: tls.TLSSocket) => void): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca: loopback.caPem }, () => {
      const started = Date.now();
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.on('close', () => resolve({ text, closedAfterMs: Date.now() - started }));
      write(socket);
    });
    socket.on('error', (err: Error & { code?: string }) => {
      // A reset after the server's answer is a close, too.
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
    });
  });
}

describe('WebhookServer under HTTP garbage', () => {
  const { logger } = capturingLogger();
  const stop = new AbortController();
  let server: WebhookServer;
  let port = 0;
  const HEADERS_TIMEOUT_MS = 1_000;
  const REQUEST_TIMEOUT_MS = 5_000;

  beforeAll(async () => {
    server = loopbackWebhookServer(loopback.source, logger, {
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      bodyLimitBytes: 64 * 1024,
    });
    server.registerValidating('noop', () => allow());
    ({ port } = await server.listen(stop.signal));
  });

  afterAll(async () => {
    stop.abort();
    await server.stop();
  });

  it('answers a bad request line with 400 and closes', async () => {
    const res = await raw(port, (s) => s.write('GARBAGE / NOT-HTTP\r\n\r\n'));
    expect(res.text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  });

  it('answers oversized headers with 431 and closes', async () => {
    const res = await raw(port, (s) =>
      s.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`),
    );
    expect(res.text).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  });

  it('closes a connection whose headers never finish, within the headers timeout', async () => {
    const res = await raw(port, (s) => s.write('POST /validate/noop HTTP/1.1\r\nHost: x\r\n'));
    expect(res.text).toMatch(/^(HTTP\/1\.1 408 Request Timeout\r\n)?/);
    // Closed by the headers timeout: the request timeout, five times longer, had not come
    // (a margin no load on the machine closes).
    expect(res.closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS);
  });

  it('answers or closes a request whose body never finishes, at the request timeout', async () => {
    const res = await raw(port, (s) =>
      s.write(
        'POST /validate/noop HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"apiVersion":',
      ),
    );
    // The client never closes: the server did, once the request timeout passed.
    expect(res.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS);
    expect(res.text === '' || /^HTTP\/1\.1 (408|400)/.test(res.text)).toBe(true);
  });

  it('answers a body over the limit with 413 before closing', async () => {
    const body = `{"pad":"${'x'.repeat(200 * 1024)}"}`;
    const res = await raw(port, (s) => {
      s.write(
        `POST /validate/noop HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      s.write(body);
    });
    expect(res.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(res.text).toContain('"reason":"RequestEntityTooLarge"');
  });

  it('still serves a real review afterwards', async () => {
    const res = await httpsRequest({
      port,
      path: '/validate/noop',
      ca: loopback.caPem,
      body: JSON.stringify(
        admissionReview({ uid: 'after', operation: 'CREATE', object: { metadata: {} } }),
      ),
      headers: { 'content-type': 'application/json' },
    });
    expect(JSON.parse(res.text)).toMatchObject({ response: { uid: 'after', allowed: true } });
  });
});
