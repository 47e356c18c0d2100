/**
 * Running Planwright "in the cluster" on a workloads control plane whose nodes are simulated
 * by kwok: pods are scheduled and reported Running, but no container runs, so the Deployment's
 * pods cannot run Planwright's image. The replicas therefore run as local processes — the
 * image's files as its Dockerfile makes them (dist/ and production dependencies only, see
 * test/support/dockerfile.ts) started with its ENTRYPOINT — with the Deployment's args and
 * the ServiceAccount's identity in the in-cluster style: KUBERNETES_SERVICE_HOST/PORT plus a
 * TokenRequest token, the cluster CA and the namespace in the files a pod gets (under a
 * folder that stands for `/`, PLANWRIGHT_SERVICE_ACCOUNT_ROOT). The webhook Service reaches
 * them through EndpointSlices naming this machine's address (the local apiserver routes
 * Service webhooks to endpoints). Files mode gets what kubelet does for a Secret volume: the
 * Secret's keys written into the folder and replaced by swapping a `..data` symlink.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as tlsConnect } from 'node:tls';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { ApiError, KubeClient } from '../../../src/kube/index.ts';
import { SERVICE_ACCOUNT_DIR, SERVICE_ACCOUNT_ROOT_ENV } from '../../../src/kube/index.ts';
import {
  startLocalCluster,
  type LocalCluster,
  type NodeKind,
} from '../../../src/localcluster/index.ts';
import { testCluster, tokenKubeConfig } from '../../support/cluster.ts';
import type { ImageRoot } from '../../support/dockerfile.ts';
import { httpsRequest } from '../../support/https.ts';
import { waitFor } from '../../support/wait.ts';

/** This machine's first non-loopback IPv4 address (an endpoint may not be a loopback one). */
export function hostAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  throw new Error('no non-loopback IPv4 address on this machine: EndpointSlices need one');
}

export interface DeploymentSpec {
  readonly replicas: number;
  readonly serviceAccountName: string;
  readonly args: readonly string[];
  readonly env: ReadonlyArray<{ name: string; value?: string }>;
  readonly volumes: ReadonlyArray<{ name: string; secret?: { secretName: string } }>;
  readonly volumeMounts: ReadonlyArray<{ name: string; mountPath: string }>;
}

/** The parts of the Deployment's pod spec a replica runs with. */
export async function readDeployment(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<DeploymentSpec> {
  const d = await client.request<{
    spec: {
      replicas: number;
      template: {
        spec: {
          serviceAccountName: string;
          volumes?: DeploymentSpec['volumes'];
          containers: Array<{
            name: string;
            args?: string[];
            env?: DeploymentSpec['env'];
            volumeMounts?: DeploymentSpec['volumeMounts'];
          }>;
        };
      };
    };
  }>({ path: `/apis/apps/v1/namespaces/${namespace}/deployments/${name}` });
  const pod = d.spec.template.spec;
  const container = pod.containers.find((c) => c.name === 'planwright') ?? pod.containers[0];
  return {
    replicas: d.spec.replicas,
    serviceAccountName: pod.serviceAccountName,
    args: container?.args ?? [],
    env: container?.env ?? [],
    volumes: pod.volumes ?? [],
    volumeMounts: container?.volumeMounts ?? [],
  };
}

/**
 * A token of `serviceAccount` from the TokenRequest API (as kubelet gets one for a pod), in
 * the files a pod sees, under a new folder standing for `/`. Returns that folder.
 */
export async function serviceAccountRoot(
  client: KubeClient,
  namespace: string,
  serviceAccount: string,
  caPem: string,
): Promise<{ root: string; token: string }> {
  const request = await client.request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`,
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 },
    },
  });
  const root = await mkdtemp(join(tmpdir(), 'pw-sa-'));
  const dir = join(root, SERVICE_ACCOUNT_DIR);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'token'), request.status.token);
  await writeFile(join(dir, 'ca.crt'), caPem);
  await writeFile(join(dir, 'namespace'), namespace);
  return { root, token: request.status.token };
}

export interface Replica {
  readonly index: number;
  readonly port: number;
  readonly logs: () => string;
  readonly exited: Promise<number | null>;
  stop(): Promise<void>;
}

/**
 * Starts one replica: the image's ENTRYPOINT (`node … dist/main.js start`) in its WORKDIR
 * with the Deployment's args, the webhook port
 * changed (two processes share this machine) and mounted paths mapped to local folders.
 */
export async function startReplica(options: {
  readonly index: number;
  readonly apiServer: string;
  readonly root: string;
  readonly deployment: DeploymentSpec;
  readonly port: number;
  /** Mount path → local folder (files mode's certificate folder). */
  readonly mounts?: ReadonlyMap<string, string>;
  /** The image's files and ENTRYPOINT (test/support/dockerfile.ts: imageRoot). */
  readonly image: ImageRoot;
}): Promise<Replica> {
  const args = [...options.deployment.args];
  const portAt = args.indexOf('--webhook-port');
  if (portAt < 0) throw new Error('the Deployment does not pass --webhook-port');
  args[portAt + 1] = String(options.port);
  for (const [mountPath, local] of options.mounts ?? []) {
    for (let i = 0; i < args.length; i++) {
      if (args[i] === mountPath) args[i] = local;
    }
  }
  const url = new URL(options.apiServer);
  const home = await mkdtemp(join(tmpdir(), 'pw-home-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    // A pod has no kubeconfig: HOME is empty, KUBECONFIG unset.
    HOME: home,
    KUBERNETES_SERVICE_HOST: url.hostname,
    KUBERNETES_SERVICE_PORT: url.port || '443',
    [SERVICE_ACCOUNT_ROOT_ENV]: options.root,
    ...options.image.env,
  };
  for (const { name, value } of options.deployment.env) env[name] = value ?? '';
  let tail = '';
  const [command, ...entrypoint] = options.image.argv;
  const child: ChildProcess = spawn(command ?? process.execPath, [...entrypoint, ...args], {
    cwd: options.image.workdir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-40_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(killer);
    }
    await rm(home, { recursive: true, force: true });
  };
  // With port 0 the server picks one and says which.
  let port = options.port;
  if (port === 0) {
    const found = await Promise.race([
      waitFor(
        `replica ${options.index} listening`,
        () => /Webhook server listening on https:\/\/[^\s]+:(\d+)/.exec(tail)?.[1],
        { timeoutMs: 120_000, intervalMs: 200 },
      ),
      exited.then((code) => {
        throw new Error(`replica ${options.index} exited (${code}):\n${tail}`);
      }),
    ]).catch(async (err: unknown) => {
      await stop();
      throw new Error(`${(err as Error).message}\n--- replica ${options.index} log\n${tail}`);
    });
    port = Number(found);
  }
  return { index: options.index, port, logs: () => tail, exited, stop };
}

/** Waits until the replica's /readyz answers 200 over its serving certificate (CA `caPem`). */
export async function waitReady(replica: Replica, caPem: () => Promise<string>): Promise<void> {
  await waitFor(
    `replica ${replica.index} ready`,
    async () => {
      const res = await httpsRequest({
        port: replica.port,
        path: '/readyz',
        ca: await caPem(),
        servername: 'planwright-webhook.planwright-system.svc',
      });
      return res.status === 200;
    },
    { timeoutMs: 120_000, intervalMs: 500 },
  ).catch((err: unknown) => {
    throw new Error(
      `${(err as Error).message}\n--- replica ${replica.index} log\n${replica.logs()}`,
    );
  });
}

/** Metric samples `name{labels} value` of a replica's /metrics. */
export async function metrics(
  replica: Pick<Replica, 'port'> & { readonly host?: string },
  caPem: string,
  token: string,
): Promise<string> {
  const res = await httpsRequest({
    ...(replica.host ? { host: replica.host } : {}),
    port: replica.port,
    path: '/metrics',
    ca: caPem,
    servername: 'planwright-webhook.planwright-system.svc',
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${res.text}`);
  return res.text;
}

/**
 * A token of ServiceAccount `metrics-scraper` in `namespace`, bound to the manifests'
 * ClusterRole planwright-metrics-reader: /metrics answers only such callers in a cluster.
 */
export async function scraperToken(admin: KubeClient, namespace: string): Promise<string> {
  const ignoreExisting = (err: unknown): void => {
    if (!(err instanceof ApiError && err.statusCode === 409)) throw err;
  };
  await admin
    .request({
      method: 'POST',
      path: `/api/v1/namespaces/${namespace}/serviceaccounts`,
      body: { metadata: { name: 'metrics-scraper' } },
    })
    .catch(ignoreExisting);
  await admin
    .request({
      method: 'POST',
      path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      body: {
        metadata: { name: `metrics-scraper-${namespace}` },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'planwright-metrics-reader',
        },
        subjects: [{ kind: 'ServiceAccount', name: 'metrics-scraper', namespace }],
      },
    })
    .catch(ignoreExisting);
  const request = await admin.request<{ status?: { token?: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/metrics-scraper/token`,
    body: { spec: { expirationSeconds: 3600 } },
  });
  return request.status?.token ?? '';
}

export function sampleSum(
  text: string,
  name: string,
  filter: (labels: string) => boolean = () => true,
): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)$/.exec(line);
    if (m && m[1] === name && filter(m[2] ?? '')) sum += Number(m[3]);
  }
  return sum;
}

/**
 * Routes the Service to the replicas: one EndpointSlice per replica (their ports differ),
 * named for the Service port, managed by the tests (the EndpointSlice controller leaves
 * slices of other managers alone).
 */
export async function routeService(
  client: KubeClient,
  namespace: string,
  service: string,
  portName: string,
  address: string,
  replicas: readonly Replica[],
): Promise<void> {
  for (const replica of replicas) {
    await client.request({
      method: 'POST',
      path: `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`,
      body: {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: `${service}-local-${replica.index}`,
          labels: {
            'kubernetes.io/service-name': service,
            'endpointslice.kubernetes.io/managed-by': 'planwright-tests',
          },
        },
        addressType: 'IPv4',
        ports: [{ name: portName, port: replica.port, protocol: 'TCP' }],
        endpoints: [{ addresses: [address], conditions: { ready: true } }],
      },
    });
  }
}

/** Scales the Deployment to 0 and waits until its (kwok-simulated) pods are gone. */
export async function scaleToZero(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<void> {
  await client.request({
    method: 'PATCH',
    path: `/apis/apps/v1/namespaces/${namespace}/deployments/${name}/scale`,
    body: { spec: { replicas: 0 } },
    contentType: 'application/merge-patch+json',
  });
  await waitFor(
    `the ${name} pods gone`,
    async () => {
      const pods = await client.request<{ items: unknown[] }>({
        path: `/api/v1/namespaces/${namespace}/pods`,
        query: { labelSelector: 'app.kubernetes.io/name=planwright' },
      });
      return pods.items.length === 0;
    },
    { timeoutMs: 120_000, intervalMs: 500 },
  );
}

/**
 * What kubelet does for a Secret volume: writes the Secret's keys into a timestamped folder,
 * points `..data` at it with an atomic rename of a symlink, and links each key to
 * `..data/<key>`; repeated whenever the Secret's data changes. A deleted Secret leaves the
 * files as they were (as kubelet does). Runs until `signal` aborts.
 */
export async function syncSecretVolume(
  client: KubeClient,
  namespace: string,
  secret: string,
  dirs: readonly string[],
  signal: AbortSignal,
): Promise<{ readonly writes: () => number }> {
  let last = '';
  let writes = 0;
  const write = async (data: Record<string, string>): Promise<void> => {
    const stamp = `..${new Date().toISOString().replace(/[:.]/g, '_')}_${writes}`;
    for (const dir of dirs) {
      await mkdir(join(dir, stamp), { recursive: true });
      for (const [key, value] of Object.entries(data)) {
        await writeFile(join(dir, stamp, key), Buffer.from(value, 'base64'));
      }
      await rm(join(dir, '..data_tmp'), { force: true });
      await symlink(stamp, join(dir, '..data_tmp'));
      await rename(join(dir, '..data_tmp'), join(dir, '..data'));
      for (const key of Object.keys(data)) {
        await symlink(join('..data', key), join(dir, key)).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
        });
      }
    }
    writes++;
  };
  const poll = async (): Promise<void> => {
    try {
      const s = await client.request<{ data?: Record<string, string> }>({
        path: `/api/v1/namespaces/${namespace}/secrets/${secret}`,
        signal,
      });
      const data = s.data ?? {};
      const key = JSON.stringify(data);
      if (key !== last && data['tls.crt'] && data['tls.key']) {
        await write(data);
        last = key;
      }
    } catch (err) {
      if (!(err instanceof ApiError && err.statusCode === 404) && !signal.aborted) throw err;
    }
  };
  await poll();
  void (async () => {
    while (!signal.aborted) {
      await sleep(200, undefined, { signal }).catch(() => undefined);
      if (!signal.aborted) await poll().catch(() => undefined);
    }
  })();
  return { writes: () => writes };
}

/** SHA-256 fingerprint of the certificate a replica serves to a new TLS connection now. */
export function servedFingerprint(
  replica: Pick<Replica, 'port'> & { readonly host?: string },
  caPem: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({
      host: replica.host ?? '127.0.0.1',
      port: replica.port,
      ca: caPem,
      servername: 'planwright-webhook.planwright-system.svc',
    });
    socket.once('secureConnect', () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fingerprint);
    });
    socket.once('error', reject);
  });
}

export interface KubectlOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * A workloads cluster of its own (an installation registers webhooks for every namespace and
 * reconciles every Instance, so it cannot share the e2e cluster), with an admin client and
 * kubectl on its kubeconfig.
 */
export interface DedicatedCluster {
  readonly cluster: LocalCluster;
  readonly admin: KubeClient;
  kubectl(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<KubectlOutcome>;
  stop(): Promise<void>;
}

export async function startDedicatedCluster(
  options: { readonly nodeKind?: NodeKind } = {},
): Promise<DedicatedCluster> {
  const cluster = await startLocalCluster({
    mode: 'workloads',
    ...(options.nodeKind ? { nodeKind: options.nodeKind } : {}),
    binaries: testCluster().binaries,
    nodes: 1,
  });
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  const admin = new KubeClient(kc);
  const run = promisify(execFile);
  return {
    cluster,
    admin,
    kubectl: async (args, env) => {
      try {
        const { stdout, stderr } = await run(
          cluster.binaries.kubectl,
          ['--kubeconfig', cluster.kubeconfigPath, ...args],
          env ? { env: { ...process.env, ...env } } : {},
        );
        return { code: 0, stdout, stderr };
      } catch (err) {
        const e = err as { code?: number; stdout?: string; stderr?: string };
        return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
      }
    },
    stop: async () => {
      admin.close();
      await cluster.stop();
    },
  };
}

/** A Secret's data, decoded. */
export async function secretData(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<Record<string, string>> {
  const s = await client.request<{ data?: Record<string, string> }>({
    path: `/api/v1/namespaces/${namespace}/secrets/${name}`,
  });
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.data ?? {})) {
    out[k] = Buffer.from(v, 'base64').toString('utf8');
  }
  return out;
}

/** A client of `cluster` that authenticates with a bearer token only. */
export function tokenClient(cluster: LocalCluster, token: string): KubeClient {
  return new KubeClient(tokenKubeConfig(token, cluster));
}

/**
 * The Deployment run here instead of on kwok: scaled to 0 (its simulated pods gone), then one
 * local replica per `spec.replicas` with the ServiceAccount's TokenRequest identity, each
 * ready over `caPem`, and the webhook Service routed to them. Started replicas go into
 * `replicas` as they start, so the caller stops them even when a later one fails. Returns the
 * ServiceAccount's token.
 */
export async function runDeploymentLocally(options: {
  readonly cluster: LocalCluster;
  readonly admin: KubeClient;
  readonly namespace: string;
  readonly deployment: DeploymentSpec;
  readonly image: ImageRoot;
  readonly caPem: () => Promise<string>;
  readonly replicas: Replica[];
  /** Mount path → local folder, per replica. */
  readonly mounts?: (index: number) => ReadonlyMap<string, string>;
}): Promise<string> {
  const { cluster, admin, namespace, deployment } = options;
  await scaleToZero(admin, namespace, 'planwright');
  const sa = await serviceAccountRoot(
    admin,
    namespace,
    deployment.serviceAccountName,
    cluster.servingCaPem,
  );
  for (let i = 0; i < deployment.replicas; i++) {
    options.replicas.push(
      await startReplica({
        index: i,
        apiServer: cluster.server,
        root: sa.root,
        deployment,
        port: 0,
        image: options.image,
        ...(options.mounts ? { mounts: options.mounts(i) } : {}),
      }),
    );
  }
  for (const r of options.replicas) await waitReady(r, options.caPem);
  await routeService(
    admin,
    namespace,
    'planwright-webhook',
    'https',
    hostAddress(),
    options.replicas,
  );
  return sa.token;
}
