// The server over real HTTPS on 127.0.0.1, with a fixed certificate: routing, every bad
// input, handler failures, readiness, metrics and a fuzz run.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import https from 'node:https';
import { Registry } from 'prom-client';
import { createCertificateAuthority, issueCertificate } from '../../../src/pki/index.ts';
import {
  allow,
  denyInvalid,
  patch,
  ServerConfigError,
  StaticCertificateSource,
  WEBHOOK_SERVER_CHECK,
  WebhookServer,
  type AdmissionContext,
  type AdmissionRequest,
} from '../../../src/server/index.ts';
import { capturingLogger, httpsRequest } from '../../support/https.ts';
import { admissionReview, configMapReview } from '../../support/admission.ts';

const ca = createCertificateAuthority({ commonName: 'test-ca' });
const leaf = issueCertificate(ca, {
  commonName: 'webhook',
  ipAddresses: ['127.0.0.1'],
  usage: 'server',
});

function review(request: Record<string, unknown>): string {
  return JSON.stringify(admissionReview(request));
}

const cmRequest = (uid: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify(configMapReview({ uid, ...extra }));

describe('WebhookServer', () => {
  const { logger, lines } = capturingLogger();
  const registry = new Registry();
  const stop = new AbortController();
  let server: WebhookServer;
  let port = 0;
  let ready = false;
  const seen: Array<{ request: AdmissionRequest; dryRun: boolean }> = [];

  const post = (
    path: string,
    body: string | Buffer,
    headers: Record<string, string | number> = {},
  ) =>
    httpsRequest({
      port,
      path,
      ca: ca.certPem,
      body,
      headers: { 'content-type': 'application/json', ...headers },
    });

  beforeAll(async () => {
    server = new WebhookServer({
      port: 0,
      host: '127.0.0.1',
      tls: new StaticCertificateSource(leaf),
      logger,
      registry,
      handlerTimeoutMs: 300,
    });
    server.registerValidating('deny-frozen', (request: AdmissionRequest, ctx: AdmissionContext) => {
      seen.push({ request, dryRun: ctx.dryRun });
      return denyInvalid('spec is frozen', [{ field: 'data.x', message: 'x cannot change' }]);
    });
    server.registerValidating('noop', () => allow({ warnings: ['just so you know'] }));
    server.registerMutating('label', () =>
      patch([{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }]),
    );
    server.registerValidating('bad-patch', () =>
      patch([{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }]),
    );
    server.registerValidating('throws', () => {
      throw new Error('boom in handler');
    });
    server.registerValidating(
      'slow',
      (_r, ctx) =>
        new Promise((resolve) => {
          const t = setTimeout(() => resolve(allow()), 10_000);
          ctx.signal.addEventListener('abort', () => clearTimeout(t));
        }),
    );
    server.probes.addReadyz('external', () => ready);
    ({ port } = await server.listen(stop.signal));
  });

  afterAll(async () => {
    stop.abort();
    await server.stop();
  });

  it('rejects bad settings with the setting named', () => {
    const base = {
      port: 0,
      tls: new StaticCertificateSource(leaf),
      logger,
      registry: new Registry(),
    };
    expect(() => new WebhookServer({ ...base, port: -1 })).toThrow(/port/);
    expect(() => new WebhookServer({ ...base, handlerTimeoutMs: 0 })).toThrow(ServerConfigError);
    const s = new WebhookServer(base);
    expect(() => s.registerMutating('Bad Name', () => allow())).toThrow(/not a valid webhook name/);
    s.registerMutating('x', () => allow());
    expect(() => s.registerMutating('x', () => allow())).toThrow(/already registered/);
  });

  it('denies with status, causes and echoed uid, and passes dryRun to the handler', async () => {
    const res = await post('/validate/deny-frozen', cmRequest('uid-42', { dryRun: true }));
    expect(res.status).toBe(200);
    const body = JSON.parse(res.text) as Record<string, unknown>;
    expect(body).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: {
        uid: 'uid-42',
        allowed: false,
        status: {
          code: 422,
          reason: 'Invalid',
          message: 'spec is frozen',
          details: { causes: [{ field: 'data.x', message: 'x cannot change' }] },
        },
      },
    });
    expect(seen.at(-1)?.dryRun).toBe(true);
    expect(seen.at(-1)?.request.namespace).toBe('ns');
  });

  it('allows with warnings, and patches from a mutating handler', async () => {
    const noop = JSON.parse((await post('/validate/noop', cmRequest('a'))).text) as {
      response: Record<string, unknown>;
    };
    expect(noop.response).toEqual({ uid: 'a', allowed: true, warnings: ['just so you know'] });
    const mutated = JSON.parse((await post('/mutate/label', cmRequest('b'))).text) as {
      response: { patch: string; patchType: string };
    };
    expect(mutated.response.patchType).toBe('JSONPatch');
    expect(JSON.parse(Buffer.from(mutated.response.patch, 'base64').toString())).toEqual([
      { op: 'add', path: '/metadata/labels', value: { a: 'b' } },
    ]);
  });

  it('keeps mutating and validating names apart', async () => {
    expect((await post('/mutate/noop', cmRequest('a'))).status).toBe(404);
    expect((await post('/validate/label', cmRequest('a'))).status).toBe(404);
  });

  it('answers non-JSON with 400, in JSON', async () => {
    const res = await post('/validate/noop', '{not json');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toMatchObject({
      response: { allowed: false, status: { code: 400 } },
    });
  });

  it('answers a wrong content type with 415', async () => {
    const res = await post('/validate/noop', cmRequest('a'), { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
    expect(JSON.parse(res.text)).toMatchObject({ response: { status: { code: 415 } } });
    const none = await httpsRequest({ port, path: '/validate/noop', ca: ca.certPem, body: 'x' });
    expect(none.status).toBe(415);
  });

  it('answers a body over 7 MiB with 413, by declared length and by actual bytes', async () => {
    const big = Buffer.alloc(7 * 1024 * 1024 + 10, 0x20);
    const declared = await post('/validate/noop', big);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.text)).toMatchObject({ response: { status: { code: 413 } } });
    // Chunked: no content-length, so the limit is enforced while reading.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port,
          path: '/validate/noop',
          method: 'POST',
          ca: ca.certPem,
          agent: false,
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 8; i++) req.write(Buffer.alloc(1024 * 1024, 0x20));
      req.end();
    });
    expect(chunked).toBe(413);
  });

  it('answers a review without request or uid with 400', async () => {
    const noRequest = await post(
      '/validate/noop',
      JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }),
    );
    expect(noRequest.status).toBe(400);
    expect(noRequest.text).toMatch(/no request/);
    const noUid = await post('/validate/noop', review({ operation: 'CREATE' }));
    expect(noUid.status).toBe(400);
    expect(noUid.text).toMatch(/no uid/);
  });

  it('turns a handler exception into a 500 denial naming the webhook, and logs it', async () => {
    const res = await post('/validate/throws', cmRequest('t-1'));
    expect(res.status).toBe(200);
    const body = JSON.parse(res.text) as {
      response: { uid: string; allowed: boolean; status: { code: number; message: string } };
    };
    expect(body.response.uid).toBe('t-1');
    expect(body.response.allowed).toBe(false);
    expect(body.response.status.code).toBe(500);
    expect(body.response.status.message).toMatch(/"throws".*boom in handler/);
    expect(lines.some((l) => l['level'] === 50 && l['webhook'] === 'throws')).toBe(true);
  });

  it('denies when a handler misses its deadline', async () => {
    const res = await post('/validate/slow', cmRequest('s-1'));
    const body = JSON.parse(res.text) as {
      response: { allowed: boolean; status: { code: number; message: string } };
    };
    expect(body.response.allowed).toBe(false);
    expect(body.response.status.code).toBe(500);
    expect(body.response.status.message).toMatch(/"slow" did not answer within 300 ms/);
  });

  it('refuses a patch from a validating handler', async () => {
    const res = await post('/validate/bad-patch', cmRequest('p'));
    const body = JSON.parse(res.text) as { response: { allowed: boolean; patch?: string } };
    expect(body.response.allowed).toBe(false);
    expect(body.response.patch).toBeUndefined();
  });

  it('serves healthz, and readyz following the registered checks', async () => {
    expect((await httpsRequest({ port, path: '/healthz', ca: ca.certPem })).status).toBe(200);
    const notReady = await httpsRequest({ port, path: '/readyz', ca: ca.certPem });
    expect(notReady.status).toBe(503);
    expect(JSON.parse(notReady.text)).toMatchObject({ ok: false, checks: { external: false } });
    ready = true;
    const nowReady = await httpsRequest({ port, path: '/readyz', ca: ca.certPem });
    expect(nowReady.status).toBe(200);
  });

  it('counts requests per webhook and outcome in /metrics', async () => {
    const res = await httpsRequest({ port, path: '/metrics', ca: ca.certPem });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(
      /planwright_webhook_requests_total\{webhook="deny-frozen",type="validating",outcome="denied"\} [1-9]/,
    );
    expect(res.text).toMatch(
      /planwright_webhook_requests_total\{webhook="noop",type="validating",outcome="bad_request"\} [1-9]/,
    );
    expect(res.text).toMatch(
      /planwright_webhook_request_duration_seconds_bucket\{le="0.005",webhook="noop"/,
    );
    // Every request above came over a TLS connection of its own: all counted.
    expect(res.text).toMatch(/planwright_webhook_tls_connections_total\{handshake="full"\} [1-9]/);
  });

  it('refuses TLS below 1.2', async () => {
    await expect(
      httpsRequest({
        port,
        path: '/healthz',
        ca: ca.certPem,
        agent: new https.Agent({ maxVersion: 'TLSv1.1', minVersion: 'TLSv1', ca: ca.certPem }),
      }),
    ).rejects.toThrow();
  });

  it('survives a fuzz run of random bodies and still serves', async () => {
    const agent = new https.Agent({ keepAlive: true, ca: ca.certPem, maxSockets: 4 });
    const statuses = new Set<number>();
    const valid = cmRequest('fuzz');
    for (let i = 0; i < 300; i++) {
      let body: Buffer;
      const mode = i % 4;
      if (mode === 0) body = randomBytes(Math.floor(Math.random() * 2048));
      else if (mode === 1) {
        // A valid review with random bytes spliced in.
        const at = Math.floor(Math.random() * valid.length);
        body = Buffer.concat([
          Buffer.from(valid.slice(0, at)),
          randomBytes(8),
          Buffer.from(valid.slice(at)),
        ]);
      } else if (mode === 2) {
        body = Buffer.from(JSON.stringify(randomJson(3)));
      } else {
        body = Buffer.from(
          review({ uid: randomJson(1), operation: randomJson(1), object: randomJson(2) }),
        );
      }
      const res = await httpsRequest({
        port,
        path: i % 2 ? '/validate/noop' : '/mutate/label',
        ca: ca.certPem,
        body,
        agent,
        headers: { 'content-type': 'application/json' },
      });
      statuses.add(res.status);
      expect([200, 400]).toContain(res.status);
      expect(() => JSON.parse(res.text) as unknown).not.toThrow();
    }
    agent.destroy();
    expect(statuses.has(400)).toBe(true);
    const after = await post('/validate/noop', cmRequest('after-fuzz'));
    expect(JSON.parse(after.text)).toMatchObject({
      response: { uid: 'after-fuzz', allowed: true },
    });
  });
});

function randomJson(depth: number): unknown {
  const pick = Math.floor(Math.random() * 7);
  if (depth <= 0 || pick < 3) {
    return [null, true, 42, 'x', '', -1.5, randomBytes(4).toString('hex')][pick];
  }
  if (pick < 5) return Array.from({ length: 3 }, () => randomJson(depth - 1));
  return {
    uid: randomJson(depth - 1),
    request: randomJson(depth - 1),
    [randomBytes(2).toString('hex')]: randomJson(depth - 1),
  };
}

describe('WebhookServer lifetime', () => {
  it('start(signal) is a Runnable: ready while it serves, resolves only once closed after the signal', async () => {
    const own = new WebhookServer({
      port: 0,
      host: '127.0.0.1',
      tls: new StaticCertificateSource(leaf),
      logger: capturingLogger().logger,
      registry: new Registry(),
    });
    expect((await own.probes.readyz()).checks[WEBHOOK_SERVER_CHECK]).toBe(false);
    const signal = new AbortController();
    let settled = false;
    const running = own.start(signal.signal).then(() => (settled = true));
    const { port } = await own.listen(signal.signal);
    expect((await own.probes.readyz()).checks[WEBHOOK_SERVER_CHECK]).toBe(true);
    expect((await httpsRequest({ port, path: '/healthz', ca: ca.certPem })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBe(false);
    signal.abort();
    await running;
    expect((await own.probes.readyz()).checks[WEBHOOK_SERVER_CHECK]).toBe(false);
    await expect(httpsRequest({ port, path: '/healthz', ca: ca.certPem })).rejects.toThrow();
  });
});
