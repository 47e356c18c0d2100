// Planwright's manager as users run it (the container's command: `node dist/main.js start`,
// compiled by tsc, not through the TypeScript loader), as a child process the bench can
// measure from outside.
import https from 'node:https';
import { MANAGER_NODE_FLAGS } from '../../src/cli/image.ts';
import { ensureBuiltCli, PLANWRIGHT } from '../../test/integration/cli/built-cli.ts';
import { sleep } from '../../src/runtime/time.ts';
import { spawnLogged, type LoggedChild } from './child.ts';

/**
 * Node flags of the manager: the Dockerfile's ENTRYPOINT by default (MANAGER_NODE_FLAGS),
 * BENCH_NODE_FLAGS to change them ("" for none).
 */
const NODE_FLAGS = (process.env['BENCH_NODE_FLAGS'] ?? MANAGER_NODE_FLAGS.join(' '))
  .split(' ')
  .filter((f) => f !== '');

/**
 * `planwright start --kubeconfig <kubeconfig> --install --webhook-port <port>
 * --no-leader-election`: it installs its CRDs and registers its webhooks at 127.0.0.1 itself,
 * as local mode does. Resolves once /readyz answers 200; fails with its log if it exits first
 * or is not ready within `readyTimeoutMs`.
 */
export async function startPlanwrightProcess(options: {
  readonly kubeconfig: string;
  readonly webhookPort: number;
  readonly readyTimeoutMs?: number;
  /** Run leader election (default: off, as KUDO's manager): a Lease held elsewhere keeps it a webhook-only replica. */
  readonly leaderElection?: boolean;
  /**
   * The `dist/main.js` of another checkout (built there beforehand with `npm run build`), to
   * run an earlier version beside this one; default this checkout's, built when stale.
   */
  readonly main?: string;
  /** Default true: install the CRDs and register the webhooks at this process (`--install`). */
  readonly install?: boolean;
  /** More `start` flags (e.g. `--shards 12`). */
  readonly args?: readonly string[];
}): Promise<LoggedChild> {
  if (options.main === undefined) await ensureBuiltCli();
  const child = spawnLogged(
    process.execPath,
    [
      ...NODE_FLAGS,
      options.main ?? PLANWRIGHT,
      'start',
      '--kubeconfig',
      options.kubeconfig,
      ...(options.install === false ? [] : ['--install']),
      '--webhook-port',
      String(options.webhookPort),
      ...(options.leaderElection ? [] : ['--no-leader-election']),
      ...(options.args ?? []),
    ],
    { ...process.env, NODE_ENV: 'production' },
  );
  const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
  for (;;) {
    if (child.proc.exitCode !== null)
      throw new Error(`planwright exited (${child.proc.exitCode}):\n${child.log()}`);
    if (Date.now() > deadline) {
      await child.stop(0);
      throw new Error(
        `planwright not ready after ${options.readyTimeoutMs ?? 120_000} ms:\n${child.log()}`,
      );
    }
    // Registered webhooks too: readyz answers before, the log line comes after.
    if ((await readyz(options.webhookPort)) && /Planwright is running/.test(child.log())) break;
    await sleep(250);
  }
  return child;
}

function readyz(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = https.get(
      { host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false, timeout: 2_000 },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

/** A local replica's /metrics (local mode: the development certificate, no authentication). */
export function localMetrics(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, path: '/metrics', rejectUnauthorized: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(text));
      })
      .on('error', reject);
  });
}
