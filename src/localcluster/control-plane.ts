// The two processes every local cluster runs: etcd and kube-apiserver, each started, recorded
// and awaited until it answers.
import { join } from 'node:path';
import { AdminApi } from './api.ts';
import { apiServerArgs, etcdArgs } from './args.ts';
import { probe, type ProbeTls } from './http.ts';
import type { ClusterMode } from './mode.ts';
import type { ClusterPki } from './pki.ts';
import { freeLoopbackPort } from './ports.ts';
import { startProcess, type ManagedProcess } from './process.ts';
import type { StartContext } from './start-context.ts';
import { waitUntilReady } from './wait.ts';

export interface Etcd {
  readonly process: ManagedProcess;
  /** http://127.0.0.1:<port> */
  readonly endpoint: string;
}

export async function startEtcd(ctx: StartContext, binary: string): Promise<Etcd> {
  const clientPort = await freeLoopbackPort();
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const etcd = startProcess(
    'etcd',
    binary,
    etcdArgs({
      dataDir: join(ctx.workDir, 'etcd'),
      clientPort,
      peerPort: await freeLoopbackPort(),
    }),
    join(ctx.workDir, 'etcd.log'),
  );
  await ctx.processes.add(etcd);
  ctx.progress(`etcd starting on ${endpoint}`);
  await waitUntilReady({
    what: 'etcd',
    blame: etcd,
    running: [etcd],
    timeoutMs: ctx.readyTimeoutMs,
    signal: ctx.signal,
    check: async () => {
      const res = await probe(`${endpoint}/health`);
      return (res.status === 200 && res.body.includes('"health":"true"')) || res.body;
    },
  });
  return { process: etcd, endpoint };
}

export interface ApiServerInput {
  readonly binary: string;
  readonly mode: ClusterMode;
  readonly etcd: Etcd;
  readonly pki: ClusterPki;
  readonly extraArgs: readonly string[] | undefined;
  readonly profiling: boolean | undefined;
}

/**
 * kube-apiserver on a free loopback port, with the admin client that checks it. Made before it
 * runs (`start`), so a clean-up can hold the client already.
 */
export class KubeApiServer {
  /** https://127.0.0.1:<port> */
  readonly server: string;
  readonly admin: AdminApi;
  private readonly args: string[];
  private readonly tls: ProbeTls;
  private running: ManagedProcess | undefined;

  constructor(
    private readonly ctx: StartContext,
    private readonly input: ApiServerInput,
    port: number,
  ) {
    this.server = `https://127.0.0.1:${port}`;
    this.args = apiServerArgs({
      mode: input.mode,
      etcdEndpoint: input.etcd.endpoint,
      port,
      pki: input.pki,
      extraArgs: input.extraArgs,
      profiling: input.profiling,
    });
    this.tls = {
      caPem: input.pki.servingCa.certPem,
      certPem: input.pki.admin.certPem,
      keyPem: input.pki.admin.keyPem,
    };
    this.admin = new AdminApi(this.server, this.tls);
  }

  /** The process that last became ready. */
  get process(): ManagedProcess {
    if (!this.running) throw new Error('kube-apiserver has not started');
    return this.running;
  }

  /** Starts the process and waits until it is ready and namespace `default` exists. */
  async start(): Promise<void> {
    const apiserver = startProcess(
      'kube-apiserver',
      this.input.binary,
      this.args,
      join(this.ctx.workDir, 'kube-apiserver.log'),
    );
    await this.ctx.processes.add(apiserver);
    await waitUntilReady({
      what: 'kube-apiserver',
      blame: apiserver,
      running: [apiserver, this.input.etcd.process],
      timeoutMs: this.ctx.readyTimeoutMs,
      signal: this.ctx.signal,
      check: async () => {
        const res = await probe(`${this.server}/readyz`, { tls: this.tls });
        if (res.status !== 200) return `/readyz answered ${res.status}`;
        const ns = await this.admin.get('/api/v1/namespaces/default');
        return ns !== undefined || 'namespace default not created yet';
      },
    });
    this.running = apiserver;
  }

  /** Stops it and starts it again on the same port, certificates and etcd. */
  async restart(): Promise<void> {
    const old = this.process;
    await old.stop();
    this.ctx.processes.remove(old);
    await this.start();
  }
}

/** Compaction through etcd's JSON gateway: no etcd client library needed. */
export async function compactEtcd(etcdEndpoint: string): Promise<number> {
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
