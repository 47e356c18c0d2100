// Test-side HTTPS client and log capture for talking to the webhook server directly.
import https from 'node:https';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export interface HttpsResult {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** One HTTPS request trusting `ca`; never throws on status. */
export function httpsRequest(options: {
  /** Default 127.0.0.1. */
  host?: string;
  port: number;
  path: string;
  ca: string;
  method?: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  agent?: https.Agent;
  servername?: string;
}): Promise<HttpsResult> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: options.host ?? '127.0.0.1',
        port: options.port,
        path: options.path,
        method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
        headers: options.headers,
        ca: options.ca,
        agent: options.agent ?? false,
        servername: options.servername,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A pino logger whose JSON lines are kept in `lines` for assertions. */
export function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      cb();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}
