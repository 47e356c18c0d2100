/**
 * Drift per Instance (`planwright.dev/drift: report | correct`; off by default, because KUDO
 * users expect edits made while no plan runs to stay). Baselines are taken whenever a task
 * applies an object (or finds it unchanged); checks read the live objects from the watch
 * caches the Instance holds — a watch event wakes the Instance, nothing polls. `report`
 * records a Warning Event naming the object and the fields, a `Drifted` condition and a
 * metric; `correct` re-applies what was applied last and records a Normal Event.
 *
 * Baselines live in memory (bounded, compact: inventory/drift.ts), only for Instances with
 * drift on: after a restart, or once drift is turned on, drift is judged for objects applied
 * since (the next plan run). Turning it off drops the Instance's baselines.
 */
import type { Counter } from 'prom-client';
import {
  describeObject,
  namespacedName,
  ResourceManager,
  type ApplyObject,
} from '../../kube/index.ts';
import { BoundedMap } from '../../runtime/index.ts';
import type { GroupVersionKind } from '../../kube/index.ts';
import type { Instance, InstanceStatus } from '../api/index.ts';
import { setCondition } from './status.ts';
import {
  appliedObject,
  driftBaseline,
  driftedFields,
  DriftShapes,
  inventoryKey,
  reappliedBaseline,
  objectOf,
  type DriftBaseline,
  type InventoryEntry,
} from '../inventory/index.ts';
import { LABEL_OWNER_UID, ownedByInstance } from '../render/index.ts';
import { previousOwner } from '../tasks/index.ts';
import type { AppliedObject } from '../tasks/index.ts';
import type { Target } from './targets.ts';

export const ANNOTATION_DRIFT = 'planwright.dev/drift';
export type DriftMode = 'off' | 'report' | 'correct';
export const DRIFT_CONDITION = 'Drifted';

export function driftMode(instance: Instance): DriftMode {
  const value = instance.metadata.annotations?.[ANNOTATION_DRIFT];
  return value === 'report' || value === 'correct' ? value : 'off';
}

export interface DriftFinding {
  readonly entry: InventoryEntry;
  readonly object: string;
  readonly fields: readonly string[];
  readonly corrected: boolean;
}

export interface DriftSink {
  event(type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export interface DriftCheckInput {
  readonly instance: Instance;
  readonly mode: Exclude<DriftMode, 'off'>;
  readonly entries: readonly InventoryEntry[];
  readonly target: Target;
  /** The live object from a watch cache; undefined when not known (yet). */
  readonly live: (entry: InventoryEntry) => ApplyObject | undefined | 'unknown';
  readonly sink: DriftSink;
  readonly signal: AbortSignal;
}

const MAX_BASELINES = 50_000;
const MAX_FIELDS_NAMED = 10;

export class DriftKeeper {
  /** Bounded: the oldest baseline is forgotten whole (drop), its owner and report with it. */
  private readonly baselines: BoundedMap<string, DriftBaseline>;
  /** The shapes the baselines share (one per template structure, not one per object). */
  private readonly shapes = new DriftShapes();
  /**
   * The Instance (namespace/name) each baseline belongs to: an Instance without a finalizer
   * is deleted without a cleanup pass, so its baselines are dropped when it is gone from the
   * cache (forgetInstance), not from its last inventory.
   */
  private readonly owners = new Map<string, string>();
  /** The baselines of each Instance: forgetting one costs its own objects, not all of them. */
  private readonly owned = new Map<string, Set<string>>();
  /** What was last reported per object, so a standing drift is reported once. */
  private readonly reported = new Map<string, string>();

  constructor(
    private readonly metric?: Counter<'cluster' | 'kind' | 'mode'>,
    capacity = MAX_BASELINES,
  ) {
    this.baselines = new BoundedMap(capacity, (key, evicted) => {
      this.shapes.release(evicted.shape);
      this.drop(key);
    });
  }

  /** Baselines held (for tests and memory accounting). */
  get size(): number {
    return this.baselines.size;
  }

  /** Distinct shapes the baselines share. */
  get shapeCount(): number {
    return this.shapes.size;
  }

  /**
   * A task of Instance `owner` (namespace/name), which has drift on, applied (or found
   * unchanged) an object. Instances with drift off keep nothing: turned on, drift is judged
   * for the objects applied from then on (the next plan run), as after a restart.
   */
  applied(owner: string, applied: AppliedObject): void {
    const key = inventoryKey(applied.entry);
    this.keep(
      key,
      driftBaseline(applied.desired, applied.live, applied.entry.contentDigest ?? '', this.shapes),
    );
    const before = this.owners.get(key);
    if (before !== owner) {
      if (before !== undefined) this.owned.get(before)?.delete(key);
      this.owners.set(key, owner);
      let keys = this.owned.get(owner);
      if (!keys) this.owned.set(owner, (keys = new Set()));
      keys.add(key);
    }
    this.reported.delete(key);
  }

  /** Checks the Instance's objects; corrects them in `correct` mode. */
  async check(input: DriftCheckInput): Promise<DriftFinding[]> {
    const findings: DriftFinding[] = [];
    for (const entry of input.entries) {
      if (entry.policy === 'once' || entry.cluster !== input.target.cluster) continue;
      const key = inventoryKey(entry);
      const baseline = this.baselines.get(key);
      if (!baseline || (entry.contentDigest && baseline.digest !== entry.contentDigest)) continue;
      const live = input.live(entry);
      if (live === 'unknown') continue;
      const fields = live ? driftedFields(baseline, live) : ['(the object was deleted)'];
      if (fields.length === 0) {
        this.reported.delete(key);
        continue;
      }
      const object = describeObject(objectOf(entry));
      const where = entry.cluster ? ` in cluster ${entry.cluster}` : '';
      const named =
        fields.slice(0, MAX_FIELDS_NAMED).join(', ') +
        (fields.length > MAX_FIELDS_NAMED ? ` and ${fields.length - MAX_FIELDS_NAMED} more` : '');
      const signature = fields.join('\n');
      const fresh = this.reported.get(key) !== signature;
      if (fresh) {
        this.reported.set(key, signature);
        this.metric?.inc({ cluster: entry.cluster ?? 'local', kind: entry.kind, mode: input.mode });
      }
      // Re-applying writes over the live object: only one that still proves it is this
      // Instance's (someone who took it over keeps it; the change is reported instead).
      const taken = live !== undefined && !ownedByInstance(live, input.instance);
      if (input.mode === 'report' || taken) {
        if (fresh && taken) {
          input.sink.event(
            'Warning',
            'DriftNotCorrected',
            `${object}${where} differs from what Planwright applied (${named}) and no longer carries the owner reference or ${LABEL_OWNER_UID} label of Instance ${namespacedName(input.instance.metadata)} (owner: ${previousOwner(live)}); not re-applied`,
          );
        } else if (fresh) {
          input.sink.event(
            'Warning',
            'DriftDetected',
            `${object}${where} differs from what Planwright applied: ${named} (drift: report; annotate ${ANNOTATION_DRIFT}=correct to restore it)`,
          );
        }
        findings.push({ entry, object, fields, corrected: false });
        continue;
      }
      const { object: result } = await new ResourceManager(input.target.ssa).reapply(
        appliedObject(baseline),
        input.signal,
      );
      // Still ours (not forgotten or re-applied by a plan meanwhile): the answer is the new baseline.
      // Same shape, so its use count stays as it is.
      if (this.baselines.get(key) === baseline)
        this.baselines.set(key, reappliedBaseline(baseline, result));
      this.reported.delete(key);
      input.sink.event(
        'Normal',
        'DriftCorrected',
        `${object}${where} was changed outside a plan (${named}); re-applied what Planwright applied`,
      );
      findings.push({ entry, object, fields, corrected: true });
    }
    return findings;
  }

  /** Forgets an Instance's objects (it is gone). */
  forget(entries: readonly InventoryEntry[]): void {
    for (const e of entries) this.drop(inventoryKey(e));
  }

  /**
   * Forgets every baseline of Instance `owner` (namespace/name): it is gone from the cache,
   * or its drift was turned off. Costs that Instance's own objects.
   */
  forgetInstance(owner: string): void {
    const keys = this.owned.get(owner);
    if (!keys) return;
    for (const key of [...keys]) this.drop(key);
    this.owned.delete(owner);
  }

  /** Keeps a baseline whose shape was just acquired, releasing the one it replaces. */
  private keep(key: string, baseline: DriftBaseline): void {
    const before = this.baselines.get(key);
    this.baselines.set(key, baseline);
    if (before) this.shapes.release(before.shape);
  }

  private drop(key: string): void {
    const baseline = this.baselines.get(key);
    if (baseline) {
      this.baselines.delete(key);
      this.shapes.release(baseline.shape);
    }
    this.reported.delete(key);
    const owner = this.owners.get(key);
    if (owner !== undefined) {
      this.owners.delete(key);
      const keys = this.owned.get(owner);
      keys?.delete(key);
      if (keys?.size === 0) this.owned.delete(owner);
    }
  }
}

/** Sets (or clears) the `Drifted` condition from a check's findings. */
export function setDriftCondition(
  status: InstanceStatus,
  instance: Instance,
  findings: readonly DriftFinding[] | undefined,
  now: Date,
): void {
  if (findings === undefined) {
    const i = (status.conditions ?? []).findIndex((c) => c.type === DRIFT_CONDITION);
    if (i >= 0) status.conditions?.splice(i, 1);
    return;
  }
  const standing = findings.filter((f) => !f.corrected);
  const drifted = standing.length > 0;
  setCondition(
    status,
    instance,
    {
      type: DRIFT_CONDITION,
      status: drifted ? 'True' : 'False',
      reason: drifted ? 'DriftDetected' : 'InSync',
      message: drifted
        ? standing
            .map((f) => `${f.object}: ${f.fields.slice(0, MAX_FIELDS_NAMED).join(', ')}`)
            .join('; ')
        : 'the objects hold what Planwright applied',
    },
    now,
  );
}

export function gvkOf(entry: InventoryEntry): GroupVersionKind {
  return { group: entry.group, version: entry.version, kind: entry.kind };
}
