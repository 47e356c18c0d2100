// Planwright as users start it: the built CLI (`node dist/main.js start --install`) in a child
// process, with every webhook configuration and default `planwright start` has. What a test
// adds is `--watch-namespaces` (its own namespaces), `--webhook-port 0` (a free port), and
// user-facing flags of the posture it is about (e.g. `--tenancy multi-tenant`).
//
// The registrations have fixed names and the leader Lease is one per cluster, so one child at
// a time runs per cluster: a lock (a directory next to the cluster's kubeconfig) is held from
// before the spawn until `stop()` has removed the registrations. Parallel jest workers of one
// project wait for each other; the projects' clusters are different ones.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import https from 'node:https';
import { dirname, join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { MANAGER_NODE_FLAGS } from '../../src/cli/image.ts';
import { webhookConfigurations } from '../../src/cli/install.ts';
import { KubeClient } from '../../src/kube/index.ts';
import { withDirectoryLock } from '../../src/localcluster/lock.ts';
import { ensureBuiltCli, PLANWRIGHT } from '../integration/cli/built-cli.ts';
import { kubeConfig } from './cluster.ts';

/** The configurations `start --install` registers (manifests/webhook/). */
export const START_CONFIGURATIONS = {
  mutating: 'planwright-instances',
  validating: 'planwright-validation',
} as const;

export interface StartedPlanwright {
  readonly proc: ChildProcess;
  /** The webhook server's port (it serves /metrics too). */
  readonly port: number;
  /** GET /metrics as a user scrapes it (local mode: the development certificate, no auth). */
  metrics(): Promise<string>;
  /** stdout and stderr so far (bounded). */
  log(): string;
  /** The last `n` lines of the log. */
  tail(n: number): string;
  /** SIGTERM, wait for the exit, and remove the registrations it made; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  readonly kubeconfig: string;
  /** `--watch-namespaces` value, e.g. `kuttl-test-*`, or the namespaces themselves. */
  readonly watchNamespaces: string | readonly string[];
  /** More `start` flags. */
  readonly args?: readonly string[];
  /**
   * Default true. False: no `--install` (a manager without the rights to install CRDs or
   * register webhooks; the test registers them, as `planwright init` would).
   */
  readonly install?: boolean;
  /**
   * Default `running`: resolves once it says it runs, its registrations checked. `listening`:
   * as soon as its webhook server listens, while it is still starting (registering, probing,
   * caches syncing) — for tests of a stop during startup; nothing is checked.
   */
  readonly until?: 'running' | 'listening';
}

/** One Planwright per cluster at a time: the lock's folder, next to the cluster's kubeconfig. */
function lockDir(kubeconfig: string): string {
  return join(dirname(kubeconfig), '.planwright-start.lock');
}

/**
 * Starts `planwright start --install` and resolves once it says it runs (its probes answered).
 * Waits first while another test file's Planwright runs on the same cluster.
 */
export async function startPlanwrightCli(options: StartOptions): Promise<StartedPlanwright> {
  await ensureBuiltCli();
  let acquired!: () => void;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (acquired = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  await mkdir(dirname(lockDir(options.kubeconfig)), { recursive: true });
  const lock = withDirectoryLock(
    lockDir(options.kubeconfig),
    {
      onWait: (pid) =>
        void process.stderr.write(
          `[planwright start] waiting for the Planwright of process ${pid} on this cluster to stop\n`,
        ),
    },
    () => {
      acquired();
      return released;
    },
  );
  await Promise.race([held, lock]);
  try {
    const started = await spawnStart(options);
    return {
      ...started,
      stop: async () => {
        try {
          return await started.stop();
        } finally {
          release();
          await lock;
        }
      },
    };
  } catch (err) {
    release();
    await lock;
    throw err;
  }
}

/**
 * The node arguments of `planwright start` as users run it (the node flags of `npm start` and
 * the image's ENTRYPOINT, the built CLI), on a free port, with `args` added.
 */
export function startArgv(options: {
  readonly kubeconfig: string;
  readonly install: boolean;
  readonly args: readonly string[];
}): string[] {
  return [
    ...MANAGER_NODE_FLAGS,
    PLANWRIGHT,
    'start',
    '--kubeconfig',
    options.kubeconfig,
    ...(options.install ? ['--install'] : []),
    '--webhook-port',
    '0',
    ...options.args,
  ];
}

async function spawnStart(options: StartOptions): Promise<StartedPlanwright> {
  const watch =
    typeof options.watchNamespaces === 'string'
      ? options.watchNamespaces
      : options.watchNamespaces.join(',');
  const proc = spawn(
    process.execPath,
    startArgv({
      kubeconfig: options.kubeconfig,
      install: options.install !== false,
      args: ['--watch-namespaces', watch, ...(options.args ?? [])],
    }),
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } },
  );
  let log = '';
  const collect = (c: Buffer): void => {
    log = (log + c.toString()).slice(-4_000_000);
  };
  proc.stdout?.on('data', collect);
  proc.stderr?.on('data', collect);
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const removeRegistrations = async (): Promise<void> => {
    // The registrations point at a port nobody serves any more.
    const api = kubeConfig(options.kubeconfig).makeApiClient(k8s.AdmissionregistrationV1Api);
    await api
      .deleteMutatingWebhookConfiguration({ name: START_CONFIGURATIONS.mutating })
      .catch(() => undefined);
    await api
      .deleteValidatingWebhookConfiguration({ name: START_CONFIGURATIONS.validating })
      .catch(() => undefined);
  };
  const stop = async (): Promise<number | null> => {
    proc.kill('SIGTERM');
    const code = await exited;
    await removeRegistrations();
    return code;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const marker =
        options.until === 'listening' ? 'Webhook server listening' : 'Planwright is running';
      const onData = (): void => {
        if (log.includes(marker)) {
          proc.stderr?.off('data', onData);
          resolve();
        }
      };
      proc.stderr?.on('data', onData);
      void exited.then((code) =>
        reject(new Error(`planwright start exited (${code}) before it ran:\n${log.slice(-4000)}`)),
      );
    });
    if (log.includes('does not call this process')) {
      throw new Error(`planwright start: the API server does not call its webhooks:\n${log}`);
    }
  } catch (err) {
    if (proc.exitCode === null) await stop();
    else await removeRegistrations();
    throw err;
  }
  const port = Number(/Webhook server listening on https:\/\/[^:]+:(\d+)/.exec(log)?.[1]);
  try {
    // Without --install the test registered the webhooks itself (as `planwright init` would).
    if (options.until !== 'listening' && options.install !== false)
      await expectStartConfigurations(options.kubeconfig);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    proc,
    port,
    metrics: () => scrape(port),
    log: () => log,
    tail: (n) => log.split('\n').slice(-n).join('\n'),
    stop,
  };
}

/** `curl -k https://127.0.0.1:<port>/metrics`: the development certificate is not the test's to trust. */
function scrape(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      { host: '127.0.0.1', port, path: '/metrics', rejectUnauthorized: false, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === 200) resolve(text);
          else reject(new Error(`GET /metrics: ${res.statusCode}: ${text.slice(0, 500)}`));
        });
      },
    );
    req.on('error', reject);
  });
}

/** The sum of a metric's samples in Prometheus' text format (every label set, or those matching `labels`). */
export function metricSum(
  text: string,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const set = m[2] ?? '';
    if (Object.entries(labels).every(([k, v]) => set.includes(`${k}=${JSON.stringify(v)}`)))
      sum += Number(m[3]);
  }
  return sum;
}

type Registration = Parameters<typeof webhookSettings>[0] & {
  readonly metadata?: { readonly name?: string };
};

/** The two configurations as the API server holds them now. */
export async function registeredConfigurations(
  kubeconfig: string,
): Promise<{ mutating: Registration; validating: Registration }> {
  const client = new KubeClient(kubeConfig(kubeconfig));
  const base = '/apis/admissionregistration.k8s.io/v1';
  try {
    return {
      mutating: await client.request({
        path: `${base}/mutatingwebhookconfigurations/${START_CONFIGURATIONS.mutating}`,
      }),
      validating: await client.request({
        path: `${base}/validatingwebhookconfigurations/${START_CONFIGURATIONS.validating}`,
      }),
    };
  } finally {
    client.close();
  }
}

/** The registrations differ from manifests/webhook/ in more than where they are served. */
export class WebhookConfigurationDriftError extends Error {
  override readonly name = 'WebhookConfigurationDriftError';
}

/**
 * Every test that starts Planwright through this harness checks what it registered: each
 * webhook's rules, failure policy, timeouts, selectors and review versions as manifests/webhook/
 * writes them (only URL, CA and the namespace match condition differ), and nothing missing.
 */
export async function expectStartConfigurations(kubeconfig: string): Promise<void> {
  const drift = configurationDrift(
    await webhookConfigurations(),
    await registeredConfigurations(kubeconfig),
  );
  if (drift !== undefined) throw new WebhookConfigurationDriftError(drift);
}

/** JSON with object keys sorted: equal for equal values whatever their key order or realm. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/** How the registrations differ from the manifests in behaviour; undefined when they do not. */
export function configurationDrift(
  manifests: ReadonlyArray<{ readonly kind?: string } & Registration>,
  registered: { readonly mutating: Registration; readonly validating: Registration },
): string | undefined {
  const pairs: Array<[string, Registration]> = [
    ['MutatingWebhookConfiguration', registered.mutating],
    ['ValidatingWebhookConfiguration', registered.validating],
  ];
  const kinds = manifests.map((m) => m.kind ?? '').sort();
  if (JSON.stringify(kinds) !== JSON.stringify(pairs.map(([k]) => k))) {
    return `manifests/webhook/ has ${kinds.join(', ')}; planwright start registers a MutatingWebhookConfiguration and a ValidatingWebhookConfiguration`;
  }
  for (const [kind, live] of pairs) {
    const got = webhookSettings(live);
    const want = webhookSettings(manifests.find((m) => m.kind === kind) ?? {});
    // The API server returns fields in an order of its own.
    if (canonical(got) !== canonical(want)) {
      return `${kind} ${live.metadata?.name ?? '?'}: registered ${JSON.stringify(got)}, manifests/webhook/ has ${JSON.stringify(want)}`;
    }
  }
  return undefined;
}

/** What makes a webhook behave: everything but where it is served (URL, CA) and match conditions. */
export interface WebhookSettings {
  readonly name: string;
  readonly rules: unknown;
  readonly failurePolicy: unknown;
  readonly sideEffects: unknown;
  readonly timeoutSeconds: unknown;
  readonly matchPolicy: unknown;
  readonly namespaceSelector: unknown;
  readonly objectSelector: unknown;
  readonly admissionReviewVersions: unknown;
  readonly reinvocationPolicy?: unknown;
}

/** The behaviour of each webhook of a configuration, by webhook name. */
export function webhookSettings(config: {
  webhooks?: ReadonlyArray<Record<string, unknown>> | undefined;
}): WebhookSettings[] {
  return (config.webhooks ?? [])
    .map((w) => ({
      name: String(w['name']),
      rules: w['rules'],
      failurePolicy: w['failurePolicy'],
      sideEffects: w['sideEffects'],
      timeoutSeconds: w['timeoutSeconds'],
      matchPolicy: w['matchPolicy'],
      namespaceSelector: w['namespaceSelector'],
      objectSelector: w['objectSelector'],
      admissionReviewVersions: w['admissionReviewVersions'],
      ...(w['reinvocationPolicy'] !== undefined
        ? { reinvocationPolicy: w['reinvocationPolicy'] }
        : {}),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
