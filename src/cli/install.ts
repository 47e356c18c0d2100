/**
 * Local-mode installation: the CRDs from manifests/crds (server-side applied, waited until
 * Established) and the webhook registrations from manifests/webhook (mutating and
 * validating), pointed at URLs on 127.0.0.1 with the CA of a development certificate.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { sleepOrThrow } from '../runtime/index.ts';
import { parseAllDocuments } from 'yaml';
import type { ApplyObject } from '../kube/index.ts';
import { ServerSideApply } from '../kube/index.ts';
import type { KubeClient } from '../kube/index.ts';
import { ResourceMapper, objectPath } from '../kube/index.ts';
import { watchCondition, type WatchNamespaces } from './watch-namespaces.ts';
import { INSTALLATION_ANNOTATION } from './registration.ts';

export const MANIFESTS_DIR = new URL('../../manifests/', import.meta.url).pathname;

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

/** Applies manifests/crds and waits until every CRD is Established. */
export async function installCrds(
  client: KubeClient,
  signal?: AbortSignal,
  dir = join(MANIFESTS_DIR, 'crds'),
): Promise<string[]> {
  const ssa = new ServerSideApply({
    client,
    mapper: new ResourceMapper(client),
    fieldManager: 'planwright',
  });
  const names: string[] = [];
  for (const crd of await readManifestDir(dir)) {
    await ssa.apply(crd, signal ? { signal } : {});
    names.push(crd.metadata?.name ?? '');
  }
  for (const name of names) {
    for (let i = 0; ; i++) {
      const live = await ssa.get(
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name },
        },
        signal,
      );
      const conditions =
        (live?.['status'] as { conditions?: { type: string; status: string }[] } | undefined)
          ?.conditions ?? [];
      if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (i > 300)
        throw new Error(`CRD ${name} did not become Established; check the apiserver log`);
      await sleepOrThrow(100, signal);
    }
  }
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
  const ssa = new ServerSideApply({
    client,
    mapper: new ResourceMapper(client),
    fieldManager: 'planwright',
  });
  const manifest = (await webhookConfigurations()).find(
    (o) => o.kind === 'MutatingWebhookConfiguration',
  );
  if (!manifest) throw new Error('manifests/webhook has no MutatingWebhookConfiguration');
  const config = atUrl(manifest, '', options.caPem, options);
  // This one takes the full URL of its single webhook.
  for (const webhook of (config['webhooks'] as Array<Record<string, unknown>> | undefined) ?? []) {
    (webhook['clientConfig'] as { url: string }).url = options.url;
  }
  await applyWebhookConfiguration(ssa, client, config);
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
  const ssa = new ServerSideApply({
    client,
    mapper: new ResourceMapper(client),
    fieldManager: 'planwright',
  });
  const registered: Array<{ kind: string; name: string }> = [];
  for (const manifest of await webhookConfigurations()) {
    const config = atUrl(
      manifest,
      options.baseUrl,
      options.caPem,
      options.watch ? { watch: options.watch } : {},
    );
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
    await applyWebhookConfiguration(ssa, client, config);
    registered.push({ kind: config.kind ?? '', name: config.metadata?.name ?? '' });
  }
  return registered;
}

type WebhookList = Array<{ clientConfig?: { url?: string; service?: unknown } }>;

/**
 * Applies a webhook configuration whose webhooks may switch between a `url` and a `service`
 * client config (a local `start --install` registration over an `init` installation, or the
 * reverse). Server-side apply cannot drop the other field manager's half, and the API server
 * rejects a webhook with both; in that case the whole `webhooks` list is replaced with one JSON
 * merge patch (lists are replaced wholesale). Otherwise server-side apply keeps fields of others
 * (e.g. the caBundle the certificate injector writes).
 */
export async function applyWebhookConfiguration(
  ssa: ServerSideApply,
  client: KubeClient,
  config: ApplyObject,
  signal?: AbortSignal,
): Promise<void> {
  const live = await ssa.get(config, signal);
  const wanted = (config['webhooks'] as WebhookList | undefined) ?? [];
  const wantsUrl = wanted.some((w) => w.clientConfig?.url !== undefined);
  const clash = ((live?.['webhooks'] as WebhookList | undefined) ?? []).some((w) =>
    wantsUrl ? w.clientConfig?.service !== undefined : w.clientConfig?.url !== undefined,
  );
  if (!live || !clash) {
    await ssa.apply(config, signal ? { signal } : {});
    return;
  }
  const mapping = await ssa.mapping(config, signal);
  await client.request({
    method: 'PATCH',
    path: objectPath(mapping, config.metadata?.name ?? ''),
    body: {
      metadata: {
        labels: config.metadata?.labels ?? {},
        ...(config.metadata?.annotations ? { annotations: config.metadata.annotations } : {}),
      },
      webhooks: wanted,
    },
    contentType: 'application/merge-patch+json',
    ...(signal ? { signal } : {}),
  });
}

export async function unregisterWebhook(
  client: KubeClient,
  name: string,
  kind:
    | 'MutatingWebhookConfiguration'
    | 'ValidatingWebhookConfiguration' = 'MutatingWebhookConfiguration',
): Promise<void> {
  const ssa = new ServerSideApply({
    client,
    mapper: new ResourceMapper(client),
    fieldManager: 'planwright',
  });
  await ssa.remove({ apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name } });
}
