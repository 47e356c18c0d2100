// Stopping the server drains instead of cutting: a request the client sends on a kept-alive
// connection after stop began is still answered, with `Connection: close` (so the client
// does not send another on it), and the server closes once its connections are gone.
import { describe, expect, it } from '@jest/globals';
import https from 'node:https';
import { Registry } from 'prom-client';
import { createCertificateAuthority, issueCertificate } from '../../../src/pki/index.ts';
import { allow, StaticCertificateSource, WebhookServer } from '../../../src/server/index.ts';
import { configMapReview } from '../../support/admission.ts';
import { capturingLogger } from '../../support/https.ts';

const ca = createCertificateAuthority({ commonName: 'drain-ca' });
const leaf = issueCertificate(ca, {
  commonName: 'webhook',
  ipAddresses: ['127.0.0.1'],
  usage: 'server',
});

const body = JSON.stringify(configMapReview({ uid: 'u1' }));

function post(
  agent: https.Agent,
  port: number,
): Promise<{ status: number; connection: string | undefined; socket: unknown }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path: '/validate/noop',
        method: 'POST',
        ca: ca.certPem,
        agent,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            connection: res.headers.connection,
            socket: req.socket,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('WebhookServer stop', () => {
  it('answers a request sent on a kept-alive connection after stop began, closing that connection', async () => {
    const { logger } = capturingLogger();
    const server = new WebhookServer({
      port: 0,
      host: '127.0.0.1',
      tls: new StaticCertificateSource(leaf),
      logger,
      registry: new Registry(),
      shutdownGraceMs: 2_000,
    });
    server.registerValidating('noop', () => allow());
    const signal = new AbortController();
    const { port } = await server.listen(signal.signal);
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await post(agent, port);
      expect(first.status).toBe(200);
      expect(first.connection).toBe('keep-alive');

      const stopped = server.stop();
      // The same (idle, kept-alive) connection: the listener is closed, but this connection
      // still gets its answer.
      const second = await post(agent, port);
      expect(second.status).toBe(200);
      expect(second.socket).toBe(first.socket);
      expect(second.connection).toBe('close');
      await stopped;
      // Nothing listens any more.
      await expect(post(agent, port)).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      agent.destroy();
      signal.abort();
    }
  });
});
