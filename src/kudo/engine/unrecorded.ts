/**
 * Objects a plan run applied whose inventory record never reached the API server.
 *
 * Owned objects (home cluster, the Instance's namespace, a controller owner reference to it)
 * are applied before their record is written: the record rides on the pass's closing status
 * write (session.ts), so a plan of such objects writes status once. If the manager dies between
 * the apply and that write, the objects exist without a record. The same run finds them again
 * (it renders them again); a new run — scheduled while the manager was down, e.g. by a
 * parameter change — may not, and prune (which reads the inventory) would leave an object it
 * no longer renders. So before a new run starts, unless the recorded state proves nothing can
 * be missing, the engine looks for them: one label-selected LIST per kind the OperatorVersion's
 * templates name, in the Instance's namespace, keeping objects whose controller owner reference
 * is this Instance, and records them (for the task that applied them, from the step the
 * object's annotations name) so prune handles them as if their record had been written.
 *
 * When nothing can be missing (no LIST): the stored `status.planExecution` shows a finished run
 * observed at the generation just before the current one (every earlier run's objects were
 * recorded by the write that finished it, and no run was scheduled in between); or the Instance
 * is at generation 1 (no run but the current one was ever scheduled, and the current run renders
 * its own objects again). Level-triggered: the condition is read from the stored Instance, and
 * the look happens again after every crash until a write records the new run.
 */
import type { Logger } from 'pino';
import {
  describeObject,
  type ApplyObject,
  type ServerSideApply,
  ApiError,
  apiVersionOf,
  collectionPath,
  gvkKey,
  parseApiVersion,
  type GroupVersionKind,
  type ResourceMapping,
  resolveKind,
} from '../../kube/index.ts';
import { isTerminal } from '../api/index.ts';
import type { Instance, OperatorVersion } from '../api/index.ts';
import { entryOf, inventoryKey, type InventoryEntry } from '../inventory/index.ts';
import {
  ANNOTATION_PHASE,
  ANNOTATION_PLAN,
  ANNOTATION_STEP,
  controlledByInstance,
} from '../render/index.ts';
import { MAX_UNKNOWN_KINDS_PER_TASK } from '../tasks/index.ts';
import { instanceLabelSelector } from './workloads.ts';

/** Whether the stored status proves that no applied object can be missing from the inventory. */
export function nothingUnrecorded(instance: Instance): boolean {
  const generation = instance.metadata.generation ?? 0;
  if (generation <= 1) return true;
  const recorded = instance.status?.planExecution;
  return (
    recorded !== undefined &&
    isTerminal(recorded.status) &&
    typeof recorded.observedGeneration === 'number' &&
    recorded.observedGeneration >= generation - 1
  );
}

const TOP_LEVEL = /^(apiVersion|kind):\s*(["']?)([A-Za-z0-9./-]+)\2\s*(#.*)?$/;

/**
 * The kinds the OperatorVersion's templates name with literal top-level `apiVersion` and
 * `kind` lines, per YAML document. Conditional documents count too: those are the objects a
 * run with other parameters rendered. A kind written as a template expression is not seen.
 */
export function templateKinds(ov: OperatorVersion): GroupVersionKind[] {
  const out = new Map<string, GroupVersionKind>();
  for (const text of Object.values(ov.spec?.templates ?? {})) {
    if (typeof text !== 'string') continue;
    let apiVersion: string | undefined;
    let kind: string | undefined;
    const flush = (): void => {
      if (apiVersion && kind) {
        const gvk = { ...parseApiVersion(apiVersion), kind };
        out.set(gvkKey(gvk), gvk);
      }
      apiVersion = undefined;
      kind = undefined;
    };
    for (const line of text.split('\n')) {
      if (line.startsWith('---')) {
        flush();
        continue;
      }
      const m = TOP_LEVEL.exec(line.trimEnd());
      if (!m) continue;
      if (m[1] === 'apiVersion') apiVersion = m[3];
      else kind = m[3];
    }
    flush();
  }
  return [...out.values()];
}

const APPLYING_KINDS: ReadonlySet<string> = new Set(['Apply', 'Toggle', 'Pipe']);

/**
 * The task that applied `obj`: the step its plan/phase/step annotations name, and of that
 * step's tasks the one that applies objects (Apply, Toggle, Pipe artifacts) — when several
 * do, the one whose templates name the object's kind. Undefined when that stays ambiguous:
 * the object is then recorded without a task (deleted with the Instance, never pruned).
 */
export function taskOf(obj: ApplyObject, ov: OperatorVersion): string | undefined {
  const annotations = obj.metadata?.annotations ?? {};
  const plans = ov.spec?.plans ?? {};
  const planName = annotations[ANNOTATION_PLAN] ?? '';
  const plan = Object.hasOwn(plans, planName) ? plans[planName] : undefined;
  const phase = (plan?.phases ?? []).find((p) => (p.name ?? '') === annotations[ANNOTATION_PHASE]);
  const step = (phase?.steps ?? []).find((s) => (s.name ?? '') === annotations[ANNOTATION_STEP]);
  const tasks = new Map((ov.spec?.tasks ?? []).map((t) => [t.name, t]));
  const candidates = (step?.tasks ?? [])
    .map((name) => tasks.get(name))
    .filter((t) => t !== undefined && APPLYING_KINDS.has(t.kind));
  if (candidates.length <= 1) return candidates[0]?.name;
  const naming = candidates.filter((t) => {
    if (t?.kind === 'Pipe') return obj.kind === 'ConfigMap' || obj.kind === 'Secret';
    const templates = Object.fromEntries(
      (t?.spec?.resources ?? []).map((r) => [r, ov.spec?.templates?.[r] ?? '']),
    );
    return templateKinds({ metadata: {}, spec: { templates } }).some((g) => g.kind === obj.kind);
  });
  return naming.length === 1 ? naming[0]?.name : undefined;
}

const PAGE = 500;

/**
 * The owned objects of the Instance in its namespace, of the kinds its OperatorVersion's
 * templates name, that `known` does not hold; as inventory entries (task from taskOf).
 */
export interface UnrecordedLook {
  readonly instance: Instance;
  readonly ov: OperatorVersion;
  /** The entries recorded already. */
  readonly known: readonly InventoryEntry[];
  readonly ssa: ServerSideApply;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

export async function findUnrecorded(look: UnrecordedLook): Promise<InventoryEntry[]> {
  const { instance, ov, known, ssa, logger, signal } = look;
  const namespace = instance.metadata.namespace ?? '';
  const recorded = new Set(known.map(inventoryKey));
  const out: InventoryEntry[] = [];
  const lists = new Map<string, ResourceMapping>();
  let unknown = 0;
  for (const gvk of templateKinds(ov)) {
    // Kinds nothing serves cost discovery requests: a bounded number of them is looked up (a
    // run's own objects of later kinds are recorded anyway, when it renders them).
    if (unknown >= MAX_UNKNOWN_KINDS_PER_TASK) break;
    // Removed API versions resolve to the version the object was converted to and applied as.
    const resolution = await resolveKind(
      ssa.mapper,
      ssa.client,
      apiVersionOf(gvk),
      gvk.kind,
      signal,
    );
    if (resolution.state !== 'served' && resolution.state !== 'converted') {
      unknown++;
      continue;
    }
    // Cluster-scoped objects carry no owner reference: their records are written first.
    if (resolution.mapping.namespaced) lists.set(gvkKey(resolution.mapping), resolution.mapping);
  }
  for (const mapping of lists.values()) {
    const apiVersion = apiVersionOf(mapping);
    let next: string | undefined;
    do {
      let page: { items?: ApplyObject[]; metadata?: { continue?: string } };
      try {
        page = await ssa.client.request({
          path: collectionPath(mapping, namespace),
          query: {
            labelSelector: instanceLabelSelector(instance.metadata.name ?? ''),
            limit: PAGE,
            continue: next,
          },
          signal,
        });
      } catch (err) {
        // A kind the manager may not list (tailored RBAC) or that went away: nothing to find
        // there; any other failure is retried with the reconcile.
        if (!(err instanceof ApiError) || (err.statusCode !== 403 && err.statusCode !== 404))
          throw err;
        logger.warn(
          { err, kind: gvkKey(mapping), namespace },
          'cannot list a kind to look for objects applied without their record; skipping it',
        );
        break;
      }
      for (const item of page.items ?? []) {
        const obj: ApplyObject = { ...item, apiVersion, kind: mapping.kind };
        if (!controlledByInstance(obj, instance)) continue;
        const task = taskOf(obj, ov);
        const entry = entryOf(obj, { task });
        if (recorded.has(inventoryKey(entry))) continue;
        recorded.add(inventoryKey(entry));
        logger.info(
          { object: describeObject(obj), task },
          'found an object a run applied without its record reaching the API server; recording it',
        );
        out.push(entry);
      }
      next = page.metadata?.continue || undefined;
    } while (next);
  }
  return out;
}
