import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';

export interface ProbeTls {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
}

export interface ProbeResult {
  readonly status: number;
  readonly body: string;
}

/**
 * One small HTTP(S) request with a hard timeout, used for readiness probes and for etcd's
 * JSON gateway. Connection errors reject; HTTP errors resolve with their status.
 */
export async function probe(
  url: string,
  options: { tls?: ProbeTls; method?: string; body?: string; timeoutMs?: number } = {},
): Promise<ProbeResult> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      {
        method: options.method ?? 'GET',
        timeout: options.timeoutMs ?? 5_000,
        agent: false,
        headers: options.body ? { 'content-type': 'application/json' } : {},
        ca: options.tls?.caPem,
        cert: options.tls?.certPem,
        key: options.tls?.keyPem,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`timeout after ${options.timeoutMs ?? 5000} ms`)),
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
