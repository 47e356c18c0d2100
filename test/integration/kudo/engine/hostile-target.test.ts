// A target cluster a tenant names (spec.kubeConfig) is a server of the tenant's choosing. Here
// it is a loopback TLS server of the test's own that answers discovery like an API server and
// then attacks: the create and the GET of the Instance's ConfigMap answer with a body that never
// ends, the cache's LIST with a list that never ends, its WATCH with a line that never ends
// (every other LIST and WATCH answers as an API server would, so the cache goes on to the next).
// `planwright start` (the built CLI, default posture, with the administrator's
// `--allow-target-server 127.0.0.1`: loopback is refused otherwise) reads at most its limits
// (TARGET_CLIENT_LIMITS) of each and closes the connection: the server sees every connection
// closed shortly after the limit, the manager's peak memory grows by no more than those limits
// allow, and Instances of the home cluster keep reconciling meanwhile. A kubeconfig naming
// another loopback address is refused before any connection is made.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { stringify } from 'yaml';
import { KubeClient } from '../../../../src/kube/index.ts';
import type { Instance } from '../../../../src/kudo/api/index.ts';
import { TARGET_CLIENT_LIMITS } from '../../../../src/kudo/engine/index.ts';
import { createCertificateAuthority, issueCertificate } from '../../../../src/pki/index.ts';
import {
  createTestNamespace,
  kubeConfig,
  mintUser,
  testCluster,
  uniqueName,
} from '../../../support/cluster.ts';
import { installKudoCrds } from '../../../support/kudo.ts';
import { applyStepsOperatorVersion, createKudoObject } from '../../../support/kudo-objects.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../../support/planwright-start.ts';
import { grantTenant } from '../../../support/tenant.ts';
import { waitFor } from '../../../support/wait.ts';

const MIB = 1024 * 1024;
/** What the hostile server sends at most per answer: far past every limit, yet finite. */
const FLOOD = 1024 * MIB;

type Attack = 'body' | 'list' | 'line';

/** Per kind of attack: the bytes the server got out before the client closed, per answer. */
const sent: Record<Attack, number[]> = { body: [], list: [], line: [] };
let lists = 0;
let watches = 0;
/** Every request the hostile server got (method and path), for the failure message. */
const asked: string[] = [];

/** Writes `chunk` until the client closes or FLOOD is reached; records the bytes written. */
function flood(res: ServerResponse, attack: Attack, head: string, chunk: string): void {
  let written = head.length;
  res.write(head);
  const pump = (): void => {
    while (!res.destroyed && written < FLOOD) {
      written += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  res.on('close', () => sent[attack].push(written));
  pump();
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Discovery as an API server answers it; everything about ConfigMaps an attack. */
function hostile(req: { method?: string; url?: string }, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'https://x');
  const path = url.pathname;
  asked.push(`${req.method ?? ''} ${path}${url.searchParams.get('watch') ? ' (watch)' : ''}`);
  if (path === '/api') return json(res, { versions: ['v1'] });
  if (path === '/api/v1') {
    return json(res, {
      groupVersion: 'v1',
      resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ['*'] }],
    });
  }
  if (!/^\/api\/v1\/(namespaces\/[^/]+\/)?configmaps(\/[^/]+)?$/.test(path)) {
    res.writeHead(404, { 'Content-Type': 'application/json' });
    return void res.end('{"kind":"Status","code":404,"reason":"NotFound"}');
  }
  const item = `{"metadata":{"name":"${'x'.repeat(4000)}"}},`;
  if (url.searchParams.get('watch') === 'true') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    // Every other WATCH says the resourceVersion expired, so the cache LISTs again.
    if (watches++ % 2 === 1) {
      return void res.end(
        '{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}}\n',
      );
    }
    return flood(res, 'line', '{"type":"ADDED","object":{"metadata":{"name":"', 'y'.repeat(16384));
  }
  const named = /\/configmaps\/[^/]+$/.test(path);
  if (req.method === 'GET' && !named && lists++ % 2 === 0) {
    // Every other LIST answers as an API server would, so the cache goes on to WATCH.
    return json(res, { kind: 'ConfigMapList', metadata: { resourceVersion: '1' }, items: [] });
  }
  res.writeHead(200, { 'Content-Type': 'application/json' });
  flood(res, named || req.method !== 'GET' ? 'body' : 'list', '{"items":[', item);
}

/** The manager's peak resident memory so far (VmHWM), bytes. */
async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

describe('a hostile target server', () => {
  const admin = new KubeClient(kubeConfig());
  let tenant: KubeClient;
  let server: Server;
  let lure: Server;
  let lureConnections = 0;
  const sockets = new Set<Socket>();
  let ca = '';
  let ns: string;
  let home: string;
  let planwright: StartedPlanwright;
  let baseline = 0;

  const kubeconfigFor = (server: string): string =>
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 't',
          cluster: { server, 'certificate-authority-data': Buffer.from(ca).toString('base64') },
        },
      ],
      users: [{ name: 'u', user: { token: 'tenant-token' } }],
      contexts: [{ name: 'c', context: { cluster: 't', user: 'u', namespace: 'default' } }],
      'current-context': 'c',
    });

  const instanceOf = async (namespace: string, name: string): Promise<Instance> =>
    admin.request<Instance>({
      path: `/apis/kudo.dev/v1beta1/namespaces/${namespace}/instances/${name}`,
    });

  const stepText = async (namespace: string, name: string): Promise<string> =>
    JSON.stringify((await instanceOf(namespace, name)).status?.planStatus ?? {}).replace(
      /\\"/g,
      '"',
    );

  /** Creates a Secret with `kubeconfig` and an Instance applying to it, as the tenant. */
  const targeting = async (name: string, kubeconfig: string): Promise<void> => {
    await tenant.request({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/secrets`,
      body: { metadata: { name }, stringData: { value: kubeconfig } },
    });
    await createKudoObject(tenant, ns, 'instances', {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'Instance',
      metadata: { name },
      spec: { operatorVersion: { name: 'app' }, kubeConfig: { secretRef: { name } } },
    });
  };

  const completes = async (name: string, uid?: string): Promise<void> => {
    await waitFor(
      `Instance ${home}/${name} COMPLETE`,
      async () => {
        const i = await instanceOf(home, name);
        const pe = i.spec?.planExecution;
        const ps = i.status?.planStatus?.[pe?.planName ?? ''];
        return ps?.uid === pe?.uid && pe?.uid !== uid && ps?.status === 'COMPLETE';
      },
      { timeoutMs: 60_000 },
    );
  };

  beforeAll(async () => {
    await installKudoCrds();
    [ns, home] = await Promise.all([createTestNamespace('hostile'), createTestNamespace('home')]);
    const authority = createCertificateAuthority({ commonName: 'hostile-ca' });
    ca = authority.certPem;
    const leaf = issueCertificate(authority, {
      commonName: '127.0.0.1',
      ipAddresses: ['127.0.0.1', '127.0.0.2'],
      usage: 'server',
    });
    server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, hostile);
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    lure = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (_req, res) => res.end());
    lure.on('connection', () => (lureConnections += 1));
    await new Promise<void>((resolve) => lure.listen(0, '127.0.0.2', resolve));
    const user = uniqueName('tenant');
    tenant = new KubeClient(kubeConfig((await mintUser(user)).kubeconfigPath));
    await grantTenant(admin, ns, user, [
      { apiGroups: ['kudo.dev'], resources: ['*'], verbs: ['*'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'get'] },
    ]);
    const ov = applyStepsOperatorVersion('app', {
      'cm.yaml': stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: '{{ .Name }}-cm' },
        data: { v: '{{ .Params.V }}' },
      }),
    });
    ov.spec!.parameters = [{ name: 'V', default: '1' }];
    await createKudoObject(tenant, ns, 'operatorversions', ov);
    await createKudoObject(admin, home, 'operatorversions', ov);
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [ns, home],
      args: ['--allow-target-server', '127.0.0.1'],
    });
    // The peak before the attack: the manager's start and a first home Instance.
    await createKudoObject(admin, home, 'instances', {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'Instance',
      metadata: { name: 'before' },
      spec: { operatorVersion: { name: 'app' } },
    });
    await completes('before');
    baseline = await peakRss(planwright.proc.pid ?? 0);
  });

  afterAll(async () => {
    await planwright?.stop();
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await new Promise<void>((resolve) => (lure ? lure.close(() => resolve()) : resolve()));
    admin.close();
    tenant?.close();
  });

  it('endless bodies, lists and watch lines are cut at the limits; the step says why', async () => {
    const port = (server.address() as AddressInfo).port;
    await targeting('flooded', kubeconfigFor(`https://127.0.0.1:${port}`));
    await waitFor(
      'every attack to have been tried and cut',
      () => sent.body.length > 0 && sent.list.length > 0 && sent.line.length > 0,
      { timeoutMs: 150_000, intervalMs: 500 },
    ).catch((err: unknown) => {
      throw new Error(
        `${(err as Error).message}; cut so far: ${JSON.stringify(sent)}; asked: ${asked.slice(-30).join(', ')}`,
      );
    });
    // Closed at the limit: what got out is the limit plus what socket buffers hold.
    const slack = 16 * MIB;
    for (const bytes of [...sent.body, ...sent.list]) {
      expect(bytes).toBeLessThan(TARGET_CLIENT_LIMITS.maxResponseBytes + slack);
    }
    for (const bytes of sent.line) {
      expect(bytes).toBeLessThan(TARGET_CLIENT_LIMITS.maxWatchLineBytes + slack);
    }
    const text = await waitFor('the step to name the limit', async () => {
      const t = await stepText(ns, 'flooded');
      return t.includes(`exceeds ${TARGET_CLIENT_LIMITS.maxResponseBytes} bytes`) ? t : undefined;
    });
    expect(text).toContain('the most Planwright reads from this server');
  });

  it("meanwhile the home cluster's Instances reconcile, and the manager's memory stays bounded", async () => {
    await createKudoObject(admin, home, 'instances', {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'Instance',
      metadata: { name: 'during' },
      spec: { operatorVersion: { name: 'app' } },
    });
    await completes('during');
    const first = (await instanceOf(home, 'during')).spec?.planExecution?.uid;
    await admin.request({
      method: 'PATCH',
      path: `/apis/kudo.dev/v1beta1/namespaces/${home}/instances/during`,
      contentType: 'application/merge-patch+json',
      body: { spec: { parameters: { V: '2' } } },
    });
    await completes('during', first);
    // Each attack in flight holds at most its limit (bodies as bytes, a watch line as UTF-16
    // text: twice its bytes); a few may overlap. Without the limits one answer alone (FLOOD,
    // 1 GiB) would pass this.
    const bound =
      4 * TARGET_CLIENT_LIMITS.maxResponseBytes + 4 * TARGET_CLIENT_LIMITS.maxWatchLineBytes;
    const peak = await peakRss(planwright.proc.pid ?? 0);
    expect(peak - baseline).toBeLessThan(bound);
    expect(bound).toBeLessThan(FLOOD);
  });

  it('a kubeconfig naming another loopback address is refused before any connection', async () => {
    const port = (lure.address() as AddressInfo).port;
    await targeting('ssrf', kubeconfigFor(`https://127.0.0.2:${port}`));
    const text = await waitFor('the refusal in the step', async () => {
      const t = await stepText(ns, 'ssrf');
      return t.includes('127.0.0.0/8 (loopback)') ? t : undefined;
    });
    expect(text).toContain('`planwright start --allow-target-server 127.0.0.2`');
    expect(lureConnections).toBe(0);
  });
});
