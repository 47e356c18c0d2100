// A reverse proxy in front of the apiserver that counts the requests passing through it, by
// method and path: how a test sees which requests a Planwright child process sends (as
// `kubectl proxy` would show them to a user). The child gets a kubeconfig whose server is the
// proxy (plain HTTP on 127.0.0.1); the proxy forwards with the admin's credentials.
import { randomBytes } from 'node:crypto';
import { writeFile, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { kubeConfig } from './cluster.ts';

export interface CountingProxy {
  /**
   * A kubeconfig pointing at the proxy, next to the cluster's own (so harnesses that keep one
   * thing per cluster, keyed by the kubeconfig's folder, see the same cluster).
   */
  readonly kubeconfigPath: string;
  /** Requests so far with this method whose path (without the query) is `path`. */
  count(method: string, path: string): number;
  reset(): void;
  close(): Promise<void>;
}

export async function startCountingProxy(clusterKubeconfig: string): Promise<CountingProxy> {
  const kc = kubeConfig(clusterKubeconfig);
  const upstream = new URL(kc.getCurrentCluster()?.server ?? '');
  const tls: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(tls);
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const key = `${req.method ?? ''} ${(req.url ?? '').split('?')[0]}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const forward = https.request(
      {
        ...tls,
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    res.on('close', () => forward.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const kubeconfigPath = join(
    dirname(clusterKubeconfig),
    `proxy-${randomBytes(4).toString('hex')}.kubeconfig`,
  );
  await writeFile(
    kubeconfigPath,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      // Plain HTTP on loopback: @kubernetes/client-node sends to an http:// server only with
      // TLS verification off, and there is no TLS to verify.
      `- name: proxy\n  cluster:\n    server: http://127.0.0.1:${port}\n    insecure-skip-tls-verify: true`,
      'users:',
      '- name: proxy\n  user: {}',
      'contexts:',
      '- name: proxy\n  context:\n    cluster: proxy\n    user: proxy',
      'current-context: proxy',
      '',
    ].join('\n'),
  );
  return {
    kubeconfigPath,
    count: (method, path) => counts.get(`${method} ${path}`) ?? 0,
    reset: () => counts.clear(),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(kubeconfigPath, { force: true });
    },
  };
}
