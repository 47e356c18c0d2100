/**
 * Admission throughput and latency of the webhook server against a bare `node:https` server
 * giving the same answer, in the same run. Each server runs in its own process pinned to one
 * core (taskset, when available); autocannon drives it from this process over HTTPS
 * keep-alive.
 *
 *   node --import ./scripts/register-ts.mjs bench/server-admission.ts
 *
 * (the forked servers inherit the loader through execArgv)
 *
 * Figures: max reviews/s with 10 connections (autocannon, closed loop), and p50/p99 latency
 * at a fixed 1,000 reviews/s (open loop, see fixedRate), for each of BENCH_ROUNDS (3)
 * rounds of BENCH_DURATION_S (5) seconds that alternate the two servers; the summary is the
 * median round.
 */
import { fork } from 'node:child_process';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { createCertificateAuthority, issueCertificate } from '../src/pki/index.ts';
import { allow, StaticCertificateSource, WebhookServer } from '../src/server/index.ts';

type Kind = 'planwright' | 'bare';

const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 5);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);

const review = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
    requestResource: { group: '', version: 'v1', resource: 'configmaps' },
    name: 'settings',
    namespace: 'team-a',
    operation: 'CREATE',
    userInfo: { username: 'alice', uid: 'a1', groups: ['system:authenticated', 'devs'] },
    object: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'team-a', labels: { app: 'demo', tier: 'web' } },
      data: Object.fromEntries(
        Array.from({ length: 20 }, (_, i) => [`key-${i}`, `value-${i}-`.repeat(4)]),
      ),
    },
    oldObject: null,
    dryRun: false,
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
  },
});

async function serve(kind: Kind, pair: { certPem: string; keyPem: string }): Promise<number> {
  if (kind === 'planwright') {
    const server = new WebhookServer({
      port: 0,
      host: '127.0.0.1',
      tls: new StaticCertificateSource(pair),
      logger: pino({ level: 'silent' }),
      registry: new Registry(),
    });
    server.registerValidating('noop', () => allow());
    return (await server.listen(new AbortController().signal)).port;
  }
  const server = https.createServer(
    { cert: pair.certPem, key: pair.keyPem, minVersion: 'TLSv1.2', keepAlive: true },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          request: { uid: string };
        };
        const payload = JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid: body.request.uid, allowed: true },
        });
        res.writeHead(200, {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(payload),
        });
        res.end(payload);
      });
    },
  );
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

interface Figures {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  readonly non2xx: number;
}

async function load(port: number, path: string, options: { duration: number }): Promise<Figures> {
  const result = await autocannon({
    url: `https://127.0.0.1:${port}${path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: review,
    connections: 10,
    pipelining: 1,
    duration: options.duration,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/**
 * Open-loop load at a fixed rate: a request every `1000 / rate` ms whatever the answers do,
 * over a keep-alive agent of 10 sockets, latency measured per request. autocannon's
 * `overallRate` sends each second's budget in a burst at the start of the second, which
 * turns its p99 into queueing time of the burst rather than latency of the server.
 */
async function fixedRate(
  port: number,
  path: string,
  rate: number,
  seconds: number,
): Promise<Figures> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 10, rejectUnauthorized: false });
  const body = Buffer.from(review);
  const latencies: number[] = [];
  let errors = 0;
  let non2xx = 0;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const started = process.hrtime.bigint();
      const req = https.request(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          if ((res.statusCode ?? 0) >= 300) non2xx++;
          res.resume();
          res.on('end', () => {
            latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
  const inFlight: Array<Promise<void>> = [];
  const start = performance.now();
  const total = rate * seconds;
  // Every 2 ms, send what is due by now: at 1,000/s that is two requests per tick, and the
  // event loop gets to read answers in between (a tight loop would send everything at once).
  await new Promise<void>((done) => {
    const tick = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000));
      while (inFlight.length < due) inFlight.push(one());
      if (inFlight.length >= total) {
        clearInterval(tick);
        done();
      }
    }, 2);
  });
  await Promise.all(inFlight);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number): number =>
    Number((latencies[Math.floor(q * (latencies.length - 1))] ?? 0).toFixed(2));
  return {
    rps: latencies.length / ((performance.now() - start) / 1000),
    p50: at(0.5),
    p99: at(0.99),
    errors,
    non2xx,
  };
}

/**
 * The same fixed 1,000 reviews/s from wrk (C, Debian package `wrk`) when it is installed:
 * ten connections, each sending one review every 10 ms. A lighter client than Node's, so
 * its percentiles say more about the server; undefined when wrk is missing.
 */
function wrkPaced(port: number, path: string, seconds: number): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'pw-wrk-'));
  const script = join(dir, 'paced.lua');
  writeFileSync(join(dir, 'body.json'), review);
  writeFileSync(
    script,
    [
      'wrk.method = "POST"',
      'wrk.headers["Content-Type"] = "application/json"',
      `local f = io.open("${join(dir, 'body.json')}", "r"); wrk.body = f:read("*a"); f:close()`,
      'function delay() return 10 end',
      '',
    ].join('\n'),
  );
  const run = spawnSync(
    'taskset',
    [
      '-c',
      '1',
      'wrk',
      '-t1',
      '-c10',
      `-d${seconds}s`,
      '--latency',
      '-s',
      script,
      `https://127.0.0.1:${port}${path}`,
    ],
    { encoding: 'utf8' },
  );
  if (run.error || run.status !== 0) return undefined;
  const pick = (q: string): string =>
    new RegExp(`^\\s*${q}%\\s+(\\S+)`, 'm').exec(run.stdout)?.[1] ?? '?';
  const rate = /Requests\/sec:\s+(\S+)/.exec(run.stdout)?.[1] ?? '?';
  return `wrk paced ${rate}/s: p50 ${pick('50')}, p90 ${pick('90')}, p99 ${pick('99')}`;
}

function startChild(
  kind: Kind,
  pair: { certPem: string; keyPem: string },
): Promise<{ port: number; stop: () => void }> {
  const script = fileURLToPath(import.meta.url);
  let pinned = false;
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    pinned = true;
  } catch {
    // No taskset: unpinned (figures then depend on the scheduler).
  }
  const child = fork(script, ['serve', kind], { stdio: ['inherit', 'inherit', 'inherit', 'ipc'] });
  if (pinned && child.pid)
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(child.pid)], { stdio: 'ignore' });
  child.send(pair);
  return new Promise((resolve, reject) => {
    child.once('message', (message) =>
      resolve({ port: Number(message), stop: () => child.kill() }),
    );
    child.once('exit', (code) => reject(new Error(`server child exited with ${code}`)));
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

interface Round {
  readonly max: Figures;
  readonly fixed: Figures;
  readonly wrk: string | undefined;
}

async function main(): Promise<void> {
  if (process.argv[2] === 'serve') {
    const kind = process.argv[3] as Kind;
    process.once('message', (pair) => {
      void serve(kind, pair as { certPem: string; keyPem: string }).then((port) =>
        process.send?.(port),
      );
    });
    return;
  }
  process.env['NODE_TLS_REJECT_UNAUTHORIZED'] = '0';
  // The load generator gets the other core, so it never competes with the server measured.
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  } catch {
    // No taskset (or one core): unpinned.
  }
  const ca = createCertificateAuthority({ commonName: 'bench-ca' });
  const pair = issueCertificate(ca, {
    commonName: 'bench',
    ipAddresses: ['127.0.0.1'],
    usage: 'server',
  });
  const kinds = ['bare', 'planwright'] as const;
  const paths: Record<Kind, string> = { bare: '/', planwright: '/validate/noop' };
  // Both servers live for the whole run (the idle one costs nothing) and are measured in
  // alternating rounds: anything else the machine does lands on both, not on one.
  const children = {
    bare: await startChild('bare', pair),
    planwright: await startChild('planwright', pair),
  };
  const rounds: Record<Kind, Round[]> = { bare: [], planwright: [] };
  try {
    for (const kind of kinds) await load(children[kind].port, paths[kind], { duration: 3 }); // warm-up (JIT, TLS sessions)
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of kinds) {
        const { port } = children[kind];
        // Fixed rate first: after a saturating run the client's heap and the server's queues
        // would still be settling.
        const fixed = await fixedRate(port, paths[kind], 1000, DURATION_S);
        const max = await load(port, paths[kind], { duration: DURATION_S });
        const wrk = wrkPaced(port, paths[kind], DURATION_S);
        rounds[kind].push({ max, fixed, wrk });
      }
    }
  } finally {
    for (const kind of kinds) children[kind].stop();
  }
  const row = (name: string, r: Round): string =>
    `${name.padEnd(11)} max ${r.max.rps.toFixed(0).padStart(6)} reviews/s (p50 ${r.max.p50} ms, p99 ${r.max.p99} ms)` +
    ` | at 1000/s: p50 ${r.fixed.p50} ms, p99 ${r.fixed.p99} ms | errors ${r.max.errors + r.fixed.errors}, non-2xx ${r.max.non2xx + r.fixed.non2xx}` +
    (r.wrk ? `\n${' '.repeat(12)}${r.wrk}` : '');
  const lines = [
    `AdmissionReview (${review.length} bytes) over HTTPS keep-alive, 10 connections, server pinned to one core, ${DURATION_S}s per run, ${ROUNDS} alternating rounds`,
  ];
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const bare = rounds.bare[round] as Round;
    const pw = rounds.planwright[round] as Round;
    ratios.push(pw.max.rps / bare.max.rps);
    lines.push(
      `round ${round + 1}: throughput ratio ${(pw.max.rps / bare.max.rps).toFixed(2)}`,
      row('bare https', bare),
      row('planwright', pw),
    );
  }
  const p99s = rounds.planwright.map((r) => r.fixed.p99);
  lines.push(
    `median ratio planwright/bare throughput: ${median(ratios).toFixed(2)} (rounds ${ratios.map((r) => r.toFixed(2)).join(', ')}; target ≥ 0.80)`,
    `median planwright p99 at 1000/s: ${median(p99s)} ms (rounds ${p99s.join(', ')}; target < 5 ms)`,
    '',
  );
  process.stdout.write(lines.join('\n'));
}

await main();
