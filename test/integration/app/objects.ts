// kudo.dev objects for the App tests, written with the admin client.
import type { OperatorVersion } from '../../../src/kudo/api/index.ts';
import type { KubeClient } from '../../../src/kube/index.ts';

export async function createOperatorVersion(
  client: KubeClient,
  ov: OperatorVersion,
): Promise<void> {
  await client.request({
    method: 'POST',
    path: `/apis/kudo.dev/v1beta1/namespaces/${ov.metadata.namespace ?? ''}/operatorversions`,
    body: ov,
  });
}

/** An Instance of `operatorVersion` with no parameters set. */
export async function createInstance(
  client: KubeClient,
  namespace: string,
  name: string,
  operatorVersion: string,
): Promise<void> {
  await client.request({
    method: 'POST',
    path: `/apis/kudo.dev/v1beta1/namespaces/${namespace}/instances`,
    body: {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'Instance',
      metadata: { name, namespace },
      spec: { operatorVersion: { name: operatorVersion } },
    },
  });
}
