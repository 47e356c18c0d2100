/**
 * A kubeconfig without @kubernetes/client-node's generated API. client-node's `KubeConfig`
 * lives in a module that imports every generated API client and model (about 1,000 modules,
 * 25 MB of JavaScript) for `makeApiClient`, which Planwright never calls (its own KubeClient
 * speaks to the API): loading it costs every process that does — the manager and each render
 * worker — about 50 MiB resident (bench/README.md, "Lean").
 *
 * {@link LiteKubeConfig} reads kubeconfigs with client-node's own entry parsers
 * (config_types.js) and answers the part of `KubeConfig` Planwright uses ({@link KubeConfig}),
 * filling request options as client-node's `applyToHTTPSOptions` does for the users the
 * manager runs with: client certificates, tokens, basic auth, impersonation, and the
 * service-account token file (client-node's own FileAuth, re-read every minute). A user
 * whose credentials come from an exec plugin or another auth provider (OIDC, cloud CLIs) is
 * handed to client-node's KubeConfig itself, loaded when such a user first makes a request.
 * test/unit/kube/kubeconfig.test.ts compares both on the same files.
 */
import { readFileSync, existsSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { dirname, isAbsolute, join } from 'node:path';
import type * as https from 'node:https';
import type * as ClientNode from '@kubernetes/client-node';
import type { KubeConfig as ClientNodeKubeConfig } from '@kubernetes/client-node';
import {
  newClusters,
  newContexts,
  newUsers,
  type Cluster,
  type Context,
  type User,
} from '@kubernetes/client-node/dist/config_types.js';
import { FileAuth } from '@kubernetes/client-node/dist/file_auth.js';
import { parse } from 'yaml';

/**
 * What Planwright uses of a kubeconfig. client-node's `KubeConfig` has all of it, so callers
 * (tests, tools) may pass one; the manager builds {@link LiteKubeConfig}s.
 */
export type KubeConfig = Pick<
  ClientNodeKubeConfig,
  | 'getContexts'
  | 'getClusters'
  | 'getUsers'
  | 'getCurrentContext'
  | 'getContextObject'
  | 'getCurrentCluster'
  | 'getCurrentUser'
  | 'applyToHTTPSOptions'
>;

/** The parts of a kubeconfig, as client-node's `loadFromOptions` takes them. */
export interface KubeConfigParts {
  readonly clusters: Cluster[];
  readonly users: User[];
  readonly contexts: Context[];
  readonly currentContext: string;
}

const IN_CLUSTER_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export class LiteKubeConfig implements KubeConfig {
  private clusters: Cluster[] = [];
  private users: User[] = [];
  private contexts: Context[] = [];
  private currentContext = '';
  /** The service-account token file's reader (keeps the token for a minute, as client-go). */
  private readonly fileAuth = new FileAuth();
  /** client-node's KubeConfig for users whose credentials a plugin makes (loaded on first use). */
  private delegate: Promise<ClientNodeKubeConfig> | undefined;

  /** Reads a kubeconfig file; relative certificate paths are taken from the file's folder. */
  loadFromFile(file: string): void {
    this.loadFromString(readFileSync(file, 'utf8'));
    const root = dirname(file);
    const absolute = (path: string): string => (isAbsolute(path) ? path : join(root, path));
    for (const cluster of this.clusters) {
      if (cluster.caFile) cluster.caFile = absolute(cluster.caFile);
    }
    for (const user of this.users) {
      if (user.certFile) user.certFile = absolute(user.certFile);
      if (user.keyFile) user.keyFile = absolute(user.keyFile);
    }
  }

  loadFromString(text: string): void {
    const doc = (parse(text) ?? {}) as Record<string, unknown>;
    this.clusters = newClusters(doc['clusters']);
    this.contexts = newContexts(doc['contexts']);
    this.users = newUsers(doc['users']);
    const current = doc['current-context'];
    this.currentContext = typeof current === 'string' ? current : '';
    this.delegate = undefined;
  }

  loadFromOptions(parts: KubeConfigParts): void {
    this.clusters = [...parts.clusters];
    this.users = [...parts.users];
    this.contexts = [...parts.contexts];
    this.currentContext = parts.currentContext;
    this.delegate = undefined;
  }

  /**
   * The pod's service account: the API server from KUBERNETES_SERVICE_HOST/PORT, the CA and
   * token files under `root` + /var/run/secrets/kubernetes.io/serviceaccount (as client-node).
   */
  loadFromCluster(root = '', env: NodeJS.ProcessEnv = process.env): void {
    const host = env['KUBERNETES_SERVICE_HOST'] ?? '';
    const port = env['KUBERNETES_SERVICE_PORT'] ?? '';
    const scheme = port === '80' || port === '8080' || port === '8001' ? 'http' : 'https';
    const dir = `${root}${IN_CLUSTER_DIR}`;
    const namespaceFile = `${dir}/namespace`;
    this.loadFromOptions({
      clusters: [
        {
          name: 'inCluster',
          caFile: `${dir}/ca.crt`,
          server: `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`,
          skipTLSVerify: false,
        },
      ],
      users: [
        {
          name: 'inClusterUser',
          authProvider: { name: 'tokenFile', config: { tokenFile: `${dir}/token` } },
        },
      ],
      contexts: [
        {
          cluster: 'inCluster',
          name: 'inClusterContext',
          user: 'inClusterUser',
          namespace: existsSync(namespaceFile) ? readFileSync(namespaceFile, 'utf8') : undefined,
        },
      ],
      currentContext: 'inClusterContext',
    });
  }

  setCurrentContext(name: string): void {
    this.currentContext = name;
  }

  getContexts(): Context[] {
    return this.contexts;
  }

  getClusters(): Cluster[] {
    return this.clusters;
  }

  getUsers(): User[] {
    return this.users;
  }

  getCurrentContext(): string {
    return this.currentContext;
  }

  getContextObject(name: string): Context | null {
    return this.contexts.find((c) => c.name === name) ?? null;
  }

  getCurrentCluster(): Cluster | null {
    const context = this.getContextObject(this.currentContext);
    return context ? (this.clusters.find((c) => c.name === context.cluster) ?? null) : null;
  }

  getCurrentUser(): User | null {
    const context = this.getContextObject(this.currentContext);
    return context ? (this.users.find((u) => u.name === context.user) ?? null) : null;
  }

  /**
   * TLS material, headers and basic auth of the current user, as client-node's
   * `applyToHTTPSOptions` sets them (without its agent: KubeClient makes its own).
   */
  async applyToHTTPSOptions(opts: https.RequestOptions): Promise<void> {
    const user = this.getCurrentUser();
    if (!user) return;
    if (pluginCredentials(user)) {
      this.delegate ??= clientNodeKubeConfig(this);
      await (await this.delegate).applyToHTTPSOptions(opts);
      return;
    }
    const cluster = this.getCurrentCluster();
    if (cluster?.skipTLSVerify) opts.rejectUnauthorized = false;
    if (cluster?.tlsServerName) opts.servername = cluster.tlsServerName;
    const ca = cluster ? fileOrData(cluster.caFile, cluster.caData) : undefined;
    if (ca) opts.ca = ca;
    const cert = fileOrData(user.certFile, user.certData);
    if (cert) opts.cert = cert;
    const key = fileOrData(user.keyFile, user.keyData);
    if (key) opts.key = key;
    const headers = (opts.headers ??= {}) as Record<string, string>;
    if (user.impersonateUser != null) headers['Impersonate-User'] = user.impersonateUser;
    if (this.fileAuth.isAuthProvider(user)) await this.fileAuth.applyAuthentication(user, opts);
    if (user.token) headers['Authorization'] = `Bearer ${user.token}`;
    if (user.username) opts.auth = `${user.username}:${user.password}`;
  }
}

/** Whether the user's credentials come from an exec plugin or an auth provider (not a token file). */
function pluginCredentials(user: User): boolean {
  if (user.exec) return true;
  // client-node's parser leaves absent fields null.
  const provider = user.authProvider as { config?: { tokenFile?: unknown } } | null | undefined;
  return provider != null && !provider.config?.tokenFile;
}

/** A file's bytes, or base64 data decoded (the file wins, as in client-node). */
function fileOrData(file: string | undefined, data: string | undefined): Buffer | undefined {
  if (file) return readFileSync(file);
  if (data) return Buffer.from(data, 'base64');
  return undefined;
}

/**
 * client-node's whole module, for what needs it: exec plugins, auth providers, its Exec for
 * Pipe tasks. Loaded without its source maps (7 MB of them, ~14 MiB held for good once read;
 * bench/README.md): they are switched off while it loads and on again if they were on.
 */
export async function loadClientNode(): Promise<typeof ClientNode> {
  const enabled = process.sourceMapsEnabled;
  process.setSourceMapsEnabled(false);
  try {
    return await import('@kubernetes/client-node');
  } finally {
    if (enabled) process.setSourceMapsEnabled(true);
  }
}

/** client-node's own KubeConfig with the same entries (see {@link loadClientNode}). */
export async function clientNodeKubeConfig(kc: KubeConfig): Promise<ClientNodeKubeConfig> {
  const { KubeConfig: Full } = await loadClientNode();
  const full = new Full();
  full.loadFromOptions({
    clusters: kc.getClusters(),
    users: kc.getUsers(),
    contexts: kc.getContexts(),
    currentContext: kc.getCurrentContext(),
  });
  return full;
}
