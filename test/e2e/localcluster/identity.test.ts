// ServiceAccounts work as in a real cluster: kube-controller-manager creates `default` and
// publishes the root CA; a TokenRequest yields a token the apiserver authenticates as the
// ServiceAccount, bounded by its RBAC; pods get a projected token volume from admission.
import { beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import {
  createTestNamespace,
  grantConfigMapReader,
  kubeConfig,
  testCluster,
  tokenKubeConfig,
} from '../../support/cluster.ts';
import { waitFor } from '../../support/wait.ts';

const kc = kubeConfig();
const core = kc.makeApiClient(k8s.CoreV1Api);

describe('ServiceAccounts in a workloads cluster', () => {
  let namespace: string;

  beforeAll(async () => {
    namespace = await createTestNamespace('identity');
  });

  it('gets the default ServiceAccount and the root CA ConfigMap in a new namespace', async () => {
    const sa = await core.readNamespacedServiceAccount({ namespace, name: 'default' });
    expect(sa.metadata?.name).toBe('default');
    const ca = await waitFor('kube-root-ca.crt published', () =>
      core.readNamespacedConfigMap({ namespace, name: 'kube-root-ca.crt' }),
    );
    expect(ca.data?.['ca.crt']?.trim()).toBe(testCluster().servingCaPem.trim());
  });

  it('issues a token through TokenRequest that authenticates as the ServiceAccount, within its RBAC', async () => {
    await core.createNamespacedServiceAccount({
      namespace,
      body: { metadata: { name: 'reader' } },
    });
    await grantConfigMapReader(namespace, 'reader', {
      kind: 'ServiceAccount',
      name: 'reader',
      namespace,
    });

    const request = await core.createNamespacedServiceAccountToken({
      namespace,
      name: 'reader',
      body: { spec: { audiences: [], expirationSeconds: 600 } },
    });
    const token = request.status?.token ?? '';
    expect(token.split('.')).toHaveLength(3);

    const asReader = tokenKubeConfig(token);
    const review = await asReader
      .makeApiClient(k8s.AuthenticationV1Api)
      .createSelfSubjectReview({ body: {} });
    expect(review.status?.userInfo?.username).toBe(`system:serviceaccount:${namespace}:reader`);

    const readerCore = asReader.makeApiClient(k8s.CoreV1Api);
    const configMaps = await readerCore.listNamespacedConfigMap({ namespace });
    expect(configMaps.items.map((c) => c.metadata?.name)).toContain('kube-root-ca.crt');
    await expect(readerCore.listNamespacedSecret({ namespace })).rejects.toMatchObject({
      code: 403,
    });
  });

  it("mounts the ServiceAccount's projected token into pods (ServiceAccount admission is on)", async () => {
    const pod = await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'p' },
        spec: { containers: [{ name: 'c', image: 'x' }] },
      },
    });
    expect(pod.spec?.serviceAccountName).toBe('default');
    const volume = pod.spec?.volumes?.find((v) => v.name.startsWith('kube-api-access-'));
    const sources = volume?.projected?.sources ?? [];
    expect(sources.some((s) => s.serviceAccountToken?.path === 'token')).toBe(true);
    expect(sources.some((s) => s.configMap?.name === 'kube-root-ca.crt')).toBe(true);
  });
});
