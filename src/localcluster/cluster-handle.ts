// What startLocalCluster hands back: the cluster's facts and the operations on a running one.
import { join } from 'node:path';
import type { ControlPlaneBinaries } from './binaries.ts';
import type { ComponentPids, LocalCluster } from './cluster-types.ts';
import { compactEtcd, type Etcd, type KubeApiServer } from './control-plane.ts';
import { writeUserKubeconfig } from './kubeconfig.ts';
import type { ClusterMode } from './mode.ts';
import type { ClusterPki } from './pki.ts';
import type { StopStack } from './stop-stack.ts';
import type { WorkloadMode } from './workload-mode.ts';
import { addFakeNode, type WorkloadComponents } from './workloads.ts';

export interface StartedCluster {
  readonly mode: ClusterMode;
  readonly binaries: ControlPlaneBinaries;
  readonly workDir: string;
  readonly pki: ClusterPki;
  readonly kubeconfigPath: string;
  readonly etcd: Etcd;
  readonly apiServer: KubeApiServer;
  readonly workloads: WorkloadMode | undefined;
  readonly readyTimeoutMs: number;
  /** Everything the start brought up, stopped by `stop()`. */
  readonly stops: StopStack;
}

export function clusterHandle(started: StartedCluster): LocalCluster {
  const { workDir, pki, etcd, apiServer, workloads } = started;
  const { server, admin } = apiServer;
  const nodes = [...(workloads?.nodes ?? [])];
  const requireWorkloads = (what: string): WorkloadComponents => {
    if (!workloads) throw new Error(`${what} needs a cluster started with mode 'workloads'`);
    return workloads.components;
  };
  let stopped = false;
  let addedNodes = 0;
  return {
    mode: started.mode,
    server,
    kubeconfigPath: started.kubeconfigPath,
    etcdEndpoint: etcd.endpoint,
    binaries: started.binaries,
    workDir,
    servingCaPem: pki.servingCa.certPem,
    clientCa: pki.clientCa,
    get pids(): ComponentPids {
      return {
        etcd: etcd.process.pid,
        kubeApiServer: apiServer.process.pid,
        ...workloads?.pids(),
      };
    },
    get nodes(): readonly string[] {
      return [...nodes];
    },
    ...workloads?.info,
    createUser: (name, groups = []) =>
      writeUserKubeconfig({
        path: join(workDir, `user-${name.replace(/[^a-zA-Z0-9_.-]/g, '_')}.kubeconfig`),
        server,
        servingCaPem: pki.servingCa.certPem,
        clientCa: pki.clientCa,
        user: name,
        groups,
      }),
    restartApiServer: () => apiServer.restart(),
    compactEtcd: () => compactEtcd(etcd.endpoint),
    async addNode(name, nodeOptions = {}) {
      const components = requireWorkloads('addNode');
      await addFakeNode(
        admin,
        name,
        { internalIp: `10.255.1.${(addedNodes++ % 254) + 1}`, ...nodeOptions },
        components,
        started.readyTimeoutMs,
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
      await started.stops.stopAll();
    },
  };
}
