/**
 * What every command gets: the terminal, the environment, the root AbortSignal and the global
 * flags, and — only for commands that talk to a cluster — a connection made on first use
 * (kubeconfig, namespace of the current context, the soft CRD check).
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { KubeClient, KubeConfigError, loadKubeConfig, type KubeConfig } from '../kube/index.ts';
import { assertKudoCrds } from './crd-check.ts';
import { CliError } from './errors.ts';
import type { Terminal } from './io.ts';
import { KudoApi } from './kudo-api.ts';

/** The flags every command accepts (KUDO's global flags). */
export interface GlobalOptions {
  readonly namespace?: string;
  readonly kubeconfig?: string;
  readonly home?: string;
  /** Seconds; 0 = no timeout. */
  readonly requestTimeout?: number;
  readonly validateInstall?: boolean;
  readonly v?: number;
}

export interface Cluster {
  readonly kubeConfig: KubeConfig;
  readonly client: KubeClient;
  readonly api: KudoApi;
  /** --namespace, else the current context's namespace, else `default`. */
  readonly namespace: string;
  /** The per-request timeout of --request-timeout, when one was given. */
  readonly timeoutMs: number | undefined;
}

export interface CliContextOptions {
  readonly term: Terminal;
  readonly signal: AbortSignal;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Program name in messages and hints: `kubectl kudo` or `planwright`. */
  readonly commandName: string;
}

/** The longest timer Node accepts; "no timeout" for --request-timeout 0. */
const NO_TIMEOUT_MS = 2_147_483_647;

export class CliContext {
  readonly term: Terminal;
  readonly signal: AbortSignal;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly commandName: string;
  private clients: KubeClient[] = [];

  constructor(options: CliContextOptions) {
    this.term = options.term;
    this.signal = options.signal;
    this.env = options.env ?? process.env;
    this.cwd = options.cwd ?? process.cwd();
    this.commandName = options.commandName;
  }

  /** `$KUDO_HOME`-style folder holding repository/repositories.yaml (--home, $KUDO_HOME, ~/.kudo). */
  home(options: GlobalOptions): string {
    const explicit = options.home ?? this.env['KUDO_HOME'];
    return explicit ? resolve(this.cwd, explicit) : join(this.env['HOME'] ?? homedir(), '.kudo');
  }

  /** Connects to the cluster of the kubeconfig; checks the kudo.dev CRDs unless told not to. */
  async cluster(options: GlobalOptions, check = true): Promise<Cluster> {
    let kubeConfig: KubeConfig;
    try {
      kubeConfig = loadKubeConfig({
        kubeconfig: options.kubeconfig ? resolve(this.cwd, options.kubeconfig) : undefined,
        env: this.env,
      }).kubeConfig;
    } catch (err) {
      if (err instanceof KubeConfigError) {
        throw new CliError(
          `${err.message}. Point --kubeconfig or KUBECONFIG at the kubeconfig of your cluster`,
        );
      }
      throw err;
    }
    // One-shot commands wait out a 429 as KUDO's client-go does (right after `init`, the
    // apiserver answers reads of the new CRDs 429 while their watch cache fills).
    const client = new KubeClient(kubeConfig, 'local', { tooManyRequestsRetries: 10 });
    this.clients.push(client);
    const timeoutMs =
      options.requestTimeout === undefined
        ? undefined
        : options.requestTimeout === 0
          ? NO_TIMEOUT_MS
          : options.requestTimeout * 1000;
    const contextNamespace = kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace;
    const namespace = options.namespace || contextNamespace || 'default';
    if (check && options.validateInstall !== false) await assertKudoCrds(client, timeoutMs);
    return {
      kubeConfig,
      client,
      api: new KudoApi(client, timeoutMs, (warning) => this.term.err(`Warning: ${warning}`)),
      namespace,
      timeoutMs,
    };
  }

  /** Closes the connections the command opened (no open handles keep the process alive). */
  close(): void {
    for (const client of this.clients) client.close();
    this.clients = [];
  }
}
