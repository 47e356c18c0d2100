import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CertificateAuthority } from '../pki/index.ts';
import { AdminApi } from './api.ts';
import { apiServerArgs, etcdArgs } from './args.ts';
import {
  ensureControlPlaneBinaries,
  type ControlPlaneBinaries,
  type WorkloadBinaries,
} from './binaries.ts';
import { probe, type ProbeTls } from './http.ts';
import { writeUserKubeconfig, type UserCredentials } from './kubeconfig.ts';
import type { ClusterMode } from './mode.ts';
import { ADMIN_USER, writeClusterPki } from './pki.ts';
import { freeLoopbackPort } from './ports.ts';
import { startProcess, type ManagedProcess } from './process.ts';
import { forgetCluster, reapOrphanedClusters, recordCluster } from './registry.ts';
import { waitUntilReady } from './wait.ts';
import type { NodeTraces } from './nodes/leftovers.ts';
import type { NodeKind } from './nodes/node-kind.ts';
import { SIMULATED_NODE_TAINT } from './nodes/placement.ts';
import { NODE_KIND_LABEL } from './nodes/real-node.ts';
import {
  prepareRealNodes,
  startNodeRuntime,
  type NodeRuntime,
  type PreparedNodes,
} from './nodes/runtime.ts';
import { STORAGE_CLASS_NAME, type FakeNodeOptions } from './workload-objects.ts';
import {
  addFakeNode,
  removeProvisionedVolumes,
  startWorkloads,
  type WorkloadComponents,
} from './workloads.ts';

export interface LocalClusterOptions {
  /** `bare` (default): etcd + kube-apiserver. `workloads`: pods run (see ClusterMode). */
  readonly mode?: ClusterMode;
  /** Prebuilt binaries; built (or found in the cache) when absent or incomplete for the mode. */
  readonly binaries?: ControlPlaneBinaries;
  /** Progress lines for a person watching. */
  readonly onProgress?: (line: string) => void;
  /** Aborting cancels a start in progress. It does not stop a started cluster: call stop(). */
  readonly signal?: AbortSignal;
  /** How long each readiness step may take. Default {@link READY_TIMEOUT_MS}. */
  readonly readyTimeoutMs?: number;
  /** Fake nodes of the workloads mode (kwok and mixed node kinds). Default 3. */
  readonly nodes?: number;
  /**
   * Workloads mode: `kwok` (default) simulated nodes, `real` one real node (kubelet,
   * containerd, runc) pulling from the cluster's own image registry, `mixed` both (see
   * NodeKind). Real nodes need root; without, the start says why in one line and uses kwok.
   */
  readonly nodeKind?: NodeKind;
  /**
   * More kube-apiserver flags, e.g. an audit log for a benchmark that counts requests per
   * user. Flags the harness sets itself are refused (see apiServerArgs).
   */
  readonly apiServerExtraArgs?: readonly string[];
  /** kube-apiserver serves /debug/pprof (benchmarks' CPU profiles). Default off. */
  readonly profiling?: boolean;
}

/**
 * Process ids of the running components: etcd and kubeApiServer always; in workloads mode also
 * kubeControllerManager, kubeScheduler and kwok; with real nodes also registry, containerd and
 * kubelet.
 */
export interface ComponentPids {
  readonly etcd: number;
  readonly kubeApiServer: number;
  readonly [component: string]: number;
}

/** Everything a client needs to reach the cluster, serialisable for test workers. */
export interface LocalClusterInfo {
  readonly mode: ClusterMode;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** Admin kubeconfig (user in system:masters). */
  readonly kubeconfigPath: string;
  readonly etcdEndpoint: string;
  readonly binaries: ControlPlaneBinaries;
  readonly workDir: string;
  /** The CA that signed the apiserver's serving certificate. */
  readonly servingCaPem: string;
  /** The client CA: whoever holds it can mint users (see createUser / writeUserKubeconfig). */
  readonly clientCa: CertificateAuthority;
  readonly pids: ComponentPids;
  /** Every node (kwok's and the real one); empty in bare mode. */
  readonly nodes: readonly string[];
  /** The nodes a workloads cluster really runs (kwok when real nodes were not possible). */
  readonly nodeKind?: NodeKind;
  /** Real nodes: host:port of the cluster's image registry (plain HTTP on loopback). */
  readonly imageRegistry?: string;
  /** Real nodes: where each left traces (processes, mounts, bridge), to prove them gone. */
  readonly realNodes?: readonly NodeTraces[];
  /** The default StorageClass (workloads mode); absent in bare mode. */
  readonly storageClassName?: string;
  /**
   * Workloads mode: the first folder on kwok's PATH. kwok runs `kubectl exec` requests as
   * local commands in the working directory an Exec object (kwok.x-k8s.io/v1alpha1, named
   * after the pod) gives; programs put here stand in for the container's own.
   */
  readonly execBinDir?: string;
}

export interface LocalCluster extends LocalClusterInfo {
  /** A client-certificate user with the given groups and no other rights. */
  createUser(name: string, groups?: readonly string[]): Promise<UserCredentials>;
  /** Stops kube-apiserver and starts it again on the same port, certificates and etcd. */
  restartApiServer(): Promise<void>;
  /** Compacts etcd at its current revision, so older resourceVersions answer 410 Gone. */
  compactEtcd(): Promise<number>;
  /** Workloads mode: one more fake node, resolved once it takes pods. */
  addNode(name: string, options?: Partial<FakeNodeOptions>): Promise<void>;
  /** Workloads mode: deletes a node (its pods are garbage-collected by kcm later). */
  removeNode(name: string): Promise<void>;
  /** Stops every component (workload components, apiserver, etcd) and removes the work folder. Idempotent. */
  stop(): Promise<void>;
}

const WORKLOAD_COMPONENTS = new Set<string>(['kube-controller-manager', 'kube-scheduler', 'kwok']);
/** The real node of a cluster with real or mixed nodes. */
const REAL_NODE_NAME = 'node-1';

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
/**
 * The default time each readiness step of a start may take. The steps run one after another:
 * etcd, kube-apiserver, then in workloads mode the other components, then the kwok nodes.
 */
export const READY_TIMEOUT_MS = 60_000;
/** Readiness steps of a start in workloads mode (each within `readyTimeoutMs`). */
export const WORKLOADS_READY_STEPS = 4;

export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const mode = options.mode ?? 'bare';
  const progress = options.onProgress ?? (() => undefined);
  const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
  await reapOrphanedClusters();
  const binaries = await binariesFor(mode, options);
  let nodeKind: NodeKind = options.nodeKind ?? 'kwok';
  let prepared: PreparedNodes | undefined;
  if (mode === 'workloads' && nodeKind !== 'kwok') {
    const result = await prepareRealNodes({
      onProgress: options.onProgress,
      signal: options.signal,
    });
    if ('unavailable' in result) {
      progress(`${nodeKind} nodes not possible here, using kwok nodes: ${result.unavailable}`);
      nodeKind = 'kwok';
    } else {
      prepared = result;
    }
  }

  const workDir = await mkdtemp(join(tmpdir(), 'planwright-cluster-'));
  const id = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const processes: ManagedProcess[] = [];
  let api: AdminApi | undefined;
  let nodeRuntime: NodeRuntime | undefined;
  const bridge = `pw-${id.split('-')[1] ?? ''}`;
  const realNodeTraces: NodeTraces[] = [];
  const record = (): Promise<void> =>
    recordCluster(id, {
      ownerPid: process.pid,
      workDir,
      pids: Object.fromEntries(processes.map((p) => [p.name, p.pid])),
      ...(prepared ? { realNodes: realNodeTraces, runc: prepared.host.runc } : {}),
    });
  const cleanup = async (): Promise<void> => {
    // Workload components first: nothing may provision or write while the rest goes down.
    for (const p of [...processes].reverse()) if (WORKLOAD_COMPONENTS.has(p.name)) await p.stop();
    // Then the real node: its kubelet, every container, containerd and the registry.
    await nodeRuntime?.stop();
    const apiserver = processes.find((p) => p.name === 'kube-apiserver');
    if (mode === 'workloads' && api && apiserver && !apiserver.hasExited()) {
      await removeProvisionedVolumes(api);
    }
    for (const p of [...processes].reverse()) await p.stop();
    await rm(workDir, { recursive: true, force: true });
    await forgetCluster(id);
  };

  try {
    const certDir = join(workDir, 'pki');
    await mkdir(certDir);
    const pki = await writeClusterPki(certDir);

    const etcdPort = await freeLoopbackPort();
    const etcdEndpoint = `http://127.0.0.1:${etcdPort}`;
    const etcd = startProcess(
      'etcd',
      binaries.etcd,
      etcdArgs({
        dataDir: join(workDir, 'etcd'),
        clientPort: etcdPort,
        peerPort: await freeLoopbackPort(),
      }),
      join(workDir, 'etcd.log'),
    );
    processes.push(etcd);
    await record();
    progress(`etcd starting on ${etcdEndpoint}`);
    await waitUntilReady({
      what: 'etcd',
      blame: etcd,
      running: [etcd],
      timeoutMs: readyTimeoutMs,
      signal: options.signal,
      check: async () => {
        const res = await probe(`${etcdEndpoint}/health`);
        return (res.status === 200 && res.body.includes('"health":"true"')) || res.body;
      },
    });

    const apiPort = await freeLoopbackPort();
    const server = `https://127.0.0.1:${apiPort}`;
    const apiArgs = apiServerArgs({
      mode,
      etcdEndpoint,
      port: apiPort,
      pki,
      ...(options.apiServerExtraArgs ? { extraArgs: options.apiServerExtraArgs } : {}),
      ...(options.profiling ? { profiling: true } : {}),
    });
    const adminTls: ProbeTls = {
      caPem: pki.servingCa.certPem,
      certPem: pki.admin.certPem,
      keyPem: pki.admin.keyPem,
    };
    const admin = new AdminApi(server, adminTls);
    api = admin;
    const startApiServer = async (): Promise<ManagedProcess> => {
      const apiserver = startProcess(
        'kube-apiserver',
        binaries.kubeApiServer,
        apiArgs,
        join(workDir, 'kube-apiserver.log'),
      );
      processes.push(apiserver);
      await record();
      await waitUntilReady({
        what: 'kube-apiserver',
        blame: apiserver,
        running: [apiserver, etcd],
        timeoutMs: readyTimeoutMs,
        signal: options.signal,
        check: async () => {
          const res = await probe(`${server}/readyz`, { tls: adminTls });
          if (res.status !== 200) return `/readyz answered ${res.status}`;
          const ns = await admin.get('/api/v1/namespaces/default');
          return ns !== undefined || 'namespace default not created yet';
        },
      });
      return apiserver;
    };
    progress(`kube-apiserver starting on ${server}`);
    let apiserver = await startApiServer();

    const kubeconfigPath = join(workDir, 'admin.kubeconfig');
    await writeUserKubeconfig({
      path: kubeconfigPath,
      server,
      servingCaPem: pki.servingCa.certPem,
      clientCa: pki.clientCa,
      user: ADMIN_USER,
      groups: ['system:masters'],
    });

    let workloads: WorkloadComponents | undefined;
    const nodes: string[] = [];
    if (mode === 'workloads') {
      // Every process a component starts is recorded at once, so a crash mid-start leaves a
      // record the next start can clean up.
      const onSpawn = async (p: (typeof processes)[number]): Promise<void> => {
        processes.push(p);
        await record();
      };
      const started = await startWorkloads({
        workDir,
        server,
        pki,
        binaries: binaries as WorkloadBinaries,
        api: admin,
        nodeCount: nodeKind === 'real' ? 0 : (options.nodes ?? 3),
        nodeLabels: { [NODE_KIND_LABEL]: 'kwok' },
        ...(nodeKind === 'mixed' ? { nodeTaints: [SIMULATED_NODE_TAINT] } : {}),
        readyTimeoutMs,
        signal: options.signal,
        progress,
        onSpawn,
      });
      workloads = started.components;
      nodes.push(...started.nodes);
      if (prepared && nodeKind !== 'kwok') {
        realNodeTraces.push({
          nodeDir: join(workDir, `node-${REAL_NODE_NAME}`),
          runcRoot: join(workDir, `node-${REAL_NODE_NAME}`, 'runc'),
          bridge,
        });
        await record();
        nodeRuntime = await startNodeRuntime({
          kind: nodeKind,
          prepared,
          nodeName: REAL_NODE_NAME,
          bridge,
          workDir,
          server,
          pki,
          api: admin,
          readyTimeoutMs,
          signal: options.signal,
          progress,
          onSpawn,
          ignoredTaints: [SIMULATED_NODE_TAINT.key],
        });
        nodes.push(REAL_NODE_NAME);
      }
    }
    const kinds =
      mode === 'bare'
        ? ''
        : nodeKind === 'mixed'
          ? ` with real node ${REAL_NODE_NAME} and kwok nodes ${started(nodes)}`
          : nodeKind === 'real'
            ? ` with real node ${REAL_NODE_NAME}`
            : ` with kwok nodes ${started(nodes)}`;
    progress(`local control plane (${mode}) ready${kinds}: ${server}`);

    const requireWorkloads = (what: string): WorkloadComponents => {
      if (!workloads) throw new Error(`${what} needs a cluster started with mode 'workloads'`);
      return workloads;
    };
    let stopped = false;
    let addedNodes = 0;
    const cluster: LocalCluster = {
      mode,
      server,
      kubeconfigPath,
      etcdEndpoint,
      binaries,
      workDir,
      servingCaPem: pki.servingCa.certPem,
      clientCa: pki.clientCa,
      get pids(): ComponentPids {
        return {
          etcd: etcd.pid,
          kubeApiServer: apiserver.pid,
          ...(workloads
            ? {
                kubeControllerManager: workloads.controllerManager.pid,
                kubeScheduler: workloads.scheduler.pid,
                kwok: workloads.kwok.pid,
              }
            : {}),
          ...(nodeRuntime
            ? {
                registry: nodeRuntime.registryProcess.pid,
                containerd: nodeRuntime.node.containerd.pid,
                kubelet: nodeRuntime.node.kubelet.pid,
              }
            : {}),
        };
      },
      get nodes(): readonly string[] {
        return [...nodes];
      },
      ...(mode === 'workloads' ? { storageClassName: STORAGE_CLASS_NAME, nodeKind } : {}),
      ...(nodeRuntime
        ? { imageRegistry: nodeRuntime.registry, realNodes: [...realNodeTraces] }
        : {}),
      ...(workloads ? { execBinDir: workloads.execBinDir } : {}),
      createUser: (name, groups = []) =>
        writeUserKubeconfig({
          path: join(workDir, `user-${name.replace(/[^a-zA-Z0-9_.-]/g, '_')}.kubeconfig`),
          server,
          servingCaPem: pki.servingCa.certPem,
          clientCa: pki.clientCa,
          user: name,
          groups,
        }),
      async restartApiServer() {
        await apiserver.stop();
        processes.splice(processes.indexOf(apiserver), 1);
        apiserver = await startApiServer();
      },
      compactEtcd: () => compactEtcd(etcdEndpoint),
      async addNode(name, nodeOptions = {}) {
        const components = requireWorkloads('addNode');
        await addFakeNode(
          admin,
          name,
          { internalIp: `10.255.1.${(addedNodes++ % 254) + 1}`, ...nodeOptions },
          components,
          readyTimeoutMs,
        );
        nodes.push(name);
      },
      async removeNode(name) {
        requireWorkloads('removeNode');
        await admin.delete(`/api/v1/nodes/${encodeURIComponent(name)}`);
        const index = nodes.indexOf(name);
        if (index >= 0) nodes.splice(index, 1);
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        await cleanup();
      },
    };
    return cluster;
  } catch (err) {
    await cleanup();
    throw err;
  }
}

function started(nodes: readonly string[]): string {
  return nodes.filter((n) => n !== REAL_NODE_NAME).join(', ') || '(none)';
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
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/** Compaction through etcd's JSON gateway: no etcd client library needed. */
async function compactEtcd(etcdEndpoint: string): Promise<number> {
  const range = await probe(`${etcdEndpoint}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: Buffer.from('/').toString('base64'), limit: 1 }),
  });
  const revision = Number(
    (JSON.parse(range.body) as { header?: { revision?: string } }).header?.revision,
  );
  if (!Number.isFinite(revision))
    throw new Error(`etcd range answered without a revision: ${range.body}`);
  const res = await probe(`${etcdEndpoint}/v3/kv/compaction`, {
    method: 'POST',
    body: JSON.stringify({ revision: String(revision), physical: true }),
  });
  if (res.status !== 200) throw new Error(`etcd compaction failed (${res.status}): ${res.body}`);
  return revision;
}
