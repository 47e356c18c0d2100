import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createCertificateAuthority,
  generateRsaKeyPair,
  issueCertificate,
  type CertificateAuthority,
} from '../pki/index.ts';
import { ensureControlPlaneBinaries, type ControlPlaneBinaries } from './binaries.ts';
import { ControlPlaneStartError } from './errors.ts';
import { probe, type ProbeTls } from './http.ts';
import { writeUserKubeconfig, type UserCredentials } from './kubeconfig.ts';
import { freeLoopbackPort } from './ports.ts';
import { startProcess, tailFile, type ManagedProcess } from './process.ts';
import { forgetCluster, reapOrphanedClusters, recordCluster } from './registry.ts';

export interface LocalClusterOptions {
  /** Prebuilt binaries; built (or found in the cache) when absent. */
  readonly binaries?: ControlPlaneBinaries;
  /** Progress lines for a person watching. */
  readonly onProgress?: (line: string) => void;
  /** Aborting cancels a start in progress. It does not stop a started cluster: call stop(). */
  readonly signal?: AbortSignal;
  /** How long each component may take to become ready. Default 60 s. */
  readonly readyTimeoutMs?: number;
}

/** Everything a client needs to reach the cluster, serialisable for test workers. */
export interface LocalClusterInfo {
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
  readonly pids: Readonly<Record<'etcd' | 'kubeApiServer', number>>;
}

export interface LocalCluster extends LocalClusterInfo {
  /** A client-certificate user with the given groups and no other rights. */
  createUser(name: string, groups?: readonly string[]): Promise<UserCredentials>;
  /** Stops kube-apiserver and starts it again on the same port, certificates and etcd. */
  restartApiServer(): Promise<void>;
  /** Compacts etcd at its current revision, so older resourceVersions answer 410 Gone. */
  compactEtcd(): Promise<number>;
  /** Stops both components (apiserver first) and removes the work folder. Idempotent. */
  stop(): Promise<void>;
}

const ADMIN_USER = 'planwright-admin';

/**
 * Starts etcd and kube-apiserver on free loopback ports with freshly generated certificates
 * (serving, client CA + admin user, service-account signing key) and RBAC authorization,
 * waits until the apiserver is ready and namespace `default` exists, and writes an admin
 * kubeconfig.
 *
 * @example
 * const cluster = await startLocalCluster({ onProgress: console.log });
 * try { kc.loadFromFile(cluster.kubeconfigPath); … } finally { await cluster.stop(); }
 */
export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const progress = options.onProgress ?? (() => undefined);
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  await reapOrphanedClusters();
  const binaries =
    options.binaries ??
    (await ensureControlPlaneBinaries({ onProgress: progress, signal: options.signal }));

  const workDir = await mkdtemp(join(tmpdir(), 'planwright-cluster-'));
  const id = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const processes: ManagedProcess[] = [];
  const cleanup = async (): Promise<void> => {
    for (const p of [...processes].reverse()) await p.stop();
    await rm(workDir, { recursive: true, force: true });
    await forgetCluster(id);
  };

  try {
    const certDir = join(workDir, 'pki');
    await mkdir(certDir);
    const pki = await writeCertificates(certDir);

    const etcdPort = await freeLoopbackPort();
    const peerPort = await freeLoopbackPort();
    const etcdEndpoint = `http://127.0.0.1:${etcdPort}`;
    const etcd = startProcess(
      'etcd',
      binaries.etcd,
      [
        '--name=planwright',
        `--data-dir=${join(workDir, 'etcd')}`,
        `--listen-client-urls=${etcdEndpoint}`,
        `--advertise-client-urls=${etcdEndpoint}`,
        `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-cluster=planwright=http://127.0.0.1:${peerPort}`,
        // Test data only: durability is not worth the fsync latency.
        '--unsafe-no-fsync',
        '--log-level=warn',
      ],
      join(workDir, 'etcd.log'),
    );
    processes.push(etcd);
    await recordCluster(id, { ownerPid: process.pid, workDir, pids: { etcd: etcd.pid } });
    progress(`etcd starting on ${etcdEndpoint}`);
    await waitReady(etcd, 'etcd', readyTimeoutMs, options.signal, async () => {
      const res = await probe(`${etcdEndpoint}/health`);
      return res.status === 200 && res.body.includes('"health":"true"');
    });

    const apiPort = await freeLoopbackPort();
    const server = `https://127.0.0.1:${apiPort}`;
    const apiArgs = [
      `--etcd-servers=${etcdEndpoint}`,
      `--cert-dir=${certDir}`,
      `--tls-cert-file=${join(certDir, 'apiserver.crt')}`,
      `--tls-private-key-file=${join(certDir, 'apiserver.key')}`,
      `--secure-port=${apiPort}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      '--endpoint-reconciler-type=none',
      '--service-cluster-ip-range=10.0.0.0/24',
      '--allow-privileged=true',
      '--authorization-mode=RBAC',
      `--client-ca-file=${join(certDir, 'client-ca.crt')}`,
      `--service-account-issuer=${server}/`,
      `--service-account-key-file=${join(certDir, 'sa.pub')}`,
      `--service-account-signing-key-file=${join(certDir, 'sa.key')}`,
      // No kube-controller-manager mints tokens here; pods are never scheduled anyway.
      '--disable-admission-plugins=ServiceAccount',
      '--profiling=false',
    ];
    const adminTls: ProbeTls = {
      caPem: pki.servingCa.certPem,
      certPem: pki.admin.certPem,
      keyPem: pki.admin.keyPem,
    };
    const startApiServer = async (): Promise<ManagedProcess> => {
      const apiserver = startProcess(
        'kube-apiserver',
        binaries.kubeApiServer,
        apiArgs,
        join(workDir, 'kube-apiserver.log'),
      );
      await recordCluster(id, {
        ownerPid: process.pid,
        workDir,
        pids: { etcd: etcd.pid, kubeApiServer: apiserver.pid },
      });
      await waitReady(apiserver, 'kube-apiserver', readyTimeoutMs, options.signal, async () => {
        const res = await probe(`${server}/readyz`, { tls: adminTls });
        if (res.status !== 200) return false;
        const ns = await probe(`${server}/api/v1/namespaces/default`, { tls: adminTls });
        return ns.status === 200;
      });
      return apiserver;
    };
    progress(`kube-apiserver starting on ${server}`);
    let apiserver = await startApiServer();
    processes.push(apiserver);

    const kubeconfigPath = join(workDir, 'admin.kubeconfig');
    await writeUserKubeconfig({
      path: kubeconfigPath,
      server,
      servingCaPem: pki.servingCa.certPem,
      clientCa: pki.clientCa,
      user: ADMIN_USER,
      groups: ['system:masters'],
    });
    progress(`local control plane ready: ${server}`);

    let stopped = false;
    const cluster: LocalCluster = {
      server,
      kubeconfigPath,
      etcdEndpoint,
      binaries,
      workDir,
      servingCaPem: pki.servingCa.certPem,
      clientCa: pki.clientCa,
      get pids() {
        return { etcd: etcd.pid, kubeApiServer: apiserver.pid };
      },
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
        processes.push(apiserver);
      },
      compactEtcd: () => compactEtcd(etcdEndpoint),
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

interface ClusterPki {
  readonly servingCa: CertificateAuthority;
  readonly clientCa: CertificateAuthority;
  readonly admin: { certPem: string; keyPem: string };
}

async function writeCertificates(certDir: string): Promise<ClusterPki> {
  const servingCa = createCertificateAuthority({ commonName: 'planwright-local-serving-ca' });
  const clientCa = createCertificateAuthority({ commonName: 'planwright-local-client-ca' });
  const serving = issueCertificate(servingCa, {
    commonName: 'kube-apiserver',
    dnsNames: [
      'localhost',
      'kubernetes',
      'kubernetes.default',
      'kubernetes.default.svc',
      'kubernetes.default.svc.cluster.local',
    ],
    ipAddresses: ['127.0.0.1', '10.0.0.1'],
    usage: 'server',
  });
  const admin = issueCertificate(clientCa, {
    commonName: ADMIN_USER,
    organizations: ['system:masters'],
    usage: 'client',
  });
  const sa = generateRsaKeyPair();
  const files: Record<string, string> = {
    'serving-ca.crt': servingCa.certPem,
    'apiserver.crt': serving.certPem + servingCa.certPem,
    'apiserver.key': serving.keyPem,
    'client-ca.crt': clientCa.certPem,
    'sa.pub': sa.publicKeyPem,
    'sa.key': sa.privateKeyPem,
  };
  for (const [name, content] of Object.entries(files)) {
    await writeFile(join(certDir, name), content, { mode: 0o600 });
  }
  return { servingCa, clientCa, admin };
}

/** Polls `ready` until it answers true, the process dies, or the timeout passes. */
async function waitReady(
  proc: ManagedProcess,
  component: 'etcd' | 'kube-apiserver',
  timeoutMs: number,
  signal: AbortSignal | undefined,
  ready: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    if (proc.hasExited()) {
      throw new ControlPlaneStartError(
        `${component} exited during start-up (exit ${String(await proc.exited)})`,
        component,
        await tailFile(proc.logFile),
      );
    }
    try {
      if (await ready()) return;
    } catch (err) {
      lastError = (err as Error).message;
    }
    await sleep(100, undefined, { signal });
  }
  throw new ControlPlaneStartError(
    `${component} did not become ready within ${timeoutMs} ms` +
      (lastError ? ` (last probe error: ${lastError})` : ''),
    component,
    await tailFile(proc.logFile),
  );
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
