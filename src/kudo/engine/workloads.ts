/**
 * Where the Ready recomputation gets an Instance's workloads from. The controller reads its
 * watch caches (no API call per reconcile); without them (tools, tests of the reconciler
 * alone) a label-selected LIST per kind does the same.
 */
import type { ApplyObject, KubeClient } from '../../kube/index.ts';
import { collectionPath, type ResourceMapper } from '../../kube/index.ts';
import { READINESS_KINDS } from '../health/index.ts';
import { instanceSelector } from '../render/index.ts';

export interface WorkloadSource {
  /** The READINESS_KINDS objects in `namespace` labelled for Instance `instanceName`. */
  list(namespace: string, instanceName: string, signal: AbortSignal): Promise<ApplyObject[]>;
}

/** `heritage=kudo,kudo.dev/instance=<name>` as a label selector string. */
export function instanceLabelSelector(instanceName: string): string {
  return Object.entries(instanceSelector(instanceName))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** Whether `obj` carries the Instance's selector labels. */
export function labelledFor(obj: ApplyObject, instanceName: string): boolean {
  const labels = obj.metadata?.labels ?? {};
  return Object.entries(instanceSelector(instanceName)).every(([k, v]) => labels[k] === v);
}

export class LiveWorkloadSource implements WorkloadSource {
  constructor(
    private readonly client: KubeClient,
    private readonly mapper: ResourceMapper,
  ) {}

  async list(namespace: string, instanceName: string, signal: AbortSignal): Promise<ApplyObject[]> {
    const out: ApplyObject[] = [];
    for (const gvk of READINESS_KINDS) {
      const mapping = await this.mapper.resolve(gvk, signal);
      const list = await this.client.request<{ items?: ApplyObject[] }>({
        path: collectionPath(mapping, namespace),
        query: { labelSelector: instanceLabelSelector(instanceName) },
        signal,
      });
      const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
      // List items carry no apiVersion/kind; health rules need them.
      for (const item of list.items ?? []) out.push({ ...item, apiVersion, kind: gvk.kind });
    }
    return out;
  }
}
