// Planwright's manager as a child process (as shipped: the bundle's `dist/main.js start`), for the
// tests that kill it with SIGKILL and start it again, and what they read from outside: the
// manager's own metrics, and the apiserver's count of writes.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import { MANAGER_NODE_FLAGS } from '../../src/cli/image.ts';
import { ensureBuiltCli, PLANWRIGHT } from '../integration/cli/built-cli.ts';
import { testCluster } from './cluster.ts';
import { waitFor } from './wait.ts';

export interface ManagerProcess {
  readonly proc: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  log: string;
  readonly exited: Promise<number | null>;
}

/**
 * `planwright start --kubeconfig <kubeconfig> --webhook-port 0 --no-leader-election …args`
 * (`leaderElection: true` leaves the flag out; `webhookPort` replaces the 0), from this
 * checkout's dist/ (built first when a source is newer), or from `cwd`'s dist/ (another
 * checkout, built there beforehand) when given.
 */
export async function startManagerProcess(
  kubeconfig: string,
  args: readonly string[] = [],
  options: {
    readonly leaderElection?: boolean;
    readonly cwd?: string;
    readonly webhookPort?: number;
  } = {},
): Promise<ManagerProcess> {
  if (options.cwd === undefined) await ensureBuiltCli();
  const proc = spawn(
    process.execPath,
    [
      // The node flags of `npm start` and the image's ENTRYPOINT.
      ...MANAGER_NODE_FLAGS,
      options.cwd === undefined ? PLANWRIGHT : 'dist/main.js',
      'start',
      '--kubeconfig',
      kubeconfig,
      '--webhook-port',
      String(options.webhookPort ?? 0),
      ...(options.leaderElection ? [] : ['--no-leader-election']),
      ...args,
    ],
    {
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PLANWRIGHT_LOG_LEVEL: 'info' },
    },
  );
  const child: ManagerProcess = {
    proc,
    log: '',
    exited: new Promise((r) => proc.once('exit', (code) => r(code))),
  };
  proc.stdout?.on('data', (c: Buffer) => (child.log += c.toString()));
  proc.stderr?.on('data', (c: Buffer) => (child.log += c.toString()));
  return child;
}

/** The sum of a metric's samples whose labels contain `match`, in Prometheus text. */
export function sumMetric(text: string, name: string, match: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) && line.includes(match))
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Resolves once the manager's log says its controller started; the log's tail in the error. */
export async function waitForControllerStarted(
  manager: ManagerProcess,
  timeoutMs = 60_000,
): Promise<void> {
  await waitFor(
    'the manager to start its controller',
    () => manager.log.includes('controller started'),
    { timeoutMs },
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}; its log:\n${manager.log.slice(-4000)}`);
  });
}

/** The webhook port the manager's log names, once it listens. */
export function managerPort(manager: ManagerProcess): number | undefined {
  const port = /listening on https:\/\/127\.0\.0\.1:(\d+)/.exec(manager.log)?.[1];
  return port ? Number(port) : undefined;
}

/** The manager's /metrics, from the webhook port its log names (development certificate). */
export async function managerMetrics(manager: ManagerProcess): Promise<string | undefined> {
  const port = managerPort(manager);
  if (!port) return undefined;
  return new Promise((resolve, reject) => {
    https
      .get(`https://127.0.0.1:${port}/metrics`, { rejectUnauthorized: false }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

/** Writes per `VERB resource[/subresource]` from the apiserver's apiserver_request_total, for `resources`. */
export async function apiserverWriteCounts(
  kubeconfig: string,
  resources: readonly string[],
): Promise<Record<string, number>> {
  const text = await new Promise<string>((resolve, reject) =>
    execFile(
      testCluster().binaries.kubectl,
      ['--kubeconfig', kubeconfig, 'get', '--raw', '/metrics'],
      { maxBuffer: 64 * 1024 * 1024 },
      (err, stdout) => (err ? reject(new Error(err.message)) : resolve(stdout)),
    ),
  );
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    // A dry run stores nothing (`start --install` probes its webhooks with two).
    if (line.includes('dry_run="All"')) continue;
    const verb = /verb="([A-Z]+)"/.exec(line)?.[1] ?? '';
    const resource = /resource="([a-z]*)"/.exec(line)?.[1] ?? '';
    const subresource = /subresource="([a-z]*)"/.exec(line)?.[1] ?? '';
    if (!['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY', 'CREATE', 'UPDATE'].includes(verb)) continue;
    if (!resources.includes(resource)) continue;
    const key = subresource ? `${verb} ${resource}/${subresource}` : `${verb} ${resource}`;
    out[key] = (out[key] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return out;
}

/**
 * Resolves once the manager has reconciled at least `instances` Instances and its queue is
 * empty (its own metrics say so): after a restart, it has looked at everything.
 */
export async function waitForManagerCaughtUp(
  manager: ManagerProcess,
  instances: number,
  timeoutMs: number,
): Promise<void> {
  await waitFor(
    'the restarted manager to reconcile every Instance',
    async () => {
      const text = await managerMetrics(manager);
      if (text === undefined) return false;
      const done = sumMetric(text, 'controller_runtime_reconcile_total', 'controller="instances"');
      const depth = sumMetric(text, 'workqueue_depth', 'name="instances"');
      return done >= instances && depth === 0;
    },
    { timeoutMs, intervalMs: 500 },
  );
}
