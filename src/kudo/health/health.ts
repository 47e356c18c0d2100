/**
 * When an applied object counts as done (KUDO's health rules, extended). Generic rules
 * first (being deleted, observedGeneration behind, Stalled, Reconciling), then per kind; other
 * kinds are decided by a `Ready` condition when present, else done once applied.
 */
import { crdEstablished, type ApplyObject } from '../../kube/index.ts';
import { isTerminal } from '../api/index.ts';
import { containerProblems } from './container-state.ts';
import type { Instance } from '../api/index.ts';

export type Health =
  | { readonly state: 'healthy' }
  | { readonly state: 'waiting'; readonly reason: string }
  | { readonly state: 'failed'; readonly reason: string };

const HEALTHY: Health = { state: 'healthy' };
const waiting = (reason: string): Health => ({ state: 'waiting', reason });
const failed = (reason: string): Health => ({ state: 'failed', reason });

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

type Obj = Record<string, unknown>;

function field(obj: unknown, ...path: string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Obj)[p];
  }
  return cur;
}

function num(value: unknown, fallback = 0): number {
  return typeof value === 'number' ? value : fallback;
}

function conditions(obj: ApplyObject): Condition[] {
  const c = field(obj, 'status', 'conditions');
  return Array.isArray(c) ? (c as Condition[]) : [];
}

function condition(obj: ApplyObject, type: string): Condition | undefined {
  return conditions(obj).find((c) => c.type === type);
}

function describeCondition(c: Condition): string {
  return `${c.type ?? '?'}=${c.status ?? '?'}${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ''})` : ''}`;
}

// The API group each built-in rule belongs to (objects of the same kind name in other groups
// are judged by the generic rules). Objects without apiVersion (tests) match by kind.
const KIND_GROUPS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['Deployment', new Set(['apps', 'extensions'])],
  ['StatefulSet', new Set(['apps'])],
  ['DaemonSet', new Set(['apps', 'extensions'])],
  ['ReplicaSet', new Set(['apps', 'extensions'])],
  ['Job', new Set(['batch'])],
  ['Pod', new Set([''])],
  ['Service', new Set([''])],
  ['PersistentVolumeClaim', new Set([''])],
  ['Namespace', new Set([''])],
  ['CustomResourceDefinition', new Set(['apiextensions.k8s.io'])],
  ['Instance', new Set(['kudo.dev'])],
]);

function builtInKind(obj: ApplyObject): string | undefined {
  const kind = obj.kind ?? '';
  const groups = KIND_GROUPS.get(kind);
  if (!groups) return undefined;
  if (obj.apiVersion === undefined) return kind;
  const slash = obj.apiVersion.indexOf('/');
  return groups.has(slash < 0 ? '' : obj.apiVersion.slice(0, slash)) ? kind : undefined;
}

export function checkHealth(obj: ApplyObject): Health {
  if (obj.metadata?.['deletionTimestamp']) return waiting('is being deleted');
  const generation = obj.metadata?.['generation'];
  const observed = field(obj, 'status', 'observedGeneration');
  if (typeof generation === 'number' && typeof observed === 'number' && observed < generation) {
    return waiting(`status is for generation ${observed}, object is at ${generation}`);
  }
  const stalled = condition(obj, 'Stalled');
  if (stalled?.status === 'True') return failed(describeCondition(stalled));
  const reconciling = condition(obj, 'Reconciling');
  if (reconciling?.status === 'True') return waiting(describeCondition(reconciling));
  switch (builtInKind(obj)) {
    case 'Deployment':
      return deployment(obj);
    case 'StatefulSet':
      return statefulSet(obj);
    case 'DaemonSet':
      return daemonSet(obj);
    case 'ReplicaSet':
      return replicaSet(obj);
    case 'Job':
      return job(obj);
    case 'Pod':
      return pod(obj);
    case 'Service':
      return service(obj);
    case 'PersistentVolumeClaim':
      return field(obj, 'status', 'phase') === 'Bound' ? HEALTHY : waiting('is not Bound yet');
    case 'Namespace':
      return field(obj, 'status', 'phase') === 'Active' ? HEALTHY : waiting('is not Active yet');
    case 'CustomResourceDefinition':
      return crd(obj);
    case 'Instance':
      return instance(obj);
    default: {
      const ready = condition(obj, 'Ready');
      if (!ready) return HEALTHY;
      return ready.status === 'True' ? HEALTHY : waiting(describeCondition(ready));
    }
  }
}

/** Deployments only become healthy once generation status exists (needs a controller). */
function requireObserved(obj: ApplyObject): Health | undefined {
  if (field(obj, 'status', 'observedGeneration') === undefined) {
    return waiting(
      'has no status yet (no controller has observed it; is kube-controller-manager running?)',
    );
  }
  return undefined;
}

function deployment(obj: ApplyObject): Health {
  const progressing = condition(obj, 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded')
    return failed(describeCondition(progressing));
  const early = requireObserved(obj);
  if (early) return early;
  const want = num(field(obj, 'spec', 'replicas'), 1);
  const total = num(field(obj, 'status', 'replicas'));
  const updated = num(field(obj, 'status', 'updatedReplicas'));
  const ready = num(field(obj, 'status', 'readyReplicas'));
  const available = num(field(obj, 'status', 'availableReplicas'));
  if (updated === want && ready === want && available === want && total === want) return HEALTHY;
  const old = total > updated ? `, ${total - updated} replicas of an older revision remain` : '';
  return waiting(
    `${ready}/${want} replicas ready, ${updated} updated, ${available} available${old}`,
  );
}

function statefulSet(obj: ApplyObject): Health {
  if (field(obj, 'spec', 'updateStrategy', 'type') === 'OnDelete') return HEALTHY;
  const early = requireObserved(obj);
  if (early) return early;
  const want = num(field(obj, 'spec', 'replicas'), 1);
  const ready = num(field(obj, 'status', 'readyReplicas'));
  const updated = num(field(obj, 'status', 'updatedReplicas'));
  const current = field(obj, 'status', 'currentRevision');
  const update = field(obj, 'status', 'updateRevision');
  // A partitioned rolling update is done when the pods at or above the partition are updated.
  const partition = num(field(obj, 'spec', 'updateStrategy', 'rollingUpdate', 'partition'));
  if (partition > 0) {
    if (ready === want && updated >= want - partition) return HEALTHY;
    return waiting(`${ready}/${want} replicas ready, ${updated}/${want - partition} updated`);
  }
  if (ready === want && updated === want && current === update) return HEALTHY;
  return waiting(
    `${ready}/${want} replicas ready, ${updated} updated${current !== update ? ', rolling out a new revision' : ''}`,
  );
}

function daemonSet(obj: ApplyObject): Health {
  const early = requireObserved(obj);
  if (early) return early;
  const desired = num(field(obj, 'status', 'desiredNumberScheduled'));
  const updated = num(field(obj, 'status', 'updatedNumberScheduled'));
  const available = num(field(obj, 'status', 'numberAvailable'));
  const ready = num(field(obj, 'status', 'numberReady'));
  if (desired === updated && desired === available && desired === ready) return HEALTHY;
  return waiting(`${ready}/${desired} pods ready, ${updated} updated, ${available} available`);
}

function replicaSet(obj: ApplyObject): Health {
  const early = requireObserved(obj);
  if (early) return early;
  const want = num(field(obj, 'spec', 'replicas'), 1);
  const ready = num(field(obj, 'status', 'readyReplicas'));
  const available = num(field(obj, 'status', 'availableReplicas'));
  if (ready === want && available === want) return HEALTHY;
  return waiting(`${ready}/${want} replicas ready, ${available} available`);
}

/** The Job's own words: `reason: message` of its condition. */
function jobCondition(c: Condition): string {
  return [c.reason, c.message].filter((x) => x).join(': ') || 'no reason given';
}

function job(obj: ApplyObject): Health {
  const complete = condition(obj, 'Complete');
  if (complete?.status === 'True') return HEALTHY;
  // FailureTarget comes first (the controller then waits for the pods to terminate before it
  // adds Failed); both are final.
  const fail = condition(obj, 'Failed') ?? condition(obj, 'FailureTarget');
  if (fail?.status === 'True') return failed(jobCondition(fail));
  const active = num(field(obj, 'status', 'active'));
  const succeeded = num(field(obj, 'status', 'succeeded'));
  const failures = num(field(obj, 'status', 'failed'));
  return waiting(
    `has not completed yet (${active} active, ${succeeded} succeeded, ${failures} failed pods)`,
  );
}

function pod(obj: ApplyObject): Health {
  const phase = field(obj, 'status', 'phase');
  if (phase === 'Succeeded') return HEALTHY;
  if (phase === 'Failed') {
    const reason = [field(obj, 'status', 'reason'), field(obj, 'status', 'message')]
      .filter((x): x is string => typeof x === 'string' && x !== '')
      .join(': ');
    return failed(reason || 'phase Failed');
  }
  if (phase === 'Running' && condition(obj, 'Ready')?.status === 'True') return HEALTHY;
  if (!field(obj, 'spec', 'nodeName')) {
    return waiting('is not scheduled to a node yet (is a scheduler running, and does a node fit?)');
  }
  const containers = containerProblems(field(obj, 'status')).map((p) => p.detail);
  return waiting(
    `is ${typeof phase === 'string' ? phase : 'Pending'} and not Ready` +
      (containers.length > 0 ? `: ${containers.join('; ')}` : ''),
  );
}

function service(obj: ApplyObject): Health {
  const type = field(obj, 'spec', 'type');
  if (type === 'ExternalName') return HEALTHY;
  if (type === 'LoadBalancer') {
    const ingress = field(obj, 'status', 'loadBalancer', 'ingress');
    return Array.isArray(ingress) && ingress.length > 0
      ? HEALTHY
      : waiting('has no load balancer ingress yet');
  }
  const ip = field(obj, 'spec', 'clusterIP');
  return typeof ip === 'string' && ip !== '' ? HEALTHY : waiting('has no cluster IP yet');
}

function crd(obj: ApplyObject): Health {
  const names = condition(obj, 'NamesAccepted');
  if (names?.status === 'False') return failed(describeCondition(names));
  return crdEstablished(obj) ? HEALTHY : waiting('is not Established yet');
}

function instance(obj: ApplyObject): Health {
  const child = obj as unknown as Instance;
  const pe = child.spec?.planExecution;
  if (!pe?.planName) return waiting('has no scheduled plan yet');
  const status = child.status?.planStatus?.[pe.planName];
  if (!status || (status.uid ?? '') !== (pe.uid ?? '') || !isTerminal(status.status)) {
    return waiting(`plan ${pe.planName} is not finished`);
  }
  return status.status === 'COMPLETE'
    ? HEALTHY
    : failed(`plan ${pe.planName} ended ${status.status ?? ''}`);
}
