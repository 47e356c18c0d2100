// A dedicated workloads cluster per installation test, and what the tests ask of the
// Planwright pods running there: their /metrics (with a scraper's token), the certificate they
// serve, Secrets' data.
import { execFile } from 'node:child_process';
import { connect as tlsConnect } from 'node:tls';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { ApiError, KubeClient } from '../../../src/kube/index.ts';
import {
  startLocalCluster,
  type LocalCluster,
  type NodeKind,
} from '../../../src/localcluster/index.ts';
import { tokenKubeConfig } from '../../support/cluster.ts';
import { httpsRequest } from '../../support/https.ts';

/** Metric samples `name{labels} value` of a replica's /metrics. */
export async function metrics(
  replica: { readonly port: number; readonly host?: string },
  caPem: string,
  token: string,
): Promise<string> {
  const res = await httpsRequest({
    ...(replica.host ? { host: replica.host } : {}),
    port: replica.port,
    path: '/metrics',
    ca: caPem,
    servername: 'planwright-webhook.planwright-system.svc',
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${res.text}`);
  return res.text;
}

/**
 * A token of ServiceAccount `metrics-scraper` in `namespace`, bound to the manifests'
 * ClusterRole planwright-metrics-reader: /metrics answers only such callers in a cluster.
 */
export async function scraperToken(admin: KubeClient, namespace: string): Promise<string> {
  const ignoreExisting = (err: unknown): void => {
    if (!(err instanceof ApiError && err.statusCode === 409)) throw err;
  };
  await admin
    .request({
      method: 'POST',
      path: `/api/v1/namespaces/${namespace}/serviceaccounts`,
      body: { metadata: { name: 'metrics-scraper' } },
    })
    .catch(ignoreExisting);
  await admin
    .request({
      method: 'POST',
      path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      body: {
        metadata: { name: `metrics-scraper-${namespace}` },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'planwright-metrics-reader',
        },
        subjects: [{ kind: 'ServiceAccount', name: 'metrics-scraper', namespace }],
      },
    })
    .catch(ignoreExisting);
  const request = await admin.request<{ status?: { token?: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/metrics-scraper/token`,
    body: { spec: { expirationSeconds: 3600 } },
  });
  return request.status?.token ?? '';
}

export function sampleSum(
  text: string,
  name: string,
  filter: (labels: string) => boolean = () => true,
): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)$/.exec(line);
    if (m && m[1] === name && filter(m[2] ?? '')) sum += Number(m[3]);
  }
  return sum;
}

/** SHA-256 fingerprint of the certificate a replica serves to a new TLS connection now. */
export function servedFingerprint(
  replica: { readonly port: number; readonly host?: string },
  caPem: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({
      host: replica.host ?? '127.0.0.1',
      port: replica.port,
      ca: caPem,
      servername: 'planwright-webhook.planwright-system.svc',
    });
    socket.once('secureConnect', () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fingerprint);
    });
    socket.once('error', reject);
  });
}

export interface KubectlOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * A workloads cluster of its own (an installation registers webhooks for every namespace and
 * reconciles every Instance, so it cannot share the e2e cluster), with an admin client and
 * kubectl on its kubeconfig. It needs no shared cluster (the serial lane starts none for such
 * files: test/runner/plan.ts), only the control plane's cached binaries.
 */
export interface DedicatedCluster {
  readonly cluster: LocalCluster;
  readonly admin: KubeClient;
  kubectl(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<KubectlOutcome>;
  stop(): Promise<void>;
}

export async function startDedicatedCluster(
  options: { readonly nodeKind?: NodeKind } = {},
): Promise<DedicatedCluster> {
  const cluster = await startLocalCluster({
    mode: 'workloads',
    ...(options.nodeKind ? { nodeKind: options.nodeKind } : {}),
    nodes: 1,
  });
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  const admin = new KubeClient(kc);
  const run = promisify(execFile);
  return {
    cluster,
    admin,
    kubectl: async (args, env) => {
      try {
        const { stdout, stderr } = await run(
          cluster.binaries.kubectl,
          ['--kubeconfig', cluster.kubeconfigPath, ...args],
          env ? { env: { ...process.env, ...env } } : {},
        );
        return { code: 0, stdout, stderr };
      } catch (err) {
        const e = err as { code?: number; stdout?: string; stderr?: string };
        return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
      }
    },
    stop: async () => {
      admin.close();
      await cluster.stop();
    },
  };
}

/** A Secret's data, decoded. */
export async function secretData(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<Record<string, string>> {
  const s = await client.request<{ data?: Record<string, string> }>({
    path: `/api/v1/namespaces/${namespace}/secrets/${name}`,
  });
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.data ?? {})) {
    out[k] = Buffer.from(v, 'base64').toString('utf8');
  }
  return out;
}

/** A client of `cluster` that authenticates with a bearer token only. */
export function tokenClient(cluster: LocalCluster, token: string): KubeClient {
  return new KubeClient(tokenKubeConfig(token, cluster));
}
