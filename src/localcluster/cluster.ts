import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdminApi } from './api.ts';
import {
  ensureControlPlaneBinaries,
  type ControlPlaneBinaries,
  type WorkloadBinaries,
} from './binaries.ts';
import { clusterHandle } from './cluster-handle.ts';
import type { LocalCluster, LocalClusterOptions } from './cluster-types.ts';
import { KubeApiServer, startEtcd } from './control-plane.ts';
import { writeUserKubeconfig } from './kubeconfig.ts';
import type { ClusterMode } from './mode.ts';
import { ADMIN_USER, writeClusterPki, type ClusterPki } from './pki.ts';
import { freeLoopbackPort } from './ports.ts';
import { forgetCluster, reapOrphanedClusters } from './registry.ts';
import { ClusterProcesses, type StartContext } from './start-context.ts';
import { StopStack } from './stop-stack.ts';
import { REAL_NODE_NAME, startWorkloadMode, type WorkloadMode } from './workload-mode.ts';
import { removeProvisionedVolumes } from './workloads.ts';
import type { NodeKind } from './nodes/node-kind.ts';
import { prepareRealNodes, type PreparedNodes } from './nodes/runtime.ts';

export type {
  ComponentPids,
  LocalCluster,
  LocalClusterInfo,
  LocalClusterOptions,
} from './cluster-types.ts';

/**
 * The default time each readiness step of a start may take. The steps run one after another:
 * etcd, kube-apiserver, then in workloads mode the other components, then the kwok nodes.
 */
export const READY_TIMEOUT_MS = 60_000;
/** Readiness steps of a start in workloads mode (each within `readyTimeoutMs`). */
export const WORKLOADS_READY_STEPS = 4;

/**
 * Starts a local Kubernetes control plane on free loopback ports with freshly generated
 * certificates (serving, client CA + admin user, service-account signing key) and RBAC
 * authorization, and writes an admin kubeconfig. Bare: etcd + kube-apiserver, ready when the
 * apiserver is and namespace `default` exists. Workloads: also kube-controller-manager,
 * kube-scheduler and kwok with a few fake nodes and a default StorageClass, ready when the
 * ServiceAccount `default/default` exists and every node takes pods.
 *
 * See examples/api/localcluster.ts.
 */
export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const mode = options.mode ?? 'bare';
  const progress = options.onProgress ?? (() => undefined);
  const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
  await reapOrphanedClusters();
  const binaries = await binariesFor(mode, options);
  const { nodeKind, prepared } = await nodesFor(mode, options, progress);
  const { ctx, bridge } = await beginStart(
    { readyTimeoutMs, signal: options.signal, progress },
    prepared?.host.runc,
  );
  try {
    const pki = await writeClusterPki(await mkdirIn(ctx.workDir, 'pki'));
    const etcd = await startEtcd(ctx, binaries.etcd);
    const apiServer = new KubeApiServer(
      ctx,
      {
        binary: binaries.kubeApiServer,
        mode,
        etcd,
        pki,
        extraArgs: options.apiServerExtraArgs,
        profiling: options.profiling,
      },
      await freeLoopbackPort(),
    );
    if (mode === 'workloads') deferVolumeRemoval(ctx, apiServer.admin);
    progress(`kube-apiserver starting on ${apiServer.server}`);
    await apiServer.start();
    const kubeconfigPath = await writeAdminKubeconfig(ctx.workDir, apiServer.server, pki);

    const workloads =
      mode === 'workloads'
        ? await startWorkloadMode(ctx, {
            server: apiServer.server,
            pki,
            binaries: binaries as WorkloadBinaries,
            api: apiServer.admin,
            nodeKind,
            prepared,
            kwokNodes: nodeKind === 'real' ? 0 : (options.nodes ?? 3),
            bridge,
          })
        : undefined;
    progress(`local control plane (${mode}) ready${nodesLine(workloads)}: ${apiServer.server}`);
    return clusterHandle({
      mode,
      binaries,
      workDir: ctx.workDir,
      pki,
      kubeconfigPath,
      etcd,
      apiServer,
      workloads,
      readyTimeoutMs,
      stops: ctx.stops,
    });
  } catch (err) {
    await ctx.stops.stopAll();
    throw err;
  }
}

/**
 * The work folder of a new cluster, and what the steps of its start share. The stops pushed
 * here run last: every process goes (newest first; those a later step stopped already are
 * skipped), then the folder and the cluster's record.
 */
async function beginStart(
  settings: Pick<StartContext, 'readyTimeoutMs' | 'signal' | 'progress'>,
  runc: string | undefined,
): Promise<{ ctx: StartContext; bridge: string }> {
  const workDir = await mkdtemp(join(tmpdir(), 'planwright-cluster-'));
  const id = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const processes = new ClusterProcesses(id, workDir, runc);
  const stops = new StopStack();
  stops.defer(async () => {
    await rm(workDir, { recursive: true, force: true });
    await forgetCluster(id);
  });
  stops.defer(() => processes.stopAll());
  // The real node's pod bridge: unique on the machine, and at most 15 characters.
  return {
    ctx: { ...settings, workDir, processes, stops },
    bridge: `pw-${id.split('-')[1] ?? ''}`,
  };
}

/**
 * Workloads mode: before the processes go, the host-path folders kube-controller-manager
 * provisioned (outside the work folder) are removed, asked of the apiserver while it runs.
 */
function deferVolumeRemoval(ctx: StartContext, admin: AdminApi): void {
  ctx.stops.defer(async () => {
    const apiserver = ctx.processes.find('kube-apiserver');
    if (apiserver && !apiserver.hasExited()) await removeProvisionedVolumes(admin);
  });
}

/**
 * The nodes a workloads cluster can run here, and what its real nodes need (built or found):
 * kwok when real nodes are not possible on this machine.
 */
async function nodesFor(
  mode: ClusterMode,
  options: LocalClusterOptions,
  progress: (line: string) => void,
): Promise<{ nodeKind: NodeKind; prepared?: PreparedNodes }> {
  const nodeKind = options.nodeKind ?? 'kwok';
  if (mode !== 'workloads' || nodeKind === 'kwok') return { nodeKind };
  const result = await prepareRealNodes({ onProgress: options.onProgress, signal: options.signal });
  if ('unavailable' in result) {
    progress(`${nodeKind} nodes not possible here, using kwok nodes: ${result.unavailable}`);
    return { nodeKind: 'kwok' };
  }
  return { nodeKind, prepared: result };
}

async function mkdirIn(parent: string, name: string): Promise<string> {
  const dir = join(parent, name);
  await mkdir(dir);
  return dir;
}

async function writeAdminKubeconfig(
  workDir: string,
  server: string,
  pki: ClusterPki,
): Promise<string> {
  const path = join(workDir, 'admin.kubeconfig');
  await writeUserKubeconfig({
    path,
    server,
    servingCaPem: pki.servingCa.certPem,
    clientCa: pki.clientCa,
    user: ADMIN_USER,
    groups: ['system:masters'],
  });
  return path;
}

/** What the ready line says of the nodes: nothing in bare mode. */
function nodesLine(workloads: WorkloadMode | undefined): string {
  if (!workloads) return '';
  const kwok = workloads.nodes.filter((n) => n !== REAL_NODE_NAME).join(', ') || '(none)';
  switch (workloads.info.nodeKind) {
    case 'mixed':
      return ` with real node ${REAL_NODE_NAME} and kwok nodes ${kwok}`;
    case 'real':
      return ` with real node ${REAL_NODE_NAME}`;
    default:
      return ` with kwok nodes ${kwok}`;
  }
}

/** The given binaries when they cover the mode, else the cached (or freshly built) ones. */
async function binariesFor(
  mode: ClusterMode,
  options: LocalClusterOptions,
): Promise<ControlPlaneBinaries> {
  const given = options.binaries;
  const complete =
    given !== undefined &&
    (mode === 'bare' || (given.kubeControllerManager && given.kubeScheduler && given.kwok));
  if (complete) return given;
  return ensureControlPlaneBinaries({
    mode,
    onProgress: options.onProgress,
    signal: options.signal,
  });
}
