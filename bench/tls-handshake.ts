// What one webhook connection costs each side, by serving-key kind: a node:https server (as
// the webhook server: TLS 1.2+, keep-alive) in a child process, this process as the client.
// For RSA-2048 and ECDSA P-256 leaf keys (CA of the same kind, made with the openssl CLI),
// BENCH_N full handshakes (no session reuse, one small POST each, as kube-apiserver opens
// them) and BENCH_N POSTs on one kept-alive connection (a call without a handshake); CPU of
// the server process from /proc, of the client from process.cpuUsage, per connection/call.
// The client is Node, not Go: the signature checks cost the same in kind (a Go client
// verifies the chain and the handshake signature too), the rest of the stack does not.
// Run: node --import ./scripts/register-ts.mjs bench/tls-handshake.ts   (BENCH_N=1000, BENCH_ROUNDS=2)
import { execFileSync, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSecondsOf } from './support/process-stats.ts';

const N = Number(process.env['BENCH_N'] ?? 1_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 2);
const BODY = JSON.stringify({ kind: 'AdmissionReview', request: { uid: 'x'.repeat(36) } });

if (process.argv[2] === 'serve') {
  const [cert, key] = [process.argv[3] ?? '', process.argv[4] ?? ''];
  const server = https.createServer(
    { cert: readFileSync(cert), key: readFileSync(key), minVersion: 'TLSv1.2', keepAlive: true },
    (req, res) => {
      req.resume();
      req.on('end', () => res.end(BODY));
    },
  );
  server.keepAliveTimeout = 120_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.(typeof address === 'object' && address ? address.port : 0);
  });
} else {
  const dir = mkdtempSync(join(tmpdir(), 'tls-handshake-'));
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { stdio: 'ignore' });
  };
  // A CA and a leaf for 127.0.0.1, both of `kind`.
  const sanPair = (kind: 'rsa' | 'ecdsa'): { ca: string; cert: string; key: string } => {
    const ext = join(dir, 'san.ext');
    execFileSync('sh', ['-c', `printf 'subjectAltName=IP:127.0.0.1\\n' > ${ext}`]);
    const alg =
      kind === 'rsa'
        ? ['-newkey', 'rsa:2048']
        : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
    const p = (name: string): string => join(dir, `${kind}-${name}`);
    openssl(
      'req',
      '-x509',
      ...alg,
      '-nodes',
      '-keyout',
      p('ca.key'),
      '-out',
      p('ca.crt'),
      '-subj',
      '/CN=bench-ca',
      '-days',
      '2',
    );
    openssl(
      'req',
      ...alg,
      '-nodes',
      '-keyout',
      p('tls.key'),
      '-out',
      p('tls.csr'),
      '-subj',
      '/CN=webhook',
    );
    openssl(
      'x509',
      '-req',
      '-in',
      p('tls.csr'),
      '-CA',
      p('ca.crt'),
      '-CAkey',
      p('ca.key'),
      '-CAcreateserial',
      '-out',
      p('tls.crt'),
      '-days',
      '2',
      '-extfile',
      ext,
    );
    return { ca: p('ca.crt'), cert: p('tls.crt'), key: p('tls.key') };
  };
  const post = (port: number, ca: string, agent: https.Agent | false): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = https.request(
        { host: '127.0.0.1', port, method: 'POST', path: '/validate/x', ca, agent, servername: '' },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(BODY);
    });
  try {
    const kinds = { rsa: sanPair('rsa'), ecdsa: sanPair('ecdsa') } as const;
    const rows: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['rsa', 'ecdsa'] as const) : (['ecdsa', 'rsa'] as const);
      for (const kind of order) {
        const files = kinds[kind];
        const ca = readFileSync(files.ca, 'utf8');
        const child = fork(new URL(import.meta.url).pathname, ['serve', files.cert, files.key], {
          execArgv: process.execArgv,
        });
        const port = await new Promise<number>((resolve) =>
          child.once('message', (m) => resolve(Number(m))),
        );
        // Warm up both sides.
        for (let i = 0; i < 50; i++) await post(port, ca, false);
        const measure = async (run: () => Promise<void>): Promise<[number, number]> => {
          const s0 = cpuSecondsOf(child.pid ?? 0);
          const c0 = process.cpuUsage();
          await run();
          const c = process.cpuUsage(c0);
          return [((cpuSecondsOf(child.pid ?? 0) - s0) * 1e3) / N, (c.user + c.system) / 1e3 / N];
        };
        // agent false: a new connection and a full handshake per POST (no session ticket kept).
        const [fs, fc] = await measure(async () => {
          for (let i = 0; i < N; i++) await post(port, ca, false);
        });
        const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca });
        const [ks, kc] = await measure(async () => {
          for (let i = 0; i < N; i++) await post(port, ca, agent);
        });
        agent.destroy();
        child.kill();
        rows.push(
          `round ${round + 1} ${kind.padEnd(5)}  new connection per POST: server ${fs.toFixed(3)} ms, client ${fc.toFixed(3)} ms | POST on a kept connection: server ${ks.toFixed(3)} ms, client ${kc.toFixed(3)} ms`,
        );
        console.error(rows.at(-1));
      }
    }
    console.log(
      `\nCPU per POST (${N} per shape and round, load ${(loadavg()[0] ?? 0).toFixed(2)}):\n${rows.join('\n')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
