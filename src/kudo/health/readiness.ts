/**
 * The Instance's readiness while no plan runs (kudo-compat.md "Readiness condition"): the
 * Deployments, StatefulSets, ReplicaSets, DaemonSets and Pods labelled
 * `kudo.dev/instance=<name>,heritage=kudo` in its namespace must all be healthy.
 */
import { describeObject, type ApplyObject } from '../../kube/index.ts';
import type { GroupVersionKind } from '../../kube/index.ts';
import { checkHealth } from './health.ts';

/** The kinds readiness looks at, in the order their problems are reported. */
export const READINESS_KINDS: readonly GroupVersionKind[] = [
  { group: 'apps', version: 'v1', kind: 'Deployment' },
  { group: 'apps', version: 'v1', kind: 'StatefulSet' },
  { group: 'apps', version: 'v1', kind: 'DaemonSet' },
  { group: 'apps', version: 'v1', kind: 'ReplicaSet' },
  { group: '', version: 'v1', kind: 'Pod' },
];

export interface Readiness {
  readonly ready: boolean;
  /** The unhealthy objects, each with why, joined by `, ` (empty when ready). */
  readonly message: string;
}

interface OwnerRef {
  kind?: string;
  controller?: boolean;
}

/**
 * Pods that do not speak for the Instance's health: ones being deleted (their replacement is
 * judged instead) and a Job's pods (the Job decides; a failed attempt of a Job that then
 * succeeded stays behind as a Failed pod).
 */
function ignored(obj: ApplyObject): boolean {
  if (obj.kind !== 'Pod') return false;
  if (obj.metadata?.['deletionTimestamp']) return true;
  const owners = obj.metadata?.['ownerReferences'];
  return (
    Array.isArray(owners) && (owners as OwnerRef[]).some((o) => o.controller && o.kind === 'Job')
  );
}

export function readinessOf(workloads: readonly ApplyObject[]): Readiness {
  const problems: string[] = [];
  for (const obj of workloads) {
    if (ignored(obj)) continue;
    const health = checkHealth(obj);
    if (health.state !== 'healthy') problems.push(`${describeObject(obj)} ${health.reason}`);
  }
  return { ready: problems.length === 0, message: problems.join(', ') };
}
