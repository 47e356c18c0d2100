// One real node: containerd (CRI) + runc + the CNI bridge, and a kubelet registered with the
// cluster, all state under `<cluster folder>/node-<name>/`. Pulls go to the cluster's own
// registry (see containerd-config.ts).
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AdminApi } from '../api.ts';
import type { NodeBinaries } from '../binaries.ts';
import { writeUserKubeconfig } from '../kubeconfig.ts';
import type { ClusterPki } from '../pki.ts';
import { freeLoopbackPort } from '../ports.ts';
import { startProcess, type ManagedProcess } from '../process.ts';
import { waitUntilReady } from '../wait.ts';
import {
  cniConfigList,
  containerdConfigToml,
  MIRRORED_REGISTRIES,
  registryHostsToml,
  type NodeFolders,
} from './containerd-config.ts';
import type { HostPackagePaths } from './host-packages.ts';
import { kubeletArgs, kubeletConfigYaml } from './kubelet-config.ts';
import {
  findLeftovers,
  NO_LEFTOVERS,
  removeLeftovers,
  type Leftovers,
  type NodeTraces,
} from './leftovers.ts';
import { installServiceRoute } from './service-route.ts';
import { KUBERNETES_SERVICE_IP, SERVICE_CIDR } from '../args.ts';
import { createPodNetwork, type PodNetwork } from './network.ts';

/** Label of every node, saying whether containers really run on it. */
export const NODE_KIND_LABEL = 'planwright.dev/node-kind';

export interface RealNodeInput {
  readonly name: string;
  /** The cluster's folder; the node's lives inside it. */
  readonly workDir: string;
  readonly server: string;
  readonly pki: ClusterPki;
  readonly binaries: Pick<NodeBinaries, 'kubelet'>;
  readonly host: HostPackagePaths;
  readonly api: AdminApi;
  /** host:port of the local registry. */
  readonly registry: string;
  /** Bridge name (at most 15 characters, unique on the machine). */
  readonly bridge: string;
  readonly readyTimeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly progress: (line: string) => void;
  /** Called for each process as soon as it is spawned (to stop it and record it). */
  readonly onSpawn: (process: ManagedProcess) => Promise<void>;
}

export interface RealNode {
  readonly name: string;
  readonly network: PodNetwork;
  readonly traces: NodeTraces;
  readonly containerd: ManagedProcess;
  readonly kubelet: ManagedProcess;
  /** Stops the kubelet, every container and containerd; returns what could not be removed. */
  stop(): Promise<Leftovers>;
}

/** The folders of a node under the cluster folder. */
export function nodeFolders(nodeDir: string, host: HostPackagePaths): NodeFolders {
  return {
    containerdRoot: join(nodeDir, 'containerd'),
    containerdState: join(nodeDir, 'containerd-state'),
    containerdSocket: join(nodeDir, 'containerd.sock'),
    runcRoot: join(nodeDir, 'runc'),
    registryHosts: join(nodeDir, 'registry-hosts'),
    cniConfDir: join(nodeDir, 'cni'),
    cniBinDir: host.cniBinDir,
  };
}

/** The node's traces, also written to `<nodeDir>/traces.json` for a later clean-up. */
export function nodeTraces(nodeDir: string, bridge: string, host: HostPackagePaths): NodeTraces {
  return { nodeDir, runcRoot: join(nodeDir, 'runc'), bridge, nft: host.nft };
}

const NODE_RBAC = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'planwright:nodes' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:node' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' }],
};

/**
 * Starts containerd and the kubelet of one node and waits until the node is registered and
 * Ready. On failure everything it started is removed again before the error propagates.
 */
export async function startRealNode(input: RealNodeInput): Promise<RealNode> {
  const nodeDir = join(input.workDir, `node-${input.name}`);
  const folders = nodeFolders(nodeDir, input.host);
  const traces = nodeTraces(nodeDir, input.bridge, input.host);
  for (const dir of [nodeDir, folders.runcRoot, folders.cniConfDir, join(nodeDir, 'static-pods')]) {
    await mkdir(dir, { recursive: true });
  }
  await writeFile(join(nodeDir, 'traces.json'), JSON.stringify(traces));
  const processes: ManagedProcess[] = [];
  const stop = async (): Promise<Leftovers> => {
    for (const p of [...processes].reverse()) await p.stop(10_000);
    return removeLeftovers({ ...traces, runc: input.host.runc });
  };
  try {
    const network = await createPodNetwork(input.bridge, input.signal);
    installServiceRoute({
      nft: input.host.nft,
      bridge: network.bridge,
      serviceIp: KUBERNETES_SERVICE_IP,
      servicePort: 443,
      apiServerPort: Number(new URL(input.server).port),
    });
    const node: NodeSetup = {
      input,
      nodeDir,
      folders,
      network,
      spawned: async (p) => {
        processes.push(p);
        await input.onSpawn(p);
      },
    };
    const containerd = await startContainerd(node);
    const kubelet = await startKubelet(node);
    return { name: input.name, network, traces, containerd, kubelet, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** What the steps of a node's start share. */
interface NodeSetup {
  readonly input: RealNodeInput;
  readonly nodeDir: string;
  readonly folders: NodeFolders;
  readonly network: PodNetwork;
  /** Called for each process as soon as it is spawned (to stop it and record it). */
  readonly spawned: (process: ManagedProcess) => Promise<void>;
}

/** containerd with the node's CNI and registry configuration, awaited until its socket exists. */
async function startContainerd(node: NodeSetup): Promise<ManagedProcess> {
  const { input, nodeDir, folders, network } = node;
  await writeFile(
    join(folders.cniConfDir, '10-planwright.conflist'),
    cniConfigList({
      bridge: network.bridge,
      subnet: network.subnet,
      gateway: network.gateway,
      ipamDataDir: join(nodeDir, 'cni-ipam'),
      serviceCidr: SERVICE_CIDR,
    }),
  );
  for (const name of MIRRORED_REGISTRIES) {
    await mkdir(join(folders.registryHosts, name), { recursive: true });
    await writeFile(
      join(folders.registryHosts, name, 'hosts.toml'),
      registryHostsToml(input.registry),
    );
  }
  const containerdConfig = join(nodeDir, 'containerd.toml');
  await writeFile(containerdConfig, containerdConfigToml({ folders, runcBinary: input.host.runc }));

  const containerd = startProcess(
    'containerd',
    input.host.containerd,
    ['--config', containerdConfig],
    join(nodeDir, 'containerd.log'),
    // The shims are found on PATH, next to containerd.
    withContainerdOnPath(input.host),
  );
  await node.spawned(containerd);
  input.progress(
    `node ${input.name}: containerd starting (pods on ${network.bridge} ${network.subnet})`,
  );
  await waitUntilReady({
    what: `containerd of node ${input.name}`,
    blame: containerd,
    running: [containerd],
    timeoutMs: input.readyTimeoutMs,
    signal: input.signal,
    check: () => Promise.resolve(existsSync(folders.containerdSocket) || 'no socket yet'),
  });
  return containerd;
}

/** The kubelet, with its identity in group system:nodes (the node's own RBAC). */
async function startKubelet(node: NodeSetup): Promise<ManagedProcess> {
  const { input, nodeDir, folders, network } = node;
  await input.api.create('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', NODE_RBAC);
  const kubeconfig = join(nodeDir, 'kubelet.kubeconfig');
  await writeUserKubeconfig({
    path: kubeconfig,
    server: input.server,
    servingCaPem: input.pki.servingCa.certPem,
    clientCa: input.pki.clientCa,
    user: `system:node:${input.name}`,
    groups: ['system:nodes'],
  });
  const configFile = join(nodeDir, 'kubelet.yaml');
  await writeFile(
    configFile,
    kubeletConfigYaml({
      nodeIp: network.gateway,
      port: await freeLoopbackPort(),
      clientCaFile: input.pki.files.clientCa,
      containerdSocket: folders.containerdSocket,
      staticPodDir: join(nodeDir, 'static-pods'),
      podLogsDir: join(nodeDir, 'pod-logs'),
    }),
  );
  const kubelet = startProcess(
    'kubelet',
    input.binaries.kubelet,
    kubeletArgs({
      configFile,
      kubeconfig,
      rootDir: join(nodeDir, 'kubelet'),
      certDir: join(nodeDir, 'kubelet-pki'),
      nodeName: input.name,
      nodeIp: network.gateway,
      labels: { [NODE_KIND_LABEL]: 'real' },
    }),
    join(nodeDir, 'kubelet.log'),
    withContainerdOnPath(input.host),
  );
  await node.spawned(kubelet);
  input.progress(`node ${input.name}: kubelet starting`);
  return kubelet;
}

/** The environment with containerd's folder first on PATH. */
function withContainerdOnPath(host: HostPackagePaths): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${host.containerdBinDir}:${process.env['PATH'] ?? ''}` };
}

/** What of a node whose owner died is still there, removed. */
export function removeOrphanedNode(traces: NodeTraces, runc: string): Leftovers {
  return existsSync(traces.nodeDir) || findLeftovers(traces).bridge
    ? removeLeftovers({ ...traces, runc })
    : NO_LEFTOVERS;
}
