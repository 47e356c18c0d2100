// Test-side access to the shared control planes: per mode a pool of one cluster per jest
// worker, started by the global setup of the jest project that needs it (test/integration:
// bare, test/e2e: workloads; see shared-cluster.ts) and published to the workers through an
// environment variable.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import {
  writeUserKubeconfig,
  type ClusterMode,
  type LocalClusterInfo,
  type UserCredentials,
} from '../../src/localcluster/index.ts';
import { waitFor } from './wait.ts';

/** Where the bare cluster's description lies (a JSON file), for the test workers. */
export const CLUSTER_STATE_ENV = 'PLANWRIGHT_TEST_CLUSTER';
/** The same for the workloads cluster. */
export const WORKLOADS_CLUSTER_STATE_ENV = 'PLANWRIGHT_TEST_WORKLOADS_CLUSTER';

export function clusterStateEnv(mode: ClusterMode): string {
  return mode === 'bare' ? CLUSTER_STATE_ENV : WORKLOADS_CLUSTER_STATE_ENV;
}

/** The jest project that starts each mode's shared cluster, for error messages. */
const PROJECT_OF: Readonly<Record<ClusterMode, string>> = {
  bare: '"integration" (test/integration/**)',
  workloads: '"e2e" (test/e2e/**)',
};

declare global {
  /** Set per jest project in jest.config.js (`globals`): the mode of the project's cluster. */
  var __PLANWRIGHT_CLUSTER_MODE__: ClusterMode | undefined;
}

/** The mode of the cluster the running jest project shares (bare outside the e2e project). */
export function projectClusterMode(): ClusterMode {
  return globalThis.__PLANWRIGHT_CLUSTER_MODE__ ?? 'bare';
}

export function serializeClusterInfo(info: LocalClusterInfo): string {
  const plain: LocalClusterInfo = {
    mode: info.mode,
    server: info.server,
    kubeconfigPath: info.kubeconfigPath,
    etcdEndpoint: info.etcdEndpoint,
    binaries: info.binaries,
    workDir: info.workDir,
    servingCaPem: info.servingCaPem,
    clientCa: info.clientCa,
    pids: info.pids,
    nodes: info.nodes,
    ...(info.nodeKind ? { nodeKind: info.nodeKind } : {}),
    ...(info.imageRegistry ? { imageRegistry: info.imageRegistry } : {}),
    ...(info.storageClassName ? { storageClassName: info.storageClassName } : {}),
  };
  return JSON.stringify(plain);
}

const cached = new Map<ClusterMode, LocalClusterInfo>();

/**
 * The jest worker running this file, from 0 (JEST_WORKER_ID counts from 1, and is 1 in a run
 * in band). A restarted worker keeps its id, so a file always sees its worker's cluster.
 */
function workerIndex(): number {
  const id = Number(process.env['JEST_WORKER_ID'] ?? '1');
  return Number.isInteger(id) && id > 0 ? id - 1 : 0;
}

/**
 * The shared cluster of this test file: by default one of the running jest project
 * (integration: bare; e2e: workloads), the one of this jest worker (shared-cluster.ts starts
 * one per worker). Throws when that project's global setup did not run.
 */
export function testCluster(mode: ClusterMode = projectClusterMode()): LocalClusterInfo {
  const hit = cached.get(mode);
  if (hit) return hit;
  const env = clusterStateEnv(mode);
  const file = process.env[env];
  if (!file) {
    throw new Error(
      `${env} is not set: the shared ${mode} clusters are started by the global setup of the ` +
        `jest project ${PROJECT_OF[mode]} (npm test). Put the test file there.`,
    );
  }
  const pool = JSON.parse(readFileSync(file, 'utf8')) as LocalClusterInfo[];
  const info = pool[workerIndex() % pool.length];
  if (!info) throw new Error(`${file} lists no ${mode} cluster`);
  cached.set(mode, info);
  return info;
}

/** A KubeConfig for the admin user, or for the kubeconfig file given. */
export function kubeConfig(path: string = testCluster().kubeconfigPath): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

/** A KubeConfig of `cluster` (the test cluster by default) that authenticates with a bearer token only. */
export function tokenKubeConfig(
  token: string,
  cluster: Pick<LocalClusterInfo, 'server' | 'servingCaPem'> = testCluster(),
): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'cluster',
        server: cluster.server,
        caData: Buffer.from(cluster.servingCaPem).toString('base64'),
      },
    ],
    users: [{ name: 'token', token }],
    contexts: [{ name: 'token', cluster: 'cluster', user: 'token' }],
    currentContext: 'token',
  });
  return kc;
}

/**
 * Lets `subject` read ConfigMaps in `namespace`, as the admin: a Role `configmap-reader` (the
 * built-in `view` ClusterRole is aggregated by kube-controller-manager, which a bare control
 * plane does not run) and a RoleBinding `binding` of it.
 */
export async function grantConfigMapReader(
  namespace: string,
  binding: string,
  subject: k8s.RbacV1Subject,
): Promise<void> {
  const rbac = kubeConfig().makeApiClient(k8s.RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace,
    body: {
      metadata: { name: 'configmap-reader' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: binding },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-reader' },
      subjects: [subject],
    },
  });
}

/** A unique DNS-1123 name with a readable prefix. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

/**
 * Creates a fresh namespace for one test file. Namespaces are not deleted afterwards (a bare
 * cluster has no namespace controller to finalize them; every cluster is thrown away at the
 * end of the run). In a workloads cluster it also waits for the namespace's `default`
 * ServiceAccount, which kube-controller-manager creates and pods need to be admitted.
 */
export async function createTestNamespace(prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  const kc = kubeConfig();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({
    body: { metadata: { name, labels: { 'planwright.dev/test': 'true' } } },
  });
  if (testCluster().mode === 'workloads') {
    await waitFor(`ServiceAccount ${name}/default`, () =>
      core.readNamespacedServiceAccount({ namespace: name, name: 'default' }),
    );
  }
  return name;
}

/**
 * A client-certificate user of the shared cluster with only the given groups; `server` to
 * reach it another way (a proxy in front of it).
 */
export async function mintUser(
  name: string,
  groups: readonly string[] = [],
  server?: string,
): Promise<UserCredentials> {
  const info = testCluster();
  return writeUserKubeconfig({
    path: `${info.workDir}/user-${name}-${randomBytes(3).toString('hex')}.kubeconfig`,
    server: server ?? info.server,
    servingCaPem: info.servingCaPem,
    clientCa: info.clientCa,
    user: name,
    groups,
  });
}

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the version-matched kubectl built with the control plane; never throws on exit code. */
export async function kubectl(
  args: readonly string[],
  options: {
    kubeconfig?: string;
    input?: string;
    env?: NodeJS.ProcessEnv;
    timeoutMs?: number;
  } = {},
): Promise<KubectlResult> {
  const info = testCluster();
  return new Promise((resolve, reject) => {
    const child = execFile(
      info.binaries.kubectl,
      ['--kubeconfig', options.kubeconfig ?? info.kubeconfigPath, ...args],
      { env: { ...process.env, ...options.env }, timeout: options.timeoutMs ?? 60_000 },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') return reject(new Error(err.message));
        resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
