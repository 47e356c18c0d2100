/**
 * What a pass keeps while the Instance's objects live: the watch caches of their kinds on its
 * target (remote targets always; the home cluster when drift is on), and — drift on, no plan
 * running — the drift check of its objects against what was applied, read from those caches.
 */
import type { ApplyObject } from '../../kube/index.ts';
import { driftMode, gvkOf } from './drift.ts';
import { kindsOn } from './instance-watches.ts';
import type { Pass } from './pass.ts';

/** `idle`: no plan runs, so the objects hold what the last run applied. */
export async function watchAndKeep(pass: Pass, idle: boolean): Promise<void> {
  const { engine, session, target, key, signal } = pass;
  const { watches } = engine.ctx;
  const { drift } = engine;
  if (!watches || target instanceof Error) return;
  const mode = driftMode(pass.instance);
  const entries = session.inventory;
  if (target.cluster !== undefined || mode !== 'off') {
    await watches.sync(key, target.cluster, kindsOn(entries, target.cluster));
  } else watches.releaseAll(key);
  if (mode === 'off' || !drift) {
    // Turned off: what was kept for it goes (one lookup when there was none).
    drift?.forgetInstance(key);
    session.setDrift(undefined);
    await session.flush();
    return;
  }
  if (!idle) return;
  const instance = pass.instance;
  const findings = await drift.check({
    instance,
    mode,
    entries,
    target,
    live: (entry) => {
      const cache = watches.cache(key, target.cluster, gvkOf(entry));
      if (!cache?.isSynced) return 'unknown';
      const id = entry.namespace ? `${entry.namespace}/${entry.name}` : entry.name;
      return cache.get(id) as ApplyObject | undefined;
    },
    sink: {
      event: (type, reason, message) => engine.ctx.events.record(instance, type, reason, message),
    },
    signal,
  });
  session.setDrift(findings);
  await session.flush();
}
