// Test-side KUDO helpers: install our CRDs into the shared control plane (idempotent; every
// test file may call it), build package objects, and run the real Instance webhook behind the
// real webhook registration from manifests/webhook, narrowed to the test's namespaces.
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { KubeClient } from '../../src/kube/index.ts';
import {
  CachedOperatorVersionSource,
  instanceMutator,
  LiveOperatorVersionSource,
  OPERATOR_VERSION_GVK,
  type OperatorVersionSource,
} from '../../src/kudo/admission/index.ts';
import type { Instance, OperatorVersion, PlanStatus } from '../../src/kudo/api/index.ts';
import { CacheRegistry } from '../../src/runtime/index.ts';
import { ParameterValidator } from '../../src/kudo/params/index.ts';
import type { WebhookServer } from '../../src/server/index.ts';
import { StaticCertificateSource } from '../../src/server/index.ts';
import { kubeConfig, kubectl, uniqueName } from './cluster.ts';
import { capturingLogger } from './https.ts';
import { waitFor } from './wait.ts';
import { KUDO_PACKAGES_DIR } from './shared.ts';
import { loopbackWebhookServer } from './admission.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
export const CRD_DIR = join(ROOT, 'manifests/crds');
export const WEBHOOK_MANIFEST = join(ROOT, 'manifests/webhook/mutating-webhook.yaml');
export const KUDO_PACKAGES = KUDO_PACKAGES_DIR;
export const INSTANCE_WEBHOOK_NAME = 'instance-admission.planwright.dev';
export const CRD_NAMES = ['operators.kudo.dev', 'operatorversions.kudo.dev', 'instances.kudo.dev'];

/** Creating kudo.dev objects and reading Instances (a missing Instance reads as undefined). */
export interface KudoObjects {
  readonly create: (namespace: string, plural: string, body: object) => Promise<unknown>;
  readonly getInstance: (namespace: string, name: string) => Promise<Instance | undefined>;
}

export function kudoObjects(api: k8s.CustomObjectsApi): KudoObjects {
  const at = { group: 'kudo.dev', version: 'v1beta1' };
  return {
    create: (namespace, plural, body) =>
      api.createNamespacedCustomObject({ ...at, namespace, plural, body }),
    getInstance: async (namespace, name) =>
      (await api
        .getNamespacedCustomObject({ ...at, namespace, plural: 'instances', name })
        .catch(() => undefined)) as Instance | undefined,
  };
}

/**
 * Waits until the deploy plan of Instance `namespace`/`name` has ended (COMPLETE or
 * FATAL_ERROR); resolves with the plan's status.
 */
export function deployTerminal(
  objects: KudoObjects,
  instance: { readonly namespace: string; readonly name: string },
): Promise<PlanStatus> {
  const { namespace, name } = instance;
  return waitFor(
    `${namespace}/${name} deploy terminal`,
    async () => {
      const ps = (await objects.getInstance(namespace, name))?.status?.planStatus?.['deploy'];
      return ps?.status === 'COMPLETE' || ps?.status === 'FATAL_ERROR' ? ps : undefined;
    },
    { timeoutMs: 150_000, intervalMs: 250 },
  );
}

/** A JSON merge patch of one Instance through the typed client (errors reject, as the client's). */
export function mergePatchInstance(
  api: k8s.CustomObjectsApi,
  namespace: string,
  name: string,
  body: Record<string, unknown>,
): Promise<unknown> {
  return api.patchNamespacedCustomObject(
    { group: 'kudo.dev', version: 'v1beta1', namespace, plural: 'instances', name, body },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
}

/**
 * Server-side applies manifests/crds (same field manager, so concurrent callers agree) and waits
 * for Established; on the shared cluster unless a kubeconfig is given.
 */
export async function installKudoCrds(kubeconfig?: string): Promise<void> {
  const options = kubeconfig ? { kubeconfig } : {};
  const res = await kubectl(
    [
      'apply',
      '--server-side',
      '--force-conflicts',
      '--field-manager=planwright-tests',
      '-f',
      CRD_DIR,
    ],
    options,
  );
  if (res.code !== 0) throw new Error(`installing KUDO CRDs failed: ${res.stderr}`);
  const api = kubeConfig(kubeconfig).makeApiClient(k8s.ApiextensionsV1Api);
  for (const name of CRD_NAMES) {
    await waitFor(`CRD ${name} Established`, async () => {
      const crd = await api.readCustomResourceDefinition({ name });
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    });
  }
  // Discovery of a new group lags Established a little; kubectl needs it.
  await waitFor('kudo.dev in discovery', async () => {
    const r = await kubectl(['get', 'instances.kudo.dev', '-A', '-o', 'name'], options);
    return r.code === 0;
  });
}

export async function readYamlObjects(path: string): Promise<Array<Record<string, unknown>>> {
  const files = (await stat(path)).isDirectory()
    ? (await readdir(path)).sort().map((f) => join(path, f))
    : [path];
  const out: Array<Record<string, unknown>> = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(await readFile(file, 'utf8'))) {
      const value: unknown = doc.toJS();
      if (value && typeof value === 'object') out.push(value as Record<string, unknown>);
    }
  }
  return out;
}

export interface InstanceWebhook {
  readonly configName: string;
  readonly server: WebhookServer;
  readonly logLines: Array<Record<string, unknown>>;
  stop(): Promise<void>;
  /** Deletes the registration (used after stop to restore other tests' writes). */
  unregister(): Promise<void>;
  /** Live GETs the webhook made (cache misses). */
  readonly liveGets: readonly string[];
}

/**
 * Starts the Instance webhook on 127.0.0.1 and registers manifests/webhook's configuration
 * for it, with a unique name, a url clientConfig and a namespaceSelector limited to
 * `namespaces`. Waits until the apiserver calls it.
 */
export async function startInstanceWebhook(options: {
  namespaces: readonly string[];
  operatorVersions?: OperatorVersionSource;
  controllerUsers?: readonly string[];
}): Promise<InstanceWebhook> {
  const kc = kubeConfig();
  const loopback = StaticCertificateSource.forLoopback('kudo-webhook-test');
  const { logger, lines } = capturingLogger();
  const server = loopbackWebhookServer(loopback.source, logger);
  const client = new KubeClient(kc);
  const stop = new AbortController();
  // As in production: the shared cache answers, a miss costs one live GET (counted here).
  const liveGets: string[] = [];
  const liveSource = new LiveOperatorVersionSource({ client, timeoutMs: 2_000 });
  const live: OperatorVersionSource = {
    get: (namespace, name, signal) => {
      liveGets.push(`${namespace}/${name}`);
      return liveSource.get(namespace, name, signal);
    },
  };
  const registry = new CacheRegistry({
    clients: new Map([['local', client]]),
    logger,
    signal: stop.signal,
  });
  const lease = await registry.acquire<OperatorVersion>(OPERATOR_VERSION_GVK, 'admission');
  await lease.cache.waitForSync(stop.signal);
  server.registerMutating(
    'instances',
    instanceMutator({
      operatorVersions:
        options.operatorVersions ?? new CachedOperatorVersionSource({ cache: lease.cache, live }),
      validator: new ParameterValidator({ maxCachedOperatorVersions: 64 }),
      controllerUsers: new Set(options.controllerUsers ?? []),
    }),
  );
  const { port } = await server.listen(stop.signal);

  const [manifest] = await readYamlObjects(WEBHOOK_MANIFEST);
  const config = structuredClone(manifest) as unknown as k8s.V1MutatingWebhookConfiguration;
  const configName = uniqueName('pw-instances');
  config.metadata = { ...config.metadata, name: configName };
  for (const webhook of config.webhooks ?? []) {
    webhook.clientConfig = {
      url: `https://127.0.0.1:${port}/mutate/instances`,
      caBundle: Buffer.from(loopback.caPem).toString('base64'),
    };
    webhook.namespaceSelector = {
      matchExpressions: [
        { key: 'kubernetes.io/metadata.name', operator: 'In', values: [...options.namespaces] },
      ],
    };
  }
  const admission = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
  await admission.createMutatingWebhookConfiguration({ body: config });
  const unregister = async (): Promise<void> => {
    await admission.deleteMutatingWebhookConfiguration({ name: configName }).catch(() => undefined);
  };
  return {
    configName,
    server,
    logLines: lines,
    liveGets,
    unregister,
    stop: async () => {
      stop.abort();
      lease.release();
      await server.stop();
      await registry.stop();
      client.close();
    },
  };
}
