// Planwright as users start it: the built CLI (`node dist/main.js start --install`) in a child
// process, with every webhook configuration and default `planwright start` has. What a test
// adds is `--watch-namespaces` (its own namespaces) and `--webhook-port 0` (a free port).
// `start --install` registers cluster-wide webhook configurations under fixed names, as one
// Planwright per cluster does: test files sharing a control plane take turns (a lock beside the
// kubeconfig, held from start to stop) instead of overwriting each other's registrations.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
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
  /** stdout and stderr so far (bounded). */
  log(): string;
  /** The last `n` lines of the log. */
  tail(n: number): string;
  /** The webhook server's port (from its "listening" line). */
  readonly port: number;
  /** SIGTERM, wait for the exit, and remove the registrations it made; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  readonly kubeconfig: string;
  /** `--watch-namespaces` value, e.g. `kuttl-test-*`. */
  readonly watchNamespaces: string;
  /** More `start` flags. */
  readonly args?: readonly string[];
  /**
   * Default true. False: no `--install` (a manager without the rights to install CRDs or
   * register webhooks; the test registers them, as `planwright init` would).
   */
  readonly install?: boolean;
}

/** Takes the cross-process lock at `dir`; resolves with its release. */
async function holdLock(dir: string): Promise<() => Promise<void>> {
  let release: () => void = () => undefined;
  const released = new Promise<void>((r) => (release = r));
  let acquired: () => void = () => undefined;
  const taken = new Promise<void>((r) => (acquired = r));
  const held = withDirectoryLock(dir, {}, async () => {
    acquired();
    await released;
  });
  await Promise.race([taken, held]);
  return async () => {
    release();
    await held;
  };
}

/** Starts `planwright start --install` and resolves once it says it runs (its probes answered). */
export async function startPlanwrightCli(options: StartOptions): Promise<StartedPlanwright> {
  await ensureBuiltCli();
  const unlock = await holdLock(join(dirname(options.kubeconfig), 'planwright-start.lock'));
  try {
    return await spawnPlanwright(options, unlock);
  } catch (err) {
    await unlock();
    throw err;
  }
}

async function spawnPlanwright(
  options: StartOptions,
  unlock: () => Promise<void>,
): Promise<StartedPlanwright> {
  const proc = spawn(
    process.execPath,
    [
      // The node flags of `npm start` and the image's ENTRYPOINT.
      '--optimize-for-size',
      '--no-memory-reducer',
      PLANWRIGHT,
      'start',
      '--kubeconfig',
      options.kubeconfig,
      ...(options.install === false ? [] : ['--install']),
      '--webhook-port',
      '0',
      '--watch-namespaces',
      options.watchNamespaces,
      ...(options.args ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } },
  );
  let log = '';
  const collect = (c: Buffer): void => {
    log = (log + c.toString()).slice(-4_000_000);
  };
  proc.stdout?.on('data', collect);
  proc.stderr?.on('data', collect);
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  await new Promise<void>((resolve, reject) => {
    const onData = (): void => {
      if (log.includes('Planwright is running')) {
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
    proc.kill('SIGTERM');
    throw new Error(`planwright start: the API server does not call its webhooks:\n${log}`);
  }
  const port = Number(/Webhook server listening on https:\/\/[^:]+:(\d+)/.exec(log)?.[1] ?? 0);
  return {
    proc,
    port,
    log: () => log,
    tail: (n) => log.split('\n').slice(-n).join('\n'),
    stop: async () => {
      proc.kill('SIGTERM');
      const code = await exited;
      // The registrations point at a port nobody serves any more.
      const api = kubeConfig(options.kubeconfig).makeApiClient(k8s.AdmissionregistrationV1Api);
      await api
        .deleteMutatingWebhookConfiguration({ name: START_CONFIGURATIONS.mutating })
        .catch(() => undefined);
      await api
        .deleteValidatingWebhookConfiguration({ name: START_CONFIGURATIONS.validating })
        .catch(() => undefined);
      await unlock();
      return code;
    },
  };
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
