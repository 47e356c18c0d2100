// Real nodes of a workloads cluster: what they need on the machine (prepare), and the running
// set — the local registry, one real node and, for mixed nodes, the placement webhook.
import type { AdminApi } from '../api.ts';
import { ensureControlPlaneBinaries, type NodeBinaries } from '../binaries.ts';
import type { ManagedProcess } from '../process.ts';
import type { ClusterPki } from '../pki.ts';
import { StopStack } from '../stop-stack.ts';
import { waitUntilReady } from '../wait.ts';
import { NodeSetupError } from './errors.ts';
import { ensureHostPackages, type HostPackagePaths } from './host-packages.ts';
import { NO_LEFTOVERS, type Leftovers } from './leftovers.ts';
import { realNodesUnavailable, type NodeKind } from './node-kind.ts';
import {
  PLACEMENT_WEBHOOK_NAME,
  startPlacementWebhook,
  type PlacementWebhook,
} from './placement.ts';
import { startRealNode, type RealNode } from './real-node.ts';
import { startLocalRegistry } from './registry-server.ts';

export interface PreparedNodes {
  readonly binaries: NodeBinaries;
  readonly host: HostPackagePaths;
}

/**
 * Builds (or finds) what real nodes run: the kubelet and the registry from Go modules,
 * containerd, runc, the CNI plugins and busybox from Debian. Answers a one-line reason instead
 * when this machine cannot run them; a failed build is an error like any other.
 */
export async function prepareRealNodes(options: {
  readonly onProgress?: ((line: string) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
}): Promise<PreparedNodes | { readonly unavailable: string }> {
  const reason = realNodesUnavailable();
  if (reason) return { unavailable: reason };
  let host: HostPackagePaths;
  try {
    host = await ensureHostPackages(options);
  } catch (err) {
    if (err instanceof NodeSetupError) return { unavailable: err.message.split('\n')[0] ?? '' };
    throw err;
  }
  const binaries = await ensureControlPlaneBinaries({
    mode: 'workloads',
    realNodes: true,
    onProgress: options.onProgress,
    signal: options.signal,
  });
  return { binaries, host };
}

export interface NodeRuntimeInput {
  readonly kind: Exclude<NodeKind, 'kwok'>;
  readonly prepared: PreparedNodes;
  readonly nodeName: string;
  /** Pod bridge name: at most 15 characters, unique on the machine. */
  readonly bridge: string;
  readonly workDir: string;
  readonly server: string;
  readonly pki: ClusterPki;
  readonly api: AdminApi;
  readonly readyTimeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly progress: (line: string) => void;
  readonly onSpawn: (process: ManagedProcess) => Promise<void>;
  /** Node taints that do not keep the node from being ready (mixed mode's kwok taint). */
  readonly ignoredTaints: readonly string[];
}

export interface NodeRuntime {
  /** host:port of the local registry. */
  readonly registry: string;
  readonly node: RealNode;
  readonly registryProcess: ManagedProcess;
  readonly placement?: PlacementWebhook;
  /** Stops the node, its containers, the webhook and the registry; returns what remains. */
  stop(): Promise<Leftovers>;
}

interface NodeView {
  spec?: { taints?: Array<{ key: string; effect: string }> };
  status?: { conditions?: Array<{ type: string; status: string; message?: string }> };
}

const WEBHOOK_CONFIGURATIONS =
  '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';

/**
 * Starts the registry, the real node and, for mixed nodes, the placement webhook. On failure
 * everything it started is stopped again before the error propagates.
 */
export async function startNodeRuntime(input: NodeRuntimeInput): Promise<NodeRuntime> {
  const { prepared } = input;
  // Each part pushes its stop as it starts: the webhook goes first, then the node, then the
  // registry.
  const stops = new StopStack();
  let left: Leftovers = NO_LEFTOVERS;
  const stop = async (): Promise<Leftovers> => {
    await stops.stopAll();
    return left;
  };
  try {
    const registry = await startLocalRegistry({
      binary: prepared.binaries.registry,
      busybox: prepared.host.busybox,
      workDir: input.workDir,
      readyTimeoutMs: input.readyTimeoutMs,
      signal: input.signal,
      onSpawn: async (p) => {
        stops.defer(() => p.stop());
        await input.onSpawn(p);
      },
    });
    input.progress(`image registry on ${registry.address} (busybox, alpine, nginx, pause)`);
    const node = await startRealNode({
      name: input.nodeName,
      workDir: input.workDir,
      server: input.server,
      pki: input.pki,
      binaries: prepared.binaries,
      host: prepared.host,
      api: input.api,
      registry: registry.address,
      bridge: input.bridge,
      readyTimeoutMs: input.readyTimeoutMs,
      signal: input.signal,
      progress: input.progress,
      onSpawn: input.onSpawn,
    });
    stops.defer(async () => {
      left = await node.stop();
    });
    await waitUntilNodeReady(input, node);
    const placement =
      input.kind === 'mixed' ? await startPlacement(input, registry.address, stops) : undefined;
    return {
      registry: registry.address,
      node,
      registryProcess: registry.process,
      placement,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Waits until the node is registered, Ready and free of taints but the ignored ones. */
async function waitUntilNodeReady(input: NodeRuntimeInput, node: RealNode): Promise<void> {
  await waitUntilReady({
    what: `real node ${input.nodeName} Ready and untainted`,
    blame: node.kubelet,
    running: [node.containerd, node.kubelet],
    timeoutMs: input.readyTimeoutMs,
    signal: input.signal,
    check: async () => {
      const view = await input.api.get<NodeView>(`/api/v1/nodes/${input.nodeName}`);
      if (!view) return 'not registered yet';
      const ready = view.status?.conditions?.find((c) => c.type === 'Ready');
      if (ready?.status !== 'True')
        return `Ready is ${ready?.status ?? 'not reported'}: ${ready?.message ?? ''}`;
      const taint = view.spec?.taints?.find(
        (t) => t.effect !== 'PreferNoSchedule' && !input.ignoredTaints.includes(t.key),
      );
      return taint ? `still tainted ${taint.key}:${taint.effect}` : true;
    },
  });
}

/** Mixed nodes: the placement webhook, served and registered with the apiserver. */
async function startPlacement(
  input: NodeRuntimeInput,
  registry: string,
  stops: StopStack,
): Promise<PlacementWebhook> {
  const placement = await startPlacementWebhook({ servingCa: input.pki.servingCa, registry });
  stops.defer(async () => {
    await input.api
      .delete(`${WEBHOOK_CONFIGURATIONS}/${PLACEMENT_WEBHOOK_NAME}`)
      .catch(() => undefined);
    await placement.close();
  });
  await input.api.create(WEBHOOK_CONFIGURATIONS, placement.configuration);
  return placement;
}
