/**
 * A kubeconfig for a *target* cluster, read from the bytes of a Secret (never from a file or
 * the environment): parsed, checked for a usable current context, and refused when it asks
 * for things a manager must not do on a user's behalf — run a program (`exec` credential
 * plugins), call an auth-provider plugin, read files of the manager's own file system
 * (`certificate-authority`, `client-certificate`, `client-key`, `tokenFile`), or talk TLS
 * without verifying the server (`insecure-skip-tls-verify`). `allowUnsafe` (a manager flag)
 * lets them through for people who run Planwright where that is acceptable.
 *
 * See examples/api/kube.ts.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { KubeConfigError } from './errors.ts';

export interface TargetKubeconfigOptions {
  /** Where the text came from, for messages (`Secret ns/name, key value`). */
  readonly source: string;
  /** Let exec/auth-provider plugins, file paths and insecure TLS through. Default false. */
  readonly allowUnsafe?: boolean;
}

/** Largest kubeconfig accepted (Secrets are at most 1 MiB anyway). */
export const MAX_TARGET_KUBECONFIG_BYTES = 256 * 1024;

type Json = Record<string, unknown>;

function record(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Json)
    : undefined;
}

function named(list: unknown, name: string, field: string): Json | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const item of list) {
    const r = record(item);
    if (r && r['name'] === name) return record(r[field]);
  }
  return undefined;
}

const FILE_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['cluster', 'certificate-authority'],
  ['user', 'client-certificate'],
  ['user', 'client-key'],
  ['user', 'tokenFile'],
];

/**
 * The features of the current context that a manager refuses by default, each as
 * `<what> (<where>)`. Only the current context counts: it is the one used.
 */
export function unsafeKubeconfigFeatures(doc: Json, context: string): string[] {
  const ctx = named(doc['contexts'], context, 'context') ?? {};
  const clusterName = typeof ctx['cluster'] === 'string' ? ctx['cluster'] : '';
  const userName = typeof ctx['user'] === 'string' ? ctx['user'] : '';
  const parts: Record<string, Json> = {
    cluster: named(doc['clusters'], clusterName, 'cluster') ?? {},
    user: named(doc['users'], userName, 'user') ?? {},
  };
  const found: string[] = [];
  const where = (part: string): string =>
    part === 'cluster' ? `cluster "${clusterName}"` : `user "${userName}"`;
  if (parts['user']?.['exec'] !== undefined)
    found.push(`an exec credential plugin (${where('user')}: exec)`);
  if (parts['user']?.['auth-provider'] !== undefined)
    found.push(`an auth-provider plugin (${where('user')}: auth-provider)`);
  if (parts['cluster']?.['insecure-skip-tls-verify'] === true)
    found.push(`TLS without server verification (${where('cluster')}: insecure-skip-tls-verify)`);
  for (const [part, field] of FILE_FIELDS) {
    const value = parts[part]?.[field];
    if (typeof value === 'string' && value !== '')
      found.push(`a file path of the manager's file system (${where(part)}: ${field})`);
  }
  return found;
}

/** Parses and checks a target kubeconfig; throws {@link KubeConfigError} saying what to fix. */
export function parseTargetKubeconfig(text: string, options: TargetKubeconfigOptions): KubeConfig {
  const { source } = options;
  if (Buffer.byteLength(text) > MAX_TARGET_KUBECONFIG_BYTES) {
    throw new KubeConfigError(
      `the kubeconfig is larger than ${MAX_TARGET_KUBECONFIG_BYTES} bytes`,
      source,
    );
  }
  let doc: Json | undefined;
  try {
    doc = record(parse(text, { maxAliasCount: 100 }));
  } catch (err) {
    throw new KubeConfigError(
      `the kubeconfig is not valid YAML: ${(err as Error).message.split('\n')[0] ?? ''}`,
      source,
    );
  }
  if (!doc) throw new KubeConfigError('the kubeconfig is not a YAML mapping', source);
  const context = doc['current-context'];
  if (typeof context !== 'string' || context === '') {
    throw new KubeConfigError('the kubeconfig sets no current-context', source);
  }
  if (!options.allowUnsafe) {
    const unsafe = unsafeKubeconfigFeatures(doc, context);
    if (unsafe.length > 0) {
      throw new KubeConfigError(
        `the kubeconfig uses ${unsafe.join(', ')}, which Planwright refuses for target clusters: embed credentials instead (client-certificate-data/client-key-data, token, certificate-authority-data), or start the manager with --allow-unsafe-kubeconfig`,
        source,
      );
    }
  }
  const kc = new KubeConfig();
  try {
    kc.loadFromString(text);
  } catch (err) {
    throw new KubeConfigError(`the kubeconfig cannot be loaded: ${(err as Error).message}`, source);
  }
  const cluster = kc.getCurrentCluster();
  if (!kc.getContextObject(context))
    throw new KubeConfigError(`context "${context}" is not defined`, source);
  if (!cluster) throw new KubeConfigError(`context "${context}" names no known cluster`, source);
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch {
    throw new KubeConfigError(
      `cluster "${cluster.name}" has an invalid server URL "${cluster.server}"`,
      source,
    );
  }
  if (url.protocol !== 'https:' && !options.allowUnsafe) {
    throw new KubeConfigError(
      `cluster "${cluster.name}" is reached over ${url.protocol.replace(':', '')}, not https: credentials would travel in clear text; use an https server URL`,
      source,
    );
  }
  if (!kc.getCurrentUser())
    throw new KubeConfigError(`context "${context}" names no known user`, source);
  return kc;
}
