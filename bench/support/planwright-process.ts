// Planwright's manager as users run it (the container's command: `node dist/main.js start`,
// compiled by tsc, not through the TypeScript loader), as a child process the bench can
// measure from outside.
import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import { ensureBuiltCli, PLANWRIGHT } from '../../test/integration/cli/built-cli.ts';
import { sleep } from '../../src/runtime/time.ts';

export interface PlanwrightProcess {
  readonly proc: ChildProcess;
  readonly pid: number;
  /** Everything it wrote so far (the tail). */
  log(): string;
  readonly exited: Promise<number | null>;
}

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
}): Promise<PlanwrightProcess> {
  await ensureBuiltCli();
  const proc = spawn(
    process.execPath,
    [
      '--enable-source-maps',
      PLANWRIGHT,
      'start',
      '--kubeconfig',
      options.kubeconfig,
      '--install',
      '--webhook-port',
      String(options.webhookPort),
      '--no-leader-election',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_ENV: 'production' } },
  );
  let log = '';
  const collect = (c: Buffer): void => {
    log = (log + c.toString()).slice(-20_000);
  };
  proc.stdout.on('data', collect);
  proc.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
  if (proc.pid === undefined) throw new Error(`cannot start ${PLANWRIGHT}`);
  const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`planwright exited (${proc.exitCode}):\n${log}`);
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(
        `planwright not ready after ${options.readyTimeoutMs ?? 120_000} ms:\n${log}`,
      );
    }
    // Registered webhooks too: readyz answers before, the log line comes after.
    if ((await readyz(options.webhookPort)) && /Planwright is running/.test(log)) break;
    await sleep(250);
  }
  return { proc, pid: proc.pid, log: () => log, exited };
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

/** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
export async function stopProcess(
  proc: ChildProcess,
  exited: Promise<unknown>,
  graceMs = 10_000,
): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
