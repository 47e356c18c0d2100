// /metrics behind the real API server's TokenReview and SubjectAccessReview (controller-
// runtime's metrics filter): no token 401; a ServiceAccount token without the grant 403; the
// same token once bound to the manifests' planwright-metrics-reader ClusterRole 200 with the
// metrics. The manager's own client makes the reviews, as in-cluster.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { parseAllDocuments } from 'yaml';
import { MANIFESTS_DIR } from '../../../src/cli/install.ts';
import { KubeClient } from '../../../src/kube/index.ts';
import {
  KubeMetricsAuthorizer,
  StaticCertificateSource,
  WebhookServer,
} from '../../../src/server/index.ts';
import { createTestNamespace, kubeConfig, uniqueName } from '../../support/cluster.ts';
import { httpsRequest } from '../../support/https.ts';
import { waitFor } from '../../support/wait.ts';

const admin = new KubeClient(kubeConfig());
const stop = new AbortController();
let port = 0;
let caPem = '';
let token = '';
let namespace = '';
const reader = uniqueName('metrics-reader');

/** The manifests' ClusterRole, under a name of this test's. */
async function metricsReaderRole(): Promise<Record<string, unknown>> {
  const text = await readFile(join(MANIFESTS_DIR, 'rbac', 'rbac.yaml'), 'utf8');
  for (const doc of parseAllDocuments(text)) {
    const obj = doc.toJS() as { kind?: string; metadata?: { name?: string } };
    if (obj.kind === 'ClusterRole' && obj.metadata?.name === 'planwright-metrics-reader') {
      return { ...obj, metadata: { name: reader } };
    }
  }
  throw new Error('manifests/rbac has no ClusterRole planwright-metrics-reader');
}

beforeAll(async () => {
  namespace = await createTestNamespace('metrics');
  await admin.request({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/serviceaccounts`,
    body: { metadata: { name: 'scraper' } },
  });
  const request = await admin.request<{ status?: { token?: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/scraper/token`,
    body: { spec: { expirationSeconds: 600 } },
  });
  token = request.status?.token ?? '';
  const loopback = StaticCertificateSource.forLoopback('metrics-auth');
  caPem = loopback.caPem;
  const server = new WebhookServer({
    port: 0,
    host: '127.0.0.1',
    tls: loopback.source,
    logger: pino({ level: 'silent' }),
    registry: new Registry(),
    // ttl 0: every request asks again, so the grant below takes effect at once.
    metricsAuth: new KubeMetricsAuthorizer({ client: admin, ttlMs: 0 }),
  });
  port = (await server.listen(stop.signal)).port;
  void server.start(stop.signal);
});

afterAll(async () => {
  stop.abort();
  await admin
    .request({
      method: 'DELETE',
      path: `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${reader}`,
    })
    .catch(() => undefined);
  await admin
    .request({
      method: 'DELETE',
      path: `/apis/rbac.authorization.k8s.io/v1/clusterroles/${reader}`,
    })
    .catch(() => undefined);
  admin.close();
});

const scrape = (headers: Record<string, string> = {}) =>
  httpsRequest({ port, path: '/metrics', ca: caPem, headers });

describe('/metrics authentication and authorization', () => {
  it('401 without a token or with one the API server does not know', async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape({ authorization: 'Bearer not-a-token' })).status).toBe(401);
  });

  it('403 for a ServiceAccount without the grant, naming the ClusterRole', async () => {
    expect(token.split('.')).toHaveLength(3);
    const res = await scrape({ authorization: `Bearer ${token}` });
    expect(res.status).toBe(403);
    expect(res.text).toContain(`system:serviceaccount:${namespace}:scraper may not get /metrics`);
  });

  it('200 with the metrics once bound to planwright-metrics-reader', async () => {
    await admin.request({
      method: 'POST',
      path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      body: await metricsReaderRole(),
    });
    await admin.request({
      method: 'POST',
      path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      body: {
        metadata: { name: reader },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: reader },
        subjects: [{ kind: 'ServiceAccount', name: 'scraper', namespace }],
      },
    });
    // The API server's RBAC authorizer learns the binding from its own watch, a moment later.
    const res = await waitFor('the grant to take effect', async () => {
      const r = await scrape({ authorization: `Bearer ${token}` });
      return r.status === 403 ? undefined : r;
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain('planwright_webhook_');
  });
});
