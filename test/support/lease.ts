// Taking a Lease from its holder, as another candidate would after a network partition: the
// holder renews every retry period, so a renewal between our read and our replace is a
// conflict, and we read again.
import * as k8s from '@kubernetes/client-node';
import { waitFor } from './wait.ts';

/** Makes `holder` the Lease's holder (renewed now), retrying on conflicts. */
export async function takeLease(
  leases: k8s.CoordinationV1Api,
  lease: { readonly namespace: string; readonly name: string; readonly holder: string },
): Promise<void> {
  const { namespace, name, holder } = lease;
  await waitFor(`Lease ${namespace}/${name} taken by ${holder}`, async () => {
    const current = await leases.readNamespacedLease({ namespace, name });
    try {
      await leases.replaceNamespacedLease({
        namespace,
        name,
        body: {
          ...current,
          spec: { ...current.spec, holderIdentity: holder, renewTime: new k8s.V1MicroTime() },
        },
      });
      return true;
    } catch (err) {
      if (err instanceof k8s.ApiException && err.code === 409) return false;
      throw err;
    }
  });
}
