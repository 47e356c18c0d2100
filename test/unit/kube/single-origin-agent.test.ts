// The client's https agent over real TLS (a local server with its own CA, client
// certificates as in a kubeconfig): one pool name whatever the request, connections reused
// across requests, the TLS material still used (a client without it is refused).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import tls, { type TLSSocket } from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../../../src/kube/index.ts';
import { SingleOriginAgent } from '../../../src/kube/client.ts';
import { createCertificateAuthority, issueCertificate } from '../../../src/pki/index.ts';

describe('SingleOriginAgent', () => {
  const ca = createCertificateAuthority({ commonName: 'test-ca' });
  const serving = issueCertificate(ca, {
    commonName: 'server',
    ipAddresses: ['127.0.0.1'],
    usage: 'server',
  });
  const user = issueCertificate(ca, { commonName: 'alice', usage: 'client' });
  let server: https.Server;
  let port = 0;
  const connections: string[] = [];

  beforeAll(async () => {
    server = https.createServer(
      { cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true },
      (req, res) => {
        const socket = req.socket as TLSSocket;
        res.end(
          JSON.stringify({
            user: socket.authorized ? socket.getPeerCertificate().subject.CN : null,
          }),
        );
      },
    );
    server.on('secureConnection', (s) => connections.push(`${s.remotePort}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const kubeConfig = (serverPort: number = port): KubeConfig => {
    const kc = new KubeConfig();
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    kc.loadFromOptions({
      clusters: [
        {
          name: 'c',
          server: `https://127.0.0.1:${serverPort}`,
          caData: b64(ca.certPem),
          skipTLSVerify: false,
        },
      ],
      users: [{ name: 'u', certData: b64(user.certPem), keyData: b64(user.keyPem) }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    return kc;
  };

  it('names its one pool the same for every request', () => {
    const agent = new SingleOriginAgent('pool', { keepAlive: true });
    expect(agent.getName()).toBe('pool');
    // https.Agent's own name changes with the request's TLS options; ours does not.
    expect(new https.Agent().getName({ host: 'a', ca: 'x' })).not.toBe(
      new https.Agent().getName({ host: 'a', ca: 'y' }),
    );
    expect(agent.getName({ host: 'a', ca: 'x' })).toBe(agent.getName({ host: 'b', ca: 'y' }));
    agent.destroy();
  });

  it('authenticates with the kubeconfig certificate and reuses one connection', async () => {
    const kc = kubeConfig();
    const client = new KubeClient(kc, 'local');
    const before = connections.length;
    try {
      for (let i = 0; i < 3; i++) {
        const body = await client.request<{ user: string | null }>({ path: '/api' });
        expect(body.user).toBe('alice');
      }
      expect(connections.length - before).toBe(1);
    } finally {
      client.close();
    }
  });

  it('builds its TLS context once, not per connection, and still verifies the server', async () => {
    // tls.connect builds a SecureContext from the PEM options unless one is passed in, through
    // the CommonJS module object patched here (the client's own, built through its ESM
    // import, is not counted): every build counted is one per connection.
    const original = tls.createSecureContext;
    let built = 0;
    tls.createSecureContext = (options) => {
      built++;
      return original(options);
    };
    const client = new KubeClient(kubeConfig(), 'local');
    const before = connections.length;
    try {
      // Concurrent requests on an empty pool: one new connection each.
      const bodies = await Promise.all(
        Array.from({ length: 4 }, () => client.request<{ user: string | null }>({ path: '/api' })),
      );
      expect(bodies.map((b) => b.user)).toEqual(['alice', 'alice', 'alice', 'alice']);
      expect(connections.length - before).toBe(4);
      expect(built).toBe(0);
    } finally {
      tls.createSecureContext = original;
      client.close();
    }
    // The same context still carries the CA: a server with another CA's certificate is refused.
    const other = createCertificateAuthority({ commonName: 'other-ca' });
    const impostor = issueCertificate(other, {
      commonName: 'server',
      ipAddresses: ['127.0.0.1'],
      usage: 'server',
    });
    const fake = https.createServer({ cert: impostor.certPem, key: impostor.keyPem }, (_q, r) =>
      r.end('{}'),
    );
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const misled = new KubeClient(kubeConfig((fake.address() as AddressInfo).port), 'local');
    try {
      await expect(misled.request({ path: '/api' })).rejects.toThrow(
        /self.signed|unable to verify|certificate/i,
      );
    } finally {
      misled.close();
      fake.closeAllConnections();
      await new Promise((resolve) => fake.close(resolve));
    }
  });
});
