// The client's https agent over real TLS (a local server with its own CA, client
// certificates as in a kubeconfig): one pool name whatever the request, connections reused
// across requests, the TLS material still used (a client without it is refused).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
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
    const kc = new KubeConfig();
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    kc.loadFromOptions({
      clusters: [
        {
          name: 'c',
          server: `https://127.0.0.1:${port}`,
          caData: b64(ca.certPem),
          skipTLSVerify: false,
        },
      ],
      users: [{ name: 'u', certData: b64(user.certPem), keyData: b64(user.keyPem) }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
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
});
