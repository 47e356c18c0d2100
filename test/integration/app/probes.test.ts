// /readyz and /healthz of a replica against the real apiserver:
// * /readyz stays 503 while the OperatorVersion cache admission reads cannot list (the user's
//   RBAC lacks it) and turns 200 once the right is granted; /healthz is 200 meanwhile.
// * /healthz turns 503 when the watches are wedged (a TCP proxy in front of the apiserver
//   stops moving bytes), and 200 again once they move; a replica that runs no controller (not
//   the leader, and not admitted to run shards: the cluster's webhook registration names
//   another installation) holds only the caches admission reads.
import { afterAll, describe, expect, it } from '@jest/globals';
import https from 'node:https';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { App, INSTANCE_CACHE_CHECK, OPERATOR_VERSION_CACHE_CHECK } from '../../../src/app.ts';
import { KubeClient } from '../../../src/kube/index.ts';
import { StaticCertificateSource } from '../../../src/server/index.ts';
import {
  createTestNamespace,
  kubeConfig,
  mintUser,
  testCluster,
  uniqueName,
} from '../../support/cluster.ts';
import { httpsRequest } from '../../support/https.ts';
import { installKudoCrds } from '../../support/kudo.ts';
import { validOperatorVersion } from '../../support/operator-versions.ts';
import { waitFor } from '../../support/wait.ts';
import { aborted } from '../../../src/runtime/index.ts';
import { FreezableProxy } from '../../support/freezable-proxy.ts';
import { managerPort, startManagerProcess } from '../../support/manager-process.ts';
import { createKudoObject, instanceObject } from '../../support/kudo-objects.ts';

interface Probe {
  readonly status: number;
  readonly body: { ok?: boolean; checks?: Record<string, boolean> };
}

/** GET a probe of a replica whose loopback CA the test does not know. */
function probe(port: number, path: '/readyz' | '/healthz'): Promise<Probe> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, path, rejectUnauthorized: false, agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Probe['body'] }),
        );
      })
      .on('error', reject);
  });
}

const admin = new KubeClient(kubeConfig());
const cleanups: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  admin.close();
});

async function grant(user: string, resources: string[]): Promise<void> {
  const name = uniqueName('pw-probes');
  await admin.request({
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    body: {
      metadata: { name },
      rules: [{ apiGroups: ['kudo.dev'], resources, verbs: ['get', 'list', 'watch'] }],
    },
  });
  await admin.request({
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    },
  });
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  cleanups.push(() =>
    admin.request({ method: 'DELETE', path: `${rbac}/clusterrolebindings/${name}` }),
  );
  cleanups.push(() => admin.request({ method: 'DELETE', path: `${rbac}/clusterroles/${name}` }));
}

describe('readiness', () => {
  it('/readyz is 503 until the OperatorVersion cache has synced, then 200; /healthz 200 throughout', async () => {
    await installKudoCrds();
    const namespace = await createTestNamespace('readyz');
    const userName = uniqueName('readyz-user');
    const user = await mintUser(userName);
    // Instances may be listed from the start; OperatorVersions only once granted below. The
    // user cannot write Leases either: this replica never leads, so it touches nothing else.
    await grant(userName, ['instances']);
    const child = await startManagerProcess(user.kubeconfigPath, ['--namespace', namespace], {
      leaderElection: true,
    });
    cleanups.push(async () => {
      if (child.proc.exitCode === null) child.proc.kill('SIGKILL');
      await child.exited;
    });
    let port = 0;
    await waitFor(
      'the webhook server to listen',
      () => {
        port = managerPort(child) ?? 0;
        return port > 0;
      },
      { timeoutMs: 30_000 },
    );

    // The Instance cache syncs; the OperatorVersion cache cannot list, so the replica is not
    // ready, and says which check fails. Still alive: the failing watch is retrying.
    await waitFor(
      'the Instance cache to sync',
      async () => {
        const ready = await probe(port, '/readyz');
        return ready.body.checks?.[INSTANCE_CACHE_CHECK] === true;
      },
      { timeoutMs: 30_000 },
    );
    for (let i = 0; i < 4; i++) {
      const ready = await probe(port, '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.checks).toMatchObject({
        [OPERATOR_VERSION_CACHE_CHECK]: false,
        [INSTANCE_CACHE_CHECK]: true,
      });
      const health = await probe(port, '/healthz');
      expect(health.status).toBe(200);
      await new Promise((r) => setTimeout(r, 500));
    }

    await grant(userName, ['operatorversions']);
    await waitFor(
      'ready once OperatorVersions can be listed',
      async () => {
        return (await probe(port, '/readyz')).status === 200;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect((await probe(port, '/readyz')).body.checks).toMatchObject({
      [OPERATOR_VERSION_CACHE_CHECK]: true,
      [INSTANCE_CACHE_CHECK]: true,
    });

    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);
  });
});

describe('liveness', () => {
  it('/healthz fails while the watches are wedged and recovers when they move; a non-leader caches only what admission reads and starts no render workers', async () => {
    await installKudoCrds();
    const namespace = await createTestNamespace('healthz');
    const cluster = testCluster();
    const server = new URL(cluster.server);
    const proxy = new FreezableProxy({ host: server.hostname, port: Number(server.port) });
    const proxyPort = await proxy.listen();
    cleanups.push(() => proxy.close());
    const viaProxy = await mintUser(
      'healthz-test',
      ['system:masters'],
      `https://127.0.0.1:${proxyPort}`,
    );
    // Someone else leads: this replica is a non-leader.
    const lease = uniqueName('lease');
    await admin.request({
      method: 'POST',
      path: `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
      body: {
        metadata: { name: lease },
        spec: {
          holderIdentity: 'someone-else',
          leaseDurationSeconds: 3600,
          renewTime: new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z'),
        },
      },
    });
    // Objects of both kinds admission caches, changed every 200 ms so a healthy watch always
    // has bytes to deliver (the stall limit below is far shorter than the bookmark period).
    const ovName = uniqueName('ov');
    await createKudoObject(
      admin,
      namespace,
      'operatorversions',
      validOperatorVersion(ovName, namespace),
    );
    await createKudoObject(admin, namespace, 'instances', instanceObject('tick', ovName));
    let tick = 0;
    const churn = setInterval(() => {
      tick++;
      for (const plural of ['operatorversions', 'instances']) {
        const name = plural === 'instances' ? 'tick' : ovName;
        void admin
          .request({
            method: 'PATCH',
            path: `/apis/kudo.dev/v1beta1/namespaces/${namespace}/${plural}/${name}`,
            contentType: 'application/merge-patch+json',
            body: { metadata: { annotations: { tick: String(tick) } } },
          })
          .catch(() => undefined);
      }
    }, 200);
    cleanups.push(() => Promise.resolve(clearInterval(churn)));

    const loopback = StaticCertificateSource.forLoopback('planwright-healthz');
    const app = new App({
      kubeConfig: kubeConfig(viaProxy.kubeconfigPath),
      logger: pino({ level: 'silent' }),
      registry: new Registry(),
      manager: {
        leaderElection: { namespace, name: lease, identity: 'healthz-replica' },
        inactivityMs: 120_000,
        watchStallMs: 3_000,
        shutdownTimeoutMs: 10_000,
        // Never admitted to run controllers (as when another installation is registered).
        gate: { admit: (signal) => aborted(signal).then(() => undefined) },
      },
      webhook: { port: 0, host: '127.0.0.1', tls: loopback.source },
      admission: { controllerUsers: [] },
    });
    const stop = new AbortController();
    const running = app.start(stop.signal);
    cleanups.push(async () => {
      stop.abort();
      await running;
    });
    const port = await app.listening;
    const get = (path: string): Promise<number> =>
      httpsRequest({ port, path, ca: loopback.caPem }).then((r) => r.status);
    await waitFor('ready', async () => (await get('/readyz')) === 200, { timeoutMs: 30_000 });

    // Healthy for well over the stall limit while bytes move.
    for (let i = 0; i < 8; i++) {
      expect(await get('/healthz')).toBe(200);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    // A replica that runs no controller holds the caches admission reads, and nothing else:
    // of the Instances, only their names and OperatorVersion references.
    expect(app.manager.isLeader).toBe(false);
    expect(app.manager.shards.shards.some((s) => app.manager.shards.runs(s))).toBe(false);
    expect([...app.manager.caches.users().keys()].sort()).toEqual([
      'local|kudo.dev/v1beta1/Instance||operatorversion-refs',
      'local|kudo.dev/v1beta1/OperatorVersion',
    ]);
    // …and runs no worker process until a job needs one: no render workers off the leader,
    // no admission worker while nothing asked it to verify or decode (issue 18).
    expect(app.renderPool.workers).toBe(0);
    expect(app.admissionPool.workers).toBe(0);

    proxy.freeze();
    await waitFor('healthz to fail while wedged', async () => (await get('/healthz')) === 503, {
      timeoutMs: 20_000,
    });
    const failing = await httpsRequest({ port, path: '/healthz', ca: loopback.caPem });
    expect(JSON.parse(failing.text)).toMatchObject({
      ok: false,
      checks: { 'event-loop': true, watches: false },
    });

    proxy.thaw();
    await waitFor('healthz to recover', async () => (await get('/healthz')) === 200, {
      timeoutMs: 20_000,
    });
    stop.abort();
    expect(await running).toBe(0);
  });
});
