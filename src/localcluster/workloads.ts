// The workloads mode on top of a running etcd + kube-apiserver: kube-controller-manager,
// kube-scheduler and kwok, with their identities, bootstrap objects and readiness waits.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AdminApi } from './api.ts';
import { controllerManagerArgs, kwokArgs, schedulerArgs } from './args.ts';
import type { WorkloadBinaries } from './binaries.ts';
import { writeUserKubeconfig } from './kubeconfig.ts';
import { kwokStagesYaml } from './kwok-stages.ts';
import type { ClusterPki } from './pki.ts';
import { startProcess, type ManagedProcess } from './process.ts';
import { freeLoopbackPort } from './ports.ts';
import { KUBERNETES_VERSION } from './versions.ts';
import { waitUntilReady } from './wait.ts';
import {
  defaultStorageClass,
  fakeNode,
  initialNodes,
  KWOK_USER,
  kwokExecCrd,
  kwokRbac,
  type FakeNodeOptions,
  type Manifest,
} from './workload-objects.ts';

export interface WorkloadComponents {
  readonly controllerManager: ManagedProcess;
  readonly scheduler: ManagedProcess;
  readonly kwok: ManagedProcess;
  /** kwok's kubelet server port (every node's status.daemonEndpoints). */
  readonly kubeletPort: number;
  /**
   * First folder on kwok's PATH. kwok runs an exec request as a local command (an Exec object
   * maps the pod to a working directory); programs put here stand in for the container's.
   */
  readonly execBinDir: string;
}

export interface StartWorkloadsInput {
  readonly workDir: string;
  readonly server: string;
  readonly pki: ClusterPki;
  readonly binaries: WorkloadBinaries;
  readonly api: AdminApi;
  readonly nodeCount: number;
  /** Taints of the kwok nodes (mixed nodes) and labels they carry. */
  readonly nodeTaints?: FakeNodeOptions['taints'];
  readonly nodeLabels?: FakeNodeOptions['labels'];
  readonly readyTimeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly progress: (line: string) => void;
  /** Called for each process as soon as it is spawned (to stop it and record it). */
  readonly onSpawn: (process: ManagedProcess) => Promise<void>;
}

/** Identities of the components: client certificates from the cluster's client CA. */
const IDENTITIES = {
  controllerManager: 'system:kube-controller-manager',
  scheduler: 'system:kube-scheduler',
  kwok: KWOK_USER,
} as const;

/**
 * Starts kube-controller-manager, kube-scheduler and kwok, creates the fake nodes, the default
 * StorageClass and kwok's RBAC, and waits until the cluster runs workloads: the ServiceAccount
 * `default/default` exists (kube-controller-manager's /healthz answers before its controllers
 * run, so an object they create is the real signal) and every node is Ready without the
 * not-ready taint (kwok heartbeats, node-lifecycle controller reacted).
 */
export async function startWorkloads(
  input: StartWorkloadsInput,
): Promise<{ components: WorkloadComponents; nodes: string[] }> {
  const { workDir, api } = input;
  const stagesFile = join(workDir, 'kwok-stages.yaml');
  await writeFile(stagesFile, kwokStagesYaml(KUBERNETES_VERSION));
  const execBinDir = join(workDir, 'kwok-exec-bin');
  await mkdir(execBinDir);
  const kubeletPort = await freeLoopbackPort();
  const nodes = await createBootstrapObjects(input, kubeletPort);
  input.progress('kube-controller-manager, kube-scheduler and kwok starting');
  const components = await spawnComponents(input, { stagesFile, execBinDir, kubeletPort });

  await waitUntilReady({
    what: 'ServiceAccount default/default (created by kube-controller-manager)',
    blame: components.controllerManager,
    running: [components.controllerManager, components.scheduler, components.kwok],
    timeoutMs: input.readyTimeoutMs,
    signal: input.signal,
    check: async () =>
      (await api.get('/api/v1/namespaces/default/serviceaccounts/default')) !== undefined ||
      'not created yet',
  });
  await waitForNodes(
    api,
    nodes,
    components,
    input.readyTimeoutMs,
    input.signal,
    (input.nodeTaints ?? []).map((t) => t.key),
  );
  return { components, nodes };
}

/** kwok's RBAC and Exec CRD, the default StorageClass and the fake nodes; answers their names. */
async function createBootstrapObjects(
  input: StartWorkloadsInput,
  kubeletPort: number,
): Promise<string[]> {
  const { api } = input;
  for (const manifest of kwokRbac()) await api.create(collectionPath(manifest), manifest);
  const execCrd = kwokExecCrd();
  await api.create(collectionPath(execCrd), execCrd);
  const storageClass = defaultStorageClass();
  await api.create(collectionPath(storageClass), storageClass);
  const nodes = initialNodes(input.nodeCount);
  for (const node of nodes) {
    const manifest = fakeNode(node.name, {
      internalIp: node.internalIp,
      kubeletPort,
      taints: input.nodeTaints,
      labels: input.nodeLabels,
    });
    await api.create(collectionPath(manifest), manifest);
  }
  return nodes.map((n) => n.name);
}

/** Spawns the three components, each with a kubeconfig of its own identity. */
async function spawnComponents(
  input: StartWorkloadsInput,
  files: { stagesFile: string; execBinDir: string; kubeletPort: number },
): Promise<WorkloadComponents> {
  const spawn = async (
    name: ManagedProcess['name'],
    binary: string,
    args: string[],
    env?: NodeJS.ProcessEnv,
  ): Promise<ManagedProcess> => {
    const proc = startProcess(name, binary, args, join(input.workDir, `${name}.log`), env);
    await input.onSpawn(proc);
    return proc;
  };
  const controllerManager = await spawn(
    'kube-controller-manager',
    input.binaries.kubeControllerManager,
    controllerManagerArgs({
      kubeconfig: await componentKubeconfig(input, 'controllerManager'),
      pki: input.pki,
    }),
  );
  const scheduler = await spawn(
    'kube-scheduler',
    input.binaries.kubeScheduler,
    schedulerArgs({ kubeconfig: await componentKubeconfig(input, 'scheduler') }),
  );
  const { stagesFile, execBinDir, kubeletPort } = files;
  const kwok = await spawn(
    'kwok',
    input.binaries.kwok,
    kwokArgs({
      kubeconfig: await componentKubeconfig(input, 'kwok'),
      stagesFile,
      serverPort: kubeletPort,
    }),
    { ...process.env, PATH: `${execBinDir}:${process.env['PATH'] ?? ''}` },
  );
  return { controllerManager, scheduler, kwok, kubeletPort, execBinDir };
}

async function componentKubeconfig(
  input: StartWorkloadsInput,
  who: keyof typeof IDENTITIES,
): Promise<string> {
  const path = join(input.workDir, `${who}.kubeconfig`);
  await writeUserKubeconfig({
    path,
    server: input.server,
    servingCaPem: input.pki.servingCa.certPem,
    clientCa: input.pki.clientCa,
    user: IDENTITIES[who],
  });
  return path;
}

interface NodeView {
  metadata: { name: string };
  spec?: { taints?: Array<{ key: string; effect: string }> };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

/**
 * What keeps a node from taking pods, or undefined when it takes them. Taints named in
 * `ownTaints` are the node's by design (mixed nodes' kwok taint) and do not count.
 */
export function nodeNotSchedulableReason(
  node: NodeView | undefined,
  ownTaints: readonly string[] = [],
): string | undefined {
  if (!node) return 'does not exist';
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return `Ready is ${ready?.status ?? 'not reported'}`;
  const taint = node.spec?.taints?.find(
    (t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !ownTaints.includes(t.key),
  );
  if (taint) return `still tainted ${taint.key}:${taint.effect}`;
  return undefined;
}

/** Waits until every named node is Ready (kwok) and free of NoSchedule taints (kcm). */
export async function waitForNodes(
  api: AdminApi,
  names: readonly string[],
  components: WorkloadComponents,
  timeoutMs: number,
  signal?: AbortSignal,
  ownTaints: readonly string[] = [],
): Promise<void> {
  if (names.length === 0) return;
  let readyButTainted = false;
  const check = async (): Promise<true | string> => {
    const list = await api.get<{ items: NodeView[] }>('/api/v1/nodes');
    const byName = new Map((list?.items ?? []).map((n) => [n.metadata.name, n]));
    const waiting = names
      .map((name) => [name, nodeNotSchedulableReason(byName.get(name), ownTaints)] as const)
      .filter(([, reason]) => reason !== undefined);
    if (waiting.length === 0) return true;
    readyButTainted = waiting.every(([, reason]) => reason?.startsWith('still tainted'));
    return waiting.map(([name, reason]) => `${name}: ${reason}`).join('; ');
  };
  await waitUntilReady({
    what: `nodes ${names.join(', ')}`,
    // Ready but still tainted: the node-lifecycle controller (kcm) did not react; not Ready:
    // kwok did not bring the node up.
    blame: () => (readyButTainted ? components.controllerManager : components.kwok),
    running: [components.controllerManager, components.scheduler, components.kwok],
    timeoutMs,
    signal,
    check,
  });
}

/** Creates one more fake node and waits until it takes pods. */
export async function addFakeNode(
  api: AdminApi,
  name: string,
  options: FakeNodeOptions,
  components: WorkloadComponents,
  timeoutMs: number,
): Promise<void> {
  const manifest = fakeNode(name, { kubeletPort: components.kubeletPort, ...options });
  await api.create(collectionPath(manifest), manifest);
  await waitForNodes(api, [name], components, timeoutMs);
}

/**
 * Removes the folders kube-controller-manager's host-path provisioner created for this
 * cluster's volumes (it always uses /tmp/hostpath_pv/<uid>, whatever TMPDIR says). Runs while
 * the apiserver is still up, after kube-controller-manager stopped: best effort, errors ignored.
 */
export async function removeProvisionedVolumes(api: AdminApi): Promise<void> {
  let list: { items?: Array<{ spec?: { hostPath?: { path?: string } } }> } | undefined;
  try {
    list = await api.get('/api/v1/persistentvolumes');
  } catch {
    return;
  }
  for (const pv of list?.items ?? []) {
    const path = pv.spec?.hostPath?.path ?? '';
    if (/^\/tmp\/hostpath_pv\/[0-9a-f-]+$/.test(path))
      await rm(path, { recursive: true, force: true });
  }
}

/** The collection a cluster-scoped manifest is POSTed to. */
export function collectionPath(manifest: Manifest): string {
  const apiVersion = String(manifest['apiVersion']);
  const kind = String(manifest['kind']);
  const plural = PLURALS.get(kind);
  if (!plural) throw new Error(`no collection known for kind ${kind}`);
  const prefix = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return `${prefix}/${plural}`;
}

const PLURALS: ReadonlyMap<string, string> = new Map([
  ['Node', 'nodes'],
  ['StorageClass', 'storageclasses'],
  ['ClusterRole', 'clusterroles'],
  ['ClusterRoleBinding', 'clusterrolebindings'],
  ['CustomResourceDefinition', 'customresourcedefinitions'],
]);
