/**
 * A kubeconfig for a *target* cluster, read from the bytes of a Secret (never from a file or
 * the environment) and rebuilt from an allowlist of fields: per cluster `server`,
 * `certificate-authority-data` and `tls-server-name`; per user `client-certificate-data`,
 * `client-key-data` and `token`; per context `cluster`, `user` and `namespace`. Any other field
 * of any entry — not only the current context's: @kubernetes/client-node reads `token-file` of
 * every user while loading — is refused with its place named, because the library would act
 * on it on a tenant's behalf: read a file of the manager (`token-file`,
 * `certificate-authority`, `client-certificate`, `client-key`, an auth-provider's
 * `tokenFile`), run a program (`exec`, the gcp/azure auth-providers' `cmd-path`), send the
 * traffic through a proxy of the tenant's choosing (`proxy-url`), or act as someone else
 * (`as`). These refusals hold whatever the manager's flags say.
 *
 * `allowUnsafe` (the manager's `--allow-unsafe-kubeconfig`) covers the transport only: a
 * cluster with `insecure-skip-tls-verify: true`, or a plain-http server URL. A server address
 * in a refused range (loopback, link-local, pod and Service networks: target-server.ts) is
 * refused unless the administrator allowed it; a host name is judged where it resolves.
 *
 * The KubeConfig returned is built from the allowlisted values alone (loadFromOptions), so a
 * field this module does not know never reaches the client. See examples/api/kube.ts.
 */
import { LiteKubeConfig, type KubeConfig } from './kubeconfig.ts';
import { parse } from 'yaml';
import { KubeConfigError } from './errors.ts';
import { TargetServerPolicy } from './target-server.ts';

export interface TargetKubeconfigOptions {
  /** Where the text came from, for messages (`Secret ns/name, key value`). */
  readonly source: string;
  /** Let `insecure-skip-tls-verify` and plain-http servers through. Default false. */
  readonly allowUnsafe?: boolean;
  /** Which server addresses are refused (target-server.ts). Default: the default policy. */
  readonly servers?: TargetServerPolicy;
}

/** Largest kubeconfig accepted (Secrets are at most 1 MiB anyway). */
export const MAX_TARGET_KUBECONFIG_BYTES = 256 * 1024;

type Json = Record<string, unknown>;

function record(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Json)
    : undefined;
}

/** Fields of each part that carry data only; `extensions` is data no client reads. */
const CLUSTER_FIELDS: ReadonlySet<string> = new Set([
  'server',
  'certificate-authority-data',
  'tls-server-name',
  'insecure-skip-tls-verify',
  'extensions',
]);
const USER_FIELDS: ReadonlySet<string> = new Set([
  'client-certificate-data',
  'client-key-data',
  'token',
  'extensions',
]);
const CONTEXT_FIELDS: ReadonlySet<string> = new Set(['cluster', 'user', 'namespace', 'extensions']);
const ROOT_FIELDS: ReadonlySet<string> = new Set([
  'apiVersion',
  'kind',
  'clusters',
  'users',
  'contexts',
  'current-context',
  'preferences',
  'extensions',
]);

/** Why a field outside the allowlist is refused, for the message (what it would make us do). */
const REASONS: ReadonlyMap<string, string> = new Map([
  ['certificate-authority', "reads a file of the manager's file system"],
  ['client-certificate', "reads a file of the manager's file system"],
  ['client-key', "reads a file of the manager's file system"],
  ['token-file', "reads a file of the manager's file system"],
  ['tokenFile', "reads a file of the manager's file system"],
  ['exec', 'runs a program in the manager'],
  ['auth-provider', 'runs an auth-provider plugin (programs, files) in the manager'],
  ['proxy-url', 'sends the traffic through a proxy'],
  ['as', 'impersonates another user'],
  ['as-groups', 'impersonates groups'],
  ['as-uid', 'impersonates another user'],
  ['as-user-extra', 'impersonates another user'],
  ['username', 'uses basic authentication'],
  ['password', 'uses basic authentication'],
]);

interface Part {
  readonly list: string;
  readonly field: string;
  readonly allowed: ReadonlySet<string>;
}

const PARTS: readonly Part[] = [
  { list: 'clusters', field: 'cluster', allowed: CLUSTER_FIELDS },
  { list: 'users', field: 'user', allowed: USER_FIELDS },
  { list: 'contexts', field: 'context', allowed: CONTEXT_FIELDS },
];

/**
 * Every field of the document outside the allowlist, each as `<where>: <field> (<why>)`, and
 * the transport features `allowUnsafe` governs, separately.
 */
export function refusedKubeconfigFields(doc: Json): { refused: string[]; unsafe: string[] } {
  const refused: string[] = [];
  const unsafe: string[] = [];
  for (const key of Object.keys(doc)) {
    if (!ROOT_FIELDS.has(key)) refused.push(`${key} (not a kubeconfig field Planwright reads)`);
  }
  for (const part of PARTS) {
    const list = doc[part.list];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) {
      refused.push(`${part.list} (not a list)`);
      continue;
    }
    list.forEach((item: unknown, i) => {
      const entry = record(item);
      const name = typeof entry?.['name'] === 'string' ? entry['name'] : `#${i}`;
      const where = `${part.field} "${name}"`;
      const body = record(entry?.[part.field]);
      if (!entry || !body) {
        refused.push(`${part.list}[${i}] (an entry needs a name and a ${part.field} mapping)`);
        return;
      }
      for (const key of Object.keys(entry)) {
        if (key !== 'name' && key !== part.field) refused.push(`${where}: ${key} (unknown field)`);
      }
      for (const key of Object.keys(body)) {
        if (!part.allowed.has(key)) {
          refused.push(`${where}: ${key} (${REASONS.get(key) ?? 'not an allowed field'})`);
        } else if (key === 'insecure-skip-tls-verify' && body[key] !== false) {
          unsafe.push(`${where}: insecure-skip-tls-verify (TLS without server verification)`);
        } else if (key !== 'extensions' && key !== 'insecure-skip-tls-verify') {
          if (typeof body[key] !== 'string') refused.push(`${where}: ${key} (not a string)`);
        }
      }
    });
  }
  return { refused, unsafe };
}

/** The entries of a list by name; a name twice is refused (which one the client used is unclear). */
function byName(doc: Json, list: string, field: string, source: string): Map<string, Json> {
  const out = new Map<string, Json>();
  const items = Array.isArray(doc[list]) ? (doc[list] as unknown[]) : [];
  for (const item of items) {
    const entry = record(item) ?? {};
    const name = entry['name'];
    if (typeof name !== 'string' || name === '') {
      throw new KubeConfigError(`an entry of ${list} has no name`, source);
    }
    if (out.has(name)) throw new KubeConfigError(`${field} "${name}" is defined twice`, source);
    out.set(name, record(entry[field]) ?? {});
  }
  return out;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function parseDocument(input: string, source: string): Json {
  if (Buffer.byteLength(input) > MAX_TARGET_KUBECONFIG_BYTES) {
    throw new KubeConfigError(
      `the kubeconfig is larger than ${MAX_TARGET_KUBECONFIG_BYTES} bytes`,
      source,
    );
  }
  let doc: Json | undefined;
  try {
    doc = record(parse(input, { maxAliasCount: 100 }));
  } catch (err) {
    throw new KubeConfigError(
      `the kubeconfig is not valid YAML: ${(err as Error).message.split('\n')[0] ?? ''}`,
      source,
    );
  }
  if (!doc) throw new KubeConfigError('the kubeconfig is not a YAML mapping', source);
  return doc;
}

/**
 * A server URL the manager may send a target's requests to: https (http only when unsafe
 * transports are allowed), at an address the server policy does not refuse.
 */
function checkServer(server: string, clusterName: string, options: TargetKubeconfigOptions): void {
  const { source } = options;
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new KubeConfigError(
      `cluster "${clusterName}" has an invalid server URL "${server}"`,
      source,
    );
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.allowUnsafe)) {
    throw new KubeConfigError(
      `cluster "${clusterName}" is reached over ${url.protocol.replace(':', '')}, not https: credentials would travel in clear text; use an https server URL`,
      source,
    );
  }
  const address = (options.servers ?? new TargetServerPolicy()).refusalOfUrl(url);
  if (address !== undefined) {
    throw new KubeConfigError(`cluster "${clusterName}" (server ${server}): ${address}`, source);
  }
}

/** Parses and checks a target kubeconfig; throws {@link KubeConfigError} saying what to fix. */
export function parseTargetKubeconfig(input: string, options: TargetKubeconfigOptions): KubeConfig {
  const { source } = options;
  const doc = parseDocument(input, source);
  const context = doc['current-context'];
  if (typeof context !== 'string' || context === '') {
    throw new KubeConfigError('the kubeconfig sets no current-context', source);
  }
  const { refused, unsafe } = refusedKubeconfigFields(doc);
  if (refused.length > 0) {
    throw new KubeConfigError(
      `the kubeconfig uses ${refused.join(', ')}, which Planwright refuses for target clusters whatever its flags: a target kubeconfig may hold only server, certificate-authority-data, tls-server-name, client-certificate-data, client-key-data and token (embed the credentials as data)`,
      source,
    );
  }
  if (unsafe.length > 0 && !options.allowUnsafe) {
    throw new KubeConfigError(
      `the kubeconfig uses ${unsafe.join(', ')}, which Planwright refuses for target clusters: set certificate-authority-data instead, or start the manager with --allow-unsafe-kubeconfig`,
      source,
    );
  }
  const contexts = byName(doc, 'contexts', 'context', source);
  const clusters = byName(doc, 'clusters', 'cluster', source);
  const users = byName(doc, 'users', 'user', source);
  const ctx = contexts.get(context);
  if (!ctx) throw new KubeConfigError(`context "${context}" is not defined`, source);
  const clusterName = text(ctx['cluster']) ?? '';
  const userName = text(ctx['user']) ?? '';
  const cluster = clusters.get(clusterName);
  if (!cluster) throw new KubeConfigError(`context "${context}" names no known cluster`, source);
  const user = users.get(userName);
  if (!user) throw new KubeConfigError(`context "${context}" names no known user`, source);
  const server = text(cluster['server']) ?? '';
  checkServer(server, clusterName, options);
  const kc = new LiteKubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: clusterName,
        server: server.replace(/\/$/, ''),
        caData: text(cluster['certificate-authority-data']),
        tlsServerName: text(cluster['tls-server-name']),
        skipTLSVerify: options.allowUnsafe === true && cluster['insecure-skip-tls-verify'] === true,
      },
    ],
    users: [
      {
        name: userName,
        certData: text(user['client-certificate-data']),
        keyData: text(user['client-key-data']),
        token: text(user['token']),
      },
    ],
    contexts: [
      {
        name: context,
        cluster: clusterName,
        user: userName,
        namespace: text(ctx['namespace']),
      },
    ],
    currentContext: context,
  });
  return kc;
}
