/**
 * The controller's writes to an Instance: status through `/status` only (PUT with the
 * resourceVersion it read, so a stale cache never overwrites newer progress: a conflict just
 * retries), and the cleanup finalizer (merge patch of metadata.finalizers, also guarded by
 * resourceVersion). Spec is never written.
 */
import type { KubeClient } from '../../kube/index.ts';
import {
  CLEANUP_FINALIZER,
  KUDO_GROUP,
  KUDO_VERSION,
  type Instance,
  type InstanceStatus,
} from '../api/index.ts';

function instancePath(instance: Instance): string {
  const ns = encodeURIComponent(instance.metadata.namespace ?? '');
  const name = encodeURIComponent(instance.metadata.name ?? '');
  return `/apis/${KUDO_GROUP}/${KUDO_VERSION}/namespaces/${ns}/instances/${name}`;
}

export class InstanceWriter {
  constructor(private readonly client: KubeClient) {}

  /** Replaces the status of `instance` (at its resourceVersion); returns the stored Instance. */
  writeStatus(instance: Instance, status: InstanceStatus, signal?: AbortSignal): Promise<Instance> {
    return this.client.request<Instance>({
      method: 'PUT',
      path: `${instancePath(instance)}/status`,
      body: { ...instance, status },
      signal,
    });
  }

  addFinalizer(instance: Instance, signal?: AbortSignal): Promise<Instance> {
    const finalizers = [...(instance.metadata.finalizers ?? []), CLEANUP_FINALIZER];
    return this.patchFinalizers(instance, finalizers, signal);
  }

  removeFinalizer(instance: Instance, signal?: AbortSignal): Promise<Instance> {
    const finalizers = (instance.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
    return this.patchFinalizers(instance, finalizers, signal);
  }

  private patchFinalizers(
    instance: Instance,
    finalizers: string[],
    signal?: AbortSignal,
  ): Promise<Instance> {
    return this.client.request<Instance>({
      method: 'PATCH',
      path: instancePath(instance),
      contentType: 'application/merge-patch+json',
      body: { metadata: { finalizers, resourceVersion: instance.metadata.resourceVersion } },
      signal,
    });
  }
}
