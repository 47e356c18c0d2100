/**
 * The Apply task: render, decorate, read the per-object policies, record in the inventory
 * (with the task and a digest), server-side apply what changed (CRDs and Namespaces first,
 * webhook configurations last; `apply: once` objects only when absent), then judge health.
 * Once every object is healthy, what the task applied before but no longer renders is pruned.
 * Done when every object is healthy and the prune finished.
 */
import { describeObject, isUnchanged, type ApplyObject } from '../../kube/index.ts';
import { namespacedName } from '../../kube/index.ts';
import type { Task } from '../api/types.ts';
import { checkHealth } from '../health/index.ts';
import {
  PolicyAnnotationError,
  collectedWithInstance,
  digestOf,
  entryOf,
  extractPolicy,
  type InventoryEntry,
} from '../inventory/index.ts';
import { controlledByInstance } from '../render/index.ts';
import { classify } from './classify.ts';
import { pruneTask } from './prune.ts';
import { KUDO_TENANCY, adoption } from './tenancy.ts';
import { dependencyKeyOf, objectDigest } from './dependencies-hash/index.ts';
import { applyOrder, decorateAll, renderTask, type Rendered } from './objects.ts';
import { FatalTaskError, TransientTaskError, type TaskContext, type TaskOutcome } from './types.ts';

export async function runApply(task: Task, ctx: TaskContext): Promise<TaskOutcome> {
  const rendered = await renderTask(task.name, task.spec?.resources ?? [], ctx);
  return applyObjects(task.name, rendered, ctx);
}

export async function applyObjects(
  task: string,
  rendered: readonly Rendered[],
  ctx: TaskContext,
): Promise<TaskOutcome> {
  const waiting: string[] = [];
  // Whether every object waited for wakes the Instance by a watch event when it changes.
  let wakesOnChange = true;
  // Kinds a CRD declares but the server does not serve yet are reported after everything
  // else was applied.
  const unserved: TransientTaskError[] = [];
  const applied: InventoryEntry[] = [];
  for (const order of [0, 1, 2]) {
    const batch = rendered.filter((r) => applyOrder(r.object) === order);
    if (batch.length === 0) continue;
    const decorated = await decorateAll(task, batch, ctx, { pending: unserved });
    const objects = decorated.map((o) => withPolicy(task, o, ctx));
    applied.push(...objects.map((o) => o.entry));
    // Objects not applied before need no look at the live state: apply them directly.
    const known = objects.map((o) => ctx.inventory.has(o.entry));
    await ctx.inventory.record(
      objects.map((o) => o.entry),
      { foundWithoutInventory: objects.every((o) => collectedWithOwner(o, ctx)) },
    );
    const results = await Promise.all(
      objects.map((o, i) => applyOne(task, o, ctx, known[i] ?? true)),
    );
    for (const r of results) {
      if (!r) continue;
      waiting.push(r.message);
      wakesOnChange &&= r.wakesOnChange;
    }
    // CRDs and Namespaces must be ready before anything that may live in or be one of them.
    if (waiting.length > 0) break;
  }
  if (unserved.length > 0) {
    throw new TransientTaskError(task, unserved.map((u) => u.detail).join('; '));
  }
  if (waiting.length > 0) return { done: false, message: waiting.join('; '), wakesOnChange };
  // Everything the task renders now is healthy: only now may what it no longer renders go.
  const pruning = await pruneTask(task, applied, ctx);
  return pruning.length === 0 ? { done: true } : { done: false, message: pruning.join('; ') };
}

interface PolicyObject {
  readonly object: ApplyObject;
  readonly entry: InventoryEntry;
}

function withPolicy(task: string, decorated: ApplyObject, ctx: TaskContext): PolicyObject {
  let extracted;
  try {
    extracted = extractPolicy(decorated, describeObject(decorated));
  } catch (err) {
    if (err instanceof PolicyAnnotationError) throw new FatalTaskError(task, err.message);
    throw err;
  }
  const { object, policy } = extracted;
  return {
    object,
    entry: entryOf(object, {
      ...(ctx.cluster ? { cluster: ctx.cluster } : {}),
      ...(dependencyKeyOf(object) !== undefined ? { digest: objectDigest(object) } : {}),
      task,
      contentDigest: digestOf(object),
      ...(policy ? { policy } : {}),
    }),
  };
}

/**
 * Whether the garbage collector deletes the object with the Instance, without our inventory:
 * its entry is one the collector removes (inventory/collected.ts) and the object really carries
 * the controller owner reference to this Instance that decorate sets.
 */
function collectedWithOwner({ object, entry }: PolicyObject, ctx: TaskContext): boolean {
  return collectedWithInstance(entry, ctx.instance) && controlledByInstance(object, ctx.instance);
}

interface Unhealthy {
  readonly message: string;
  /** A watch event of the object wakes the Instance when it changes. */
  readonly wakesOnChange: boolean;
}

/**
 * Applies one object when it differs from the live one; returns why it is not healthy yet.
 * The live object comes from the watch cache when it holds a current copy that already is
 * what we want (the usual case while a plan waits); otherwise from a GET, as it would without
 * a cache. A cached copy that differs is never written over blindly: it may predate our write.
 */
async function applyOne(
  task: string,
  { object: desired, entry }: PolicyObject,
  ctx: TaskContext,
  lookFirst: boolean,
): Promise<Unhealthy | undefined> {
  let current: ApplyObject | undefined;
  try {
    // apply-once objects are looked at first whatever the inventory says: created when absent,
    // never written again.
    const once = entry.policy === 'once';
    current = lookFirst && !once ? await unchangedInCache(desired, ctx) : undefined;
    if (!current) {
      const live = lookFirst || once ? await ctx.ssa.get(desired, ctx.signal) : undefined;
      if (live && (once || isUnchanged(desired, live))) current = live;
      else {
        // Absent as far as we know (never applied by this Instance, or a GET said so): a
        // create where it stores what an apply would, cheaper for the API server.
        current = live
          ? await ctx.ssa.apply(desired, { signal: ctx.signal, live })
          : await ctx.ssa.createOrApply(desired, {
              signal: ctx.signal,
              existing: (found) => judgeAdoption(task, found, ctx),
            });
        ctx.objects?.wrote(current);
      }
    }
    if (!once) ctx.onApplied?.({ entry, desired, live: current });
  } catch (err) {
    throw classify(task, desired, err, ctx.actingAs);
  }
  const health = checkHealth(current);
  if (health.state === 'healthy') return undefined;
  if (health.state === 'failed') {
    throw new FatalTaskError(task, `${describeObject(desired)} failed: ${health.reason}`, {
      object: describeObject(desired),
    });
  }
  return {
    message: `${describeObject(desired)} ${health.reason}`,
    wakesOnChange: ctx.objects?.wakes(current, namespacedName(ctx.instance.metadata)) ?? false,
  };
}

/**
 * An object this Instance had not applied exists already: taken over with a Warning Event
 * naming its previous owner, or (multi-tenant posture, not handed over) refused.
 */
function judgeAdoption(task: string, live: ApplyObject, ctx: TaskContext): void {
  const verdict = adoption(ctx.tenancy ?? KUDO_TENANCY, live, ctx.instance);
  if (verdict.kind === 'refuse') {
    throw new FatalTaskError(task, verdict.message, { object: describeObject(live) });
  }
  if (verdict.kind === 'warn') ctx.warn?.('AdoptedObject', verdict.message);
}

/** The cached copy of `desired` when the watch cache vouches for it and it is unchanged. */
async function unchangedInCache(
  desired: ApplyObject,
  ctx: TaskContext,
): Promise<ApplyObject | undefined> {
  const cached = await ctx.objects?.read(desired, ctx.signal);
  return cached && isUnchanged(desired, cached) ? cached : undefined;
}
