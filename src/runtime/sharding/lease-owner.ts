/**
 * The Lease a ring's own Leases (members and shards) are owned by: the installation's leader
 * Lease, which `planwright init` and the Helm chart install with the rest. Uninstalling
 * deletes it, and Kubernetes' garbage collector then deletes every Lease the ring created at
 * run time — nothing is left behind. Where that Lease does not exist (a local `planwright
 * start`, whose elector creates it later), the ring's Leases are created without an owner.
 */
import { ApiError, type KubeClient } from '../../kube/index.ts';

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
}

/** The owner references to set on a Lease about to be created (none: an empty list). */
export type OwnerReferencesOf = (signal: AbortSignal) => Promise<readonly OwnerReference[]>;

export class LeaseOwner {
  private found: OwnerReference | undefined;

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly name: string,
  ) {}

  /** The owner reference to set on a Lease about to be created; none when there is no owner. */
  async references(signal: AbortSignal): Promise<OwnerReference[]> {
    if (this.found) return [this.found];
    try {
      const lease = await this.client.request<{ metadata?: { uid?: string } }>({
        path: `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.namespace)}/leases/${encodeURIComponent(this.name)}`,
        signal,
      });
      const uid = lease.metadata?.uid;
      if (!uid) return [];
      this.found = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: this.name, uid };
      return [this.found];
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) return [];
      throw err;
    }
  }
}
