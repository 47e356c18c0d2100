// A leader Lease held by someone else for the whole bench: every Planwright replica started
// with leader election then serves its webhooks and reconciles nothing.
import type { KubeClient } from '../../src/kube/index.ts';

/** Creates the `planwright-leader` Lease in `namespace`, held by `bench-leader` for an hour. */
export async function holdLeaderLease(client: KubeClient, namespace: string): Promise<void> {
  await client.request({
    method: 'POST',
    path: `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
    body: {
      metadata: { name: 'planwright-leader' },
      spec: {
        holderIdentity: 'bench-leader',
        leaseDurationSeconds: 3600,
        // MicroTime: microseconds.
        renewTime: new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z'),
      },
    },
  });
}
