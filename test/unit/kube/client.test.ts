// The raw client against a scripted local HTTP server: status codes, Retry-After, watch
// streaming, inactivity timeout, and clean close; with limits (a target cluster's client),
// bodies, error bodies and watch lines bounded and watches ended after their deadline.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import {
  ApiError,
  KubeClient,
  ResponseTooLargeError,
  WatchInactivityError,
  parseRetryAfter,
} from '../../../src/kube/index.ts';
import { requestPath } from '../../../src/kube/client.ts';

type Handler = (url: URL, res: ServerResponse, req: IncomingMessage) => void;

const LIMIT = 256 * 1024;

/**
 * Writes `chunk` for ever (as fast as the client reads) until the connection closes; resolves
 * with the bytes written by then.
 */
function endless(res: ServerResponse, chunk: string): Promise<number> {
  return new Promise((resolve) => {
    let sent = 0;
    const pump = (): void => {
      while (!res.destroyed && !res.writableEnded) {
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
    };
    res.on('close', () => resolve(sent));
    pump();
  });
}

describe('KubeClient', () => {
  let server: Server;
  let handler: Handler = (_url, res) => res.end('{}');
  let client: KubeClient;
  let limited: KubeClient;
  /** A one-shot caller's client (the CLI's): waits out a 429 with Retry-After, twice. */
  let patient: KubeClient;
  const open = new Set<ServerResponse>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      open.add(res);
      res.on('close', () => open.delete(res));
      handler(new URL(req.url ?? '/', 'http://x'), res, req);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 'secret-token' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    client = new KubeClient(kc, 'local');
    patient = new KubeClient(kc, 'local', { tooManyRequestsRetries: 2 });
    limited = new KubeClient(kc, 'target', {
      maxResponseBytes: LIMIT,
      maxErrorBytes: 1024,
      maxWatchLineBytes: LIMIT,
      maxWatchMs: 300,
    });
  });

  afterAll(async () => {
    client.close();
    patient.close();
    limited.close();
    for (const res of open) res.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('returns JSON and sends the bearer token and query', async () => {
    let auth: string | undefined;
    let limit: string | null = null;
    handler = (url, res, req) => {
      auth = req.headers.authorization;
      limit = url.searchParams.get('limit');
      res.end(JSON.stringify({ items: [1, 2] }));
    };
    const body = await client.request<{ items: number[] }>({
      path: '/api/v1/pods',
      query: { limit: 500, continue: undefined },
    });
    expect(body.items).toEqual([1, 2]);
    expect(auth).toBe('Bearer secret-token');
    expect(limit).toBe('500');
  });

  it('turns a 429 with Retry-After into a typed ApiError', async () => {
    handler = (_url, res) => {
      res.writeHead(429, { 'Retry-After': '3', 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          reason: 'TooManyRequests',
          message: 'slow down',
          code: 429,
        }),
      );
    };
    const err = await client.request({ path: '/api/v1/pods' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ statusCode: 429, reason: 'TooManyRequests', retryAfterSeconds: 3 });
    expect((err as ApiError).message).toContain('GET /api/v1/pods: 429 TooManyRequests: slow down');
  });

  it('sends a request again after a 429 with Retry-After, as often as tooManyRequestsRetries allows', async () => {
    let seen = 0;
    /** Answers 429 (with a Retry-After of 0 s unless `header` is false) `busy` times, then 200. */
    const script = (busy: number, header = true): Handler => {
      seen = 0;
      return (_url, res) => {
        seen++;
        if (seen > busy) {
          res.end(JSON.stringify({ ok: true }));
          return;
        }
        res.writeHead(429, header ? { 'Retry-After': '0' } : {});
        res.end(
          JSON.stringify({
            kind: 'Status',
            reason: 'TooManyRequests',
            message: 'storage is (re)initializing',
            code: 429,
          }),
        );
      };
    };
    handler = script(2);
    expect(await patient.request({ path: '/apis/kudo.dev/v1beta1/instances' })).toEqual({
      ok: true,
    });
    expect(seen).toBe(3);
    /** The request fails with the 429 after `sent` requests reached the server. */
    const refusedAfter = async (from: KubeClient, sent: number): Promise<void> => {
      await expect(
        from.request({ path: '/apis/kudo.dev/v1beta1/instances' }),
      ).rejects.toMatchObject({ statusCode: 429 });
      expect(seen).toBe(sent);
    };
    handler = script(3);
    await refusedAfter(patient, 3);
    // No Retry-After: the server did not say when, so it is not sent again.
    handler = script(1, false);
    await refusedAfter(patient, 1);
    // The default client (a controller's: its queue retries) sends it once.
    handler = script(1);
    await refusedAfter(client, 1);
  });

  it('streams watch events and resolves when the server ends the stream', async () => {
    let watchParam: string | null = null;
    handler = (url, res) => {
      watchParam = url.searchParams.get('watch');
      res.writeHead(200);
      res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"MOD');
      setTimeout(() => res.end('IFIED","object":{"metadata":{"name":"a"}}}\n'), 20);
    };
    const events: unknown[] = [];
    await client.watch({
      path: '/api/v1/pods',
      inactivityMs: 5_000,
      signal: new AbortController().signal,
      onEvent: (e) => events.push(e),
    });
    expect(watchParam).toBe('true');
    expect(events).toEqual([
      { type: 'ADDED', object: { metadata: { name: 'a' } } },
      { type: 'MODIFIED', object: { metadata: { name: 'a' } } },
    ]);
  });

  it('detects a dead watch connection with the inactivity timeout', async () => {
    handler = (_url, res) => {
      res.writeHead(200);
      res.write('{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"5"}}}\n');
      // …and then silence, as from a peer that vanished without a FIN.
    };
    const events: unknown[] = [];
    const err = await client
      .watch({
        path: '/api/v1/pods',
        inactivityMs: 200,
        signal: new AbortController().signal,
        onEvent: (e) => events.push(e),
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WatchInactivityError);
    expect(events).toHaveLength(1);
  });

  it('rejects a watch answered with 410 as a Gone ApiError, and resolves quietly when aborted', async () => {
    handler = (_url, res) => {
      res.writeHead(410, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          reason: 'Expired',
          message: 'too old resource version',
          code: 410,
        }),
      );
    };
    const err = await client
      .watch({
        path: '/api/v1/pods',
        inactivityMs: 5_000,
        signal: new AbortController().signal,
        onEvent: () => undefined,
      })
      .catch((e: unknown) => e);
    expect(err instanceof ApiError && err.isGone).toBe(true);

    handler = (_url, res) => res.writeHead(200).write('\n');
    const ac = new AbortController();
    const watching = client.watch({
      path: '/api/v1/pods',
      inactivityMs: 5_000,
      signal: ac.signal,
      onEvent: () => undefined,
    });
    setTimeout(() => ac.abort(), 50);
    await expect(watching).resolves.toBeUndefined();
  });

  it('ends a request that gets no answer with a TimeoutError, also while the body is read', async () => {
    handler = () => undefined; // never answers
    const silent = await client
      .request({ path: '/api/v1/pods', timeoutMs: 100 })
      .catch((e: unknown) => e);
    expect(silent).toMatchObject({ name: 'TimeoutError' });
    handler = (_url, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"items":['); // …and the rest never comes
    };
    const stalled = await client
      .request({ path: '/api/v1/pods', timeoutMs: 100 })
      .catch((e: unknown) => e);
    expect(stalled).toMatchObject({ name: 'TimeoutError' });
    // The pool is still usable afterwards.
    handler = (_url, res) => res.end('{"ok":true}');
    await expect(client.request({ path: '/api/v1/pods', timeoutMs: 1_000 })).resolves.toEqual({
      ok: true,
    });
  });

  it("aborts with the caller's signal", async () => {
    handler = () => undefined;
    const ac = new AbortController();
    const pending = client.request({ path: '/api/v1/pods', signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  describe('with limits (a target cluster)', () => {
    it('fails an answer larger than the limit without reading the rest', async () => {
      let sent: Promise<number> = Promise.resolve(0);
      handler = (_url, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"items":[');
        sent = endless(res, `{"metadata":{"name":"${'x'.repeat(1000)}"}},`);
      };
      const err = await limited.request({ path: '/api/v1/configmaps' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ResponseTooLargeError);
      expect((err as Error).message).toBe(
        `GET /api/v1/configmaps: the answer exceeds ${LIMIT} bytes, the most Planwright reads from this server; the connection was closed`,
      );
      // What the server got out before the client hung up: the limit and socket buffers.
      expect(await sent).toBeLessThan(LIMIT + 8 * 1024 * 1024);
      handler = (_url, res) => res.end('{"ok":true}');
      await expect(limited.request({ path: '/api/v1/pods' })).resolves.toEqual({ ok: true });
    });

    it('ends a watch whose line never ends', async () => {
      let sent: Promise<number> = Promise.resolve(0);
      handler = (_url, res) => {
        res.writeHead(200);
        res.write(
          '{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"ADDED","object":"',
        );
        sent = endless(res, 'y'.repeat(4096));
      };
      const events: unknown[] = [];
      const err = await limited
        .watch({
          path: '/api/v1/configmaps',
          // Not what is tested: long enough that a starved test process (server and client
          // are both in it) never ends the watch as idle before the line reaches the limit.
          inactivityMs: 120_000,
          signal: new AbortController().signal,
          onEvent: (e) => events.push(e),
        })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ResponseTooLargeError);
      expect((err as ResponseTooLargeError).what).toBe('watch line');
      expect(events).toHaveLength(1);
      expect(await sent).toBeLessThan(LIMIT + 8 * 1024 * 1024);
    });

    it('cuts an error body at its limit instead of reading it to the end', async () => {
      let sent: Promise<number> = Promise.resolve(0);
      handler = (_url, res) => {
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        sent = endless(res, 'z'.repeat(1024));
      };
      const err = await limited.request({ path: '/api/v1/pods' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).statusCode).toBe(500);
      expect((err as ApiError).message).toContain('zzz');
      expect(await sent).toBeLessThan(8 * 1024 * 1024);
      // The home client too: an endless error body is cut at 64 KiB, not awaited.
      handler = (_url, res) => {
        res.writeHead(503);
        sent = endless(res, 'z'.repeat(1024));
      };
      await expect(client.request({ path: '/api/v1/pods' })).rejects.toMatchObject({
        statusCode: 503,
      });
      expect(await sent).toBeLessThan(8 * 1024 * 1024);
    });

    it('ends a watch after its deadline as if the server had closed it', async () => {
      let closed = false;
      handler = (_url, res) => {
        res.writeHead(200);
        const tick = setInterval(
          () => res.write('{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"7"}}}\n'),
          20,
        );
        res.on('close', () => {
          closed = true;
          clearInterval(tick);
        });
      };
      const events: unknown[] = [];
      await expect(
        limited.watch({
          path: '/api/v1/pods',
          inactivityMs: 5_000,
          signal: new AbortController().signal,
          onEvent: (e) => events.push(e),
        }),
      ).resolves.toBeUndefined();
      expect(events.length).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(closed).toBe(true);
    });
  });

  it('builds request paths with the query encoded, after a server path prefix', () => {
    expect(requestPath('', '/api/v1/pods', undefined)).toBe('/api/v1/pods');
    expect(
      requestPath('/k8s/clusters/c-1', '/api/v1/pods', {
        labelSelector: 'app in (a,b),tier!=x',
        limit: 500,
        continue: undefined,
        watch: true,
      }),
    ).toBe(
      '/k8s/clusters/c-1/api/v1/pods?labelSelector=app%20in%20(a%2Cb)%2Ctier!%3Dx&limit=500&watch=true',
    );
    expect(requestPath('', '/api/v1/pods?dryRun=All', { fieldManager: 'me' })).toBe(
      '/api/v1/pods?dryRun=All&fieldManager=me',
    );
    expect(new URLSearchParams(requestPath('', '/x', { q: 'a b&c=d' }).slice(3)).get('q')).toBe(
      'a b&c=d',
    );
  });

  it('asks the kubeconfig for credentials per request only when they can change', async () => {
    const seen: (string | undefined)[] = [];
    handler = (_url, res, req) => {
      seen.push(req.headers.authorization);
      res.end('{}');
    };
    const port = (server.address() as AddressInfo).port;
    /** Two requests as `user`: how often the kubeconfig was asked for credentials. */
    const twoRequests = async (user: object): Promise<number> => {
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'c', server: `http://127.0.0.1:${port}/`, skipTLSVerify: true }],
        users: [{ name: 'u', ...user }],
        contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
        currentContext: 'ctx',
      });
      let asked = 0;
      const apply = kc.applyToHTTPSOptions.bind(kc);
      kc.applyToHTTPSOptions = (opts) => {
        asked++;
        return apply(opts);
      };
      const c = new KubeClient(kc);
      await c.request({ path: '/a' });
      await c.request({ path: '/b' });
      c.close();
      return asked;
    };
    // A static token: read once, sent on every request.
    expect(await twoRequests({ token: 't1' })).toBe(1);
    expect(seen).toEqual(['Bearer t1', 'Bearer t1']);
    // An auth provider (here the in-cluster token file, which the kubelet rewrites): client-node
    // is asked again on every request (it decides when to re-read the file).
    const dir = await mkdtemp(join(tmpdir(), 'kube-client-'));
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, 'from-file');
    seen.length = 0;
    const asked = await twoRequests({ authProvider: { name: 'tokenFile', config: { tokenFile } } });
    await rm(dir, { recursive: true, force: true });
    expect(asked).toBe(2);
    expect(seen).toEqual(['Bearer from-file', 'Bearer from-file']);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
