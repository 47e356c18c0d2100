// The workloads mode of a local cluster, on top of its running apiserver: the workload
// components with their kwok nodes (workloads.ts) and, for real or mixed nodes, the real node
// with its image registry (nodes/runtime.ts).
import { join } from 'node:path';
import type { AdminApi } from './api.ts';
import type { WorkloadBinaries } from './binaries.ts';
import type { LocalClusterInfo } from './cluster-types.ts';
import type { ClusterPki } from './pki.ts';
import type { StartContext } from './start-context.ts';
import { STORAGE_CLASS_NAME } from './workload-objects.ts';
import { startWorkloads, type WorkloadComponents } from './workloads.ts';
import type { NodeTraces } from './nodes/leftovers.ts';
import type { NodeKind } from './nodes/node-kind.ts';
import { SIMULATED_NODE_TAINT } from './nodes/placement.ts';
import { NODE_KIND_LABEL, nodeTraces } from './nodes/real-node.ts';
import { startNodeRuntime, type NodeRuntime, type PreparedNodes } from './nodes/runtime.ts';

const WORKLOAD_COMPONENTS = new Set<string>(['kube-controller-manager', 'kube-scheduler', 'kwok']);
/** The real node of a cluster with real or mixed nodes. */
export const REAL_NODE_NAME = 'node-1';

export interface WorkloadModeInput {
  readonly server: string;
  readonly pki: ClusterPki;
  readonly binaries: WorkloadBinaries;
  readonly api: AdminApi;
  /** The nodes that run: kwok where real nodes are not possible. */
  readonly nodeKind: NodeKind;
  /** What real nodes need; present when nodeKind is real or mixed. */
  readonly prepared: PreparedNodes | undefined;
  /** kwok nodes (none with real nodes alone). */
  readonly kwokNodes: number;
  /** The real node's pod bridge: at most 15 characters, unique on the machine. */
  readonly bridge: string;
}

export interface WorkloadMode {
  readonly components: WorkloadComponents;
  /** The nodes it started with: kwok's, then the real one. */
  readonly nodes: readonly string[];
  readonly info: Pick<
    LocalClusterInfo,
    'storageClassName' | 'nodeKind' | 'imageRegistry' | 'realNodes' | 'execBinDir'
  >;
  /** Process ids of its components, named as in ComponentPids. */
  pids(): Record<string, number>;
}

/**
 * Starts kube-controller-manager, kube-scheduler and kwok with their nodes, then the real node
 * if there is one, and waits until every node takes pods.
 */
export async function startWorkloadMode(
  ctx: StartContext,
  input: WorkloadModeInput,
): Promise<WorkloadMode> {
  let runtime: NodeRuntime | undefined;
  // One stop for both parts, in this order (the real node starts later, so a stop of its own
  // would run first).
  ctx.stops.defer(async () => {
    // Workload components first: nothing may provision or write while the rest goes down.
    for (const p of ctx.processes.newestFirst()) {
      if (WORKLOAD_COMPONENTS.has(p.name)) await p.stop();
    }
    // Then the real node: its kubelet, every container, containerd and the registry.
    await runtime?.stop();
  });
  const started = await startWorkloads({
    workDir: ctx.workDir,
    server: input.server,
    pki: input.pki,
    binaries: input.binaries,
    api: input.api,
    nodeCount: input.kwokNodes,
    nodeLabels: { [NODE_KIND_LABEL]: 'kwok' },
    nodeTaints: input.nodeKind === 'mixed' ? [SIMULATED_NODE_TAINT] : undefined,
    readyTimeoutMs: ctx.readyTimeoutMs,
    signal: ctx.signal,
    progress: ctx.progress,
    onSpawn: (p) => ctx.processes.add(p),
  });
  if (input.prepared && input.nodeKind !== 'kwok') {
    const real = await startRealNode(ctx, input, input.nodeKind, input.prepared);
    runtime = real.runtime;
    return workloadMode(
      started.components,
      input.nodeKind,
      [...started.nodes, REAL_NODE_NAME],
      real,
    );
  }
  return workloadMode(started.components, input.nodeKind, started.nodes);
}

function workloadMode(
  components: WorkloadComponents,
  nodeKind: NodeKind,
  nodes: readonly string[],
  real?: RealNodeRun,
): WorkloadMode {
  return {
    components,
    nodes,
    info: {
      storageClassName: STORAGE_CLASS_NAME,
      nodeKind,
      imageRegistry: real?.runtime.registry,
      realNodes: real && [real.traces],
      execBinDir: components.execBinDir,
    },
    pids: () => ({
      kubeControllerManager: components.controllerManager.pid,
      kubeScheduler: components.scheduler.pid,
      kwok: components.kwok.pid,
      // Only the components that run are named (callers list the keys).
      ...(real
        ? {
            registry: real.runtime.registryProcess.pid,
            containerd: real.runtime.node.containerd.pid,
            kubelet: real.runtime.node.kubelet.pid,
          }
        : {}),
    }),
  };
}

interface RealNodeRun {
  readonly runtime: NodeRuntime;
  /** Where it leaves traces, as recorded before it started. */
  readonly traces: NodeTraces;
}

/**
 * The registry and the real node (and, for mixed nodes, the placement webhook), its traces
 * recorded first.
 */
async function startRealNode(
  ctx: StartContext,
  input: WorkloadModeInput,
  kind: Exclude<NodeKind, 'kwok'>,
  prepared: PreparedNodes,
): Promise<RealNodeRun> {
  // The same traces the node writes for itself, nft included: a later start's reaper removes
  // a killed owner's route table only when the record names the nft that installed it.
  const traces = nodeTraces(
    join(ctx.workDir, `node-${REAL_NODE_NAME}`),
    input.bridge,
    prepared.host,
  );
  await ctx.processes.addRealNode(traces);
  const runtime = await startNodeRuntime({
    kind,
    prepared,
    nodeName: REAL_NODE_NAME,
    bridge: input.bridge,
    workDir: ctx.workDir,
    server: input.server,
    pki: input.pki,
    api: input.api,
    readyTimeoutMs: ctx.readyTimeoutMs,
    signal: ctx.signal,
    progress: ctx.progress,
    onSpawn: (p) => ctx.processes.add(p),
    ignoredTaints: [SIMULATED_NODE_TAINT.key],
  });
  return { runtime, traces };
}
