/**
 * The Ready condition of a pass: from the scheduled plan's verdict, or from the Instance's
 * workloads when no plan decides it (home cluster: the workload source; a target cluster:
 * the watch caches the Instance holds there).
 */
import type { ApplyObject } from '../../kube/index.ts';
import { namespacedName } from '../../kube/index.ts';
import { READINESS_KINDS, readinessOf } from '../health/index.ts';
import { gvkOf } from './drift.ts';
import type { Pass } from './pass.ts';
import { readyFromWorkloads, type readyFromPlan } from './status.ts';

export type ReadyDecision = ReturnType<typeof readyFromPlan>;

/**
 * Sets the Ready condition from the plan's verdict, or from the Instance's workloads when
 * no plan decides it (or a plan that does not decide it runs and there is no condition yet).
 * A failed workload listing keeps the condition as it is; the next event retries.
 */
export async function updateReady(pass: Pass, decision: ReadyDecision): Promise<void> {
  const { session, target, signal, engine } = pass;
  if (decision === 'keep' && session.hasReady()) return;
  if (typeof decision === 'object') {
    session.setReady(decision);
    return;
  }
  const instance = pass.instance;
  let objects;
  try {
    if (target instanceof Error) throw target;
    objects =
      target.cluster !== undefined
        ? targetWorkloads(pass, target.cluster)
        : await engine.ctx.workloads.list(
            instance.metadata.namespace ?? '',
            instance.metadata.name ?? '',
            signal,
          );
  } catch (err) {
    if (signal.aborted) throw err;
    engine.ctx.logger.warn(
      { instance: namespacedName(instance.metadata), err },
      'could not list the Instance workloads for its Ready condition; keeping it as it is',
    );
    return;
  }
  session.setReady(readyFromWorkloads(readinessOf(objects)));
}

/** READINESS_KINDS objects of the inventory on a target cluster, from the watch caches. */
function targetWorkloads(pass: Pass, cluster: string): ApplyObject[] {
  const watches = pass.engine.ctx.watches;
  const kinds = new Set(READINESS_KINDS.map((g) => `${g.group}/${g.kind}`));
  const out: ApplyObject[] = [];
  for (const entry of pass.session.inventory) {
    if (entry.cluster !== cluster || !kinds.has(`${entry.group}/${entry.kind}`)) continue;
    const cache = watches?.cache(pass.key, cluster, gvkOf(entry));
    if (!cache?.isSynced)
      throw new Error(`the watch of ${entry.kind} in cluster ${cluster} is not synced yet`);
    const id = entry.namespace ? `${entry.namespace}/${entry.name}` : entry.name;
    const live = cache.get(id) as ApplyObject | undefined;
    if (live)
      out.push({
        ...live,
        apiVersion: entry.group ? `${entry.group}/${entry.version}` : entry.version,
        kind: entry.kind,
      });
  }
  return out;
}
