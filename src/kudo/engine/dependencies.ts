/**
 * Run-time validation of operator dependencies (as KUDO's controller validated them; see
 * docs/packages.md "Pipe and KudoOperator tasks"): before a top-level Instance's plan runs, every KudoOperator task
 * of its OperatorVersion — recursively through the children's OperatorVersions — must name an
 * Operator and an OperatorVersion that exist in the OperatorVersion's namespace, and the
 * packages must not depend on each other in a cycle. A failure is the plan's FATAL_ERROR
 * message; lookups that fail for other reasons than NotFound throw (the pass is retried).
 * Child Instances skip the check: their parent's already covered them.
 */
import type { KubeClient } from '../../kube/index.ts';
import { ApiError } from '../../kube/index.ts';
import type { OperatorVersionSource } from '../api/index.ts';
import { KUDO_GROUP, KUDO_VERSION, type Instance, type OperatorVersion } from '../api/index.ts';
import { operatorVersionName } from '../package/index.ts';

/** Whether the Instance is a dependency of another Instance (owned by one). */
export function isChildInstance(instance: Instance): boolean {
  return (instance.metadata.ownerReferences ?? []).some(
    (r) => r.kind === 'Instance' && r.apiVersion.split('/')[0] === KUDO_GROUP,
  );
}

async function operatorExists(
  client: KubeClient,
  namespace: string,
  name: string,
  signal: AbortSignal,
): Promise<boolean> {
  try {
    await client.request({
      path: `/apis/${KUDO_GROUP}/${KUDO_VERSION}/namespaces/${encodeURIComponent(namespace)}/operators/${encodeURIComponent(name)}`,
      signal,
    });
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 404) return false;
    throw err;
  }
}

/**
 * The problem with `ov`'s dependency tree, in words for the plan's message, or undefined
 * when every dependency is installed and there is no cycle.
 */
export async function dependencyProblem(
  ov: OperatorVersion,
  operatorVersions: OperatorVersionSource,
  client: KubeClient,
  signal: AbortSignal,
): Promise<string | undefined> {
  const namespace = ov.metadata.namespace ?? '';
  const edges = new Map<string, Set<string>>();
  const reaches = (from: string, to: string): boolean => {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length > 0) {
      const node = stack.pop() ?? '';
      if (node === to) return true;
      if (seen.has(node)) continue;
      seen.add(node);
      for (const next of edges.get(node) ?? []) stack.push(next);
    }
    return false;
  };
  const visited = new Set<string>([ov.metadata.name ?? '']);
  const queue: OperatorVersion[] = [ov];
  while (queue.length > 0) {
    const parent = queue.shift();
    if (!parent) break;
    const parentName = parent.metadata.name ?? '';
    for (const task of parent.spec?.tasks ?? []) {
      if (task.kind !== 'KudoOperator') continue;
      const pkg = task.spec?.package ?? '';
      const version = task.spec?.operatorVersion ?? '';
      // A task without them fails when it runs, with its own message.
      if (!pkg || !version) continue;
      const childName = operatorVersionName(pkg, version, task.spec?.appVersion);
      const child = await operatorVersions.get(namespace, childName, signal);
      const operator = child ? await operatorExists(client, namespace, pkg, signal) : false;
      if (!child || !operator) {
        const missing = !child ? `OperatorVersion ${childName}` : `Operator ${pkg}`;
        return `failed to resolve the dependencies of OperatorVersion ${namespace}/${parentName}: task ${task.name} needs package ${pkg} version ${version}${task.spec?.appVersion ? ` (app version ${task.spec.appVersion})` : ''}, but ${missing} does not exist in namespace ${namespace}; install the package there (\`kubectl kudo install\` installs a package's dependencies) or correct the task`;
      }
      const to = edges.get(parentName) ?? new Set<string>();
      to.add(childName);
      edges.set(parentName, to);
      if (reaches(childName, parentName)) {
        return `cyclic package dependency found when adding package ${parentName} -> ${childName}; a package cannot depend on itself, directly or through its dependencies`;
      }
      if (!visited.has(childName)) {
        visited.add(childName);
        queue.push(child);
      }
    }
  }
  return undefined;
}
