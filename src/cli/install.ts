/**
 * Local-mode installation: the CRDs from manifests/crds (server-side applied, waited until
 * Established) and the webhook registrations from manifests/webhook (mutating and
 * validating), pointed at URLs on 127.0.0.1 with the CA of a development certificate — and,
 * for `planwright start`, the wait until the API server calls them.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { installationRoot } from '../installation.ts';
import type { ApplyObject } from '../kube/index.ts';
import { ResourceManager, ResourceMapper, type KubeClient } from '../kube/index.ts';
import { watchCondition, type WatchNamespaces } from './watch-namespaces.ts';
import type { LineWriter } from './io.ts';
import { INSTALLATION_ANNOTATION } from './registration.ts';
import { waitForWebhooks } from './webhook-probe.ts';

/** The installation's manifests/ (named from its root: a bundled chunk's place is esbuild's). */
export const MANIFESTS_DIR = join(installationRoot(), 'manifests');

export async function readManifestDir(dir: string): Promise<ApplyObject[]> {
  const files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort();
  const out: ApplyObject[] = [];
  for (const f of files) {
    for (const doc of parseAllDocuments(await readFile(join(dir, f), 'utf8'))) {
      const value: unknown = doc.toJS();
      if (value && typeof value === 'object') out.push(value as ApplyObject);
    }
  }
  return out;
}

/** Planwright's own writes, as in every apply of the CLI. */
function resourcesOver(client: KubeClient): ResourceManager {
  return new ResourceManager({
    client,
    mapper: new ResourceMapper(client),
    fieldManager: 'planwright',
  });
}

/** Applies manifests/crds and waits until every CRD is Established. */
export async function installCrds(
  client: KubeClient,
  signal?: AbortSignal,
  dir = join(MANIFESTS_DIR, 'crds'),
): Promise<string[]> {
  const resources = resourcesOver(client);
  const crds = await readManifestDir(dir);
  // Applied without a look first, as before there was a change set to report.
  await resources.applyAll(
    crds.map((desired) => ({ desired, known: false })),
    { signal },
  );
  const names = crds.map((crd) => crd.metadata?.name ?? '');
  await resources.waitEstablished(names, { signal });
  return names;
}

export interface LocalWebhookOptions {
  readonly url: string;
  readonly caPem: string;
  /** Configuration name; default the manifest's. */
  readonly name?: string;
  /** Restrict to these namespaces (tests). */
  readonly namespaces?: readonly string[];
  /**
   * Restrict to namespaces whose name starts with this (tests whose namespaces are made by
   * another tool, e.g. kuttl's `kuttl-test-…`): a CEL match condition, since a namespace
   * selector cannot match a name prefix.
   */
  readonly namespacePrefix?: string;
}

/** The webhook configurations of manifests/webhook/ (mutating and validating), as written. */
export async function webhookConfigurations(): Promise<ApplyObject[]> {
  const all = await readManifestDir(join(MANIFESTS_DIR, 'webhook'));
  return all.filter(
    (o) => o.kind === 'MutatingWebhookConfiguration' || o.kind === 'ValidatingWebhookConfiguration',
  );
}

/**
 * A configuration of manifests/webhook/ pointed at a URL: each webhook's service path is
 * appended to `baseUrl`, with `caPem` as its bundle, narrowed as the options say.
 */
export function atUrl(
  manifest: ApplyObject,
  baseUrl: string,
  caPem: string,
  options: Pick<LocalWebhookOptions, 'name' | 'namespaces' | 'namespacePrefix'> & {
    /** `start --watch-namespaces`: a match condition, the rest of each webhook as written. */
    readonly watch?: WatchNamespaces;
  } = {},
): ApplyObject {
  const config = structuredClone(manifest);
  const name = options.name ?? manifest.metadata?.name ?? '';
  config.metadata = { ...config.metadata, name };
  for (const webhook of (config['webhooks'] as Array<Record<string, unknown>> | undefined) ?? []) {
    const service = (webhook['clientConfig'] as { service?: { path?: string } } | undefined)
      ?.service;
    webhook['clientConfig'] = {
      url: `${baseUrl.replace(/\/$/, '')}${service?.path ?? ''}`,
      caBundle: Buffer.from(caPem).toString('base64'),
    };
    if (options.namespaces) {
      webhook['namespaceSelector'] = {
        matchExpressions: [
          { key: 'kubernetes.io/metadata.name', operator: 'In', values: [...options.namespaces] },
        ],
      };
    }
    if (options.watch) webhook['matchConditions'] = [watchCondition(options.watch)];
    if (options.namespacePrefix !== undefined) {
      webhook['matchConditions'] = [
        {
          name: 'namespace-prefix',
          expression: `request.namespace.startsWith(${JSON.stringify(options.namespacePrefix)})`,
        },
      ];
    }
  }
  return config;
}

/**
 * Registers manifests/webhook/mutating-webhook.yaml with a URL client config (server-side
 * apply): the Instance mutating webhook only, as tests that run the engine register it.
 */
export async function registerLocalWebhook(
  client: KubeClient,
  options: LocalWebhookOptions,
): Promise<string> {
  const manifest = (await webhookConfigurations()).find(
    (o) => o.kind === 'MutatingWebhookConfiguration',
  );
  if (!manifest) throw new Error('manifests/webhook has no MutatingWebhookConfiguration');
  const config = atUrl(manifest, '', options.caPem, options);
  // This one takes the full URL of its single webhook.
  for (const webhook of (config['webhooks'] as Array<Record<string, unknown>> | undefined) ?? []) {
    (webhook['clientConfig'] as { url: string }).url = options.url;
  }
  await resourcesOver(client).apply({ desired: config, known: true });
  return config.metadata?.name ?? '';
}

/**
 * Registers every webhook configuration of manifests/webhook/ (mutating and validating) at
 * `https://127.0.0.1:<port>` + each webhook's path: what `start --install` and local mode do.
 * Returns the configurations' kinds and names.
 */
export async function registerLocalWebhooks(
  client: KubeClient,
  options: {
    readonly baseUrl: string;
    readonly caPem: string;
    readonly watch?: WatchNamespaces;
    /** The installation's namespace, written into the registration (registration.ts). */
    readonly installation?: string;
  },
): Promise<Array<{ kind: string; name: string }>> {
  const resources = resourcesOver(client);
  const registered: Array<{ kind: string; name: string }> = [];
  for (const manifest of await webhookConfigurations()) {
    const config = atUrl(manifest, options.baseUrl, options.caPem, { watch: options.watch });
    const annotations = config.metadata?.annotations;
    if (
      options.installation !== undefined &&
      annotations?.[INSTALLATION_ANNOTATION] !== undefined
    ) {
      config.metadata = {
        ...config.metadata,
        annotations: { ...annotations, [INSTALLATION_ANNOTATION]: options.installation },
      };
    }
    await resources.apply({ desired: config, known: true });
    registered.push({ kind: config.kind ?? '', name: config.metadata?.name ?? '' });
  }
  return registered;
}

/** How long `start --install` waits for the API server to call the webhooks it registered. */
const REGISTRATION_TIMEOUT_MS = 30_000;

/**
 * `planwright start`'s registration here: both webhook configurations at
 * https://127.0.0.1:<port>, then the wait until the API server calls them — "running" means a
 * kubectl apply now reaches this process (the API server reloads a changed registration a
 * moment after the write, and until then calls the previous URL, a former run's port). A
 * cluster that never answers is reported, not fatal.
 */
export async function registerHere(
  client: KubeClient,
  at: {
    readonly port: number;
    readonly caPem: string;
    readonly namespace: string;
    readonly watch: WatchNamespaces | undefined;
  },
  io: LineWriter,
  signal: AbortSignal,
): Promise<void> {
  const baseUrl = `https://127.0.0.1:${at.port}`;
  const registered = await registerLocalWebhooks(client, {
    baseUrl,
    caPem: at.caPem,
    installation: at.namespace,
    watch: at.watch,
  });
  for (const { kind, name } of registered) io.err(`Registered ${kind} ${name} → ${baseUrl}.`);
  const { namespace } = at;
  const probe = await waitForWebhooks(
    client,
    { namespace, timeoutMs: REGISTRATION_TIMEOUT_MS },
    signal,
  );
  if (!probe.answered) {
    io.err(
      `Warning: the API server does not call this process's webhooks yet after ${REGISTRATION_TIMEOUT_MS / 1000} s (last: ${probe.last}); creating KUDO objects fails until it does.`,
    );
  }
}

export async function unregisterWebhook(
  client: KubeClient,
  name: string,
  kind:
    | 'MutatingWebhookConfiguration'
    | 'ValidatingWebhookConfiguration' = 'MutatingWebhookConfiguration',
): Promise<void> {
  await resourcesOver(client).delete({
    object: { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name } },
  });
}
