// The raw client against a scripted local HTTP server: status codes, Retry-After, watch
// streaming, inactivity timeout, and clean close.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import {
  ApiError,
  KubeClient,
  WatchInactivityError,
  parseRetryAfter,
} from '../../../src/kube/index.ts';

type Handler = (url: URL, res: ServerResponse, req: IncomingMessage) => void;

describe('KubeClient', () => {
  let server: Server;
  let handler: Handler = (_url, res) => res.end('{}');
  let client: KubeClient;
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
  });

  afterAll(async () => {
    client.close();
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

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
