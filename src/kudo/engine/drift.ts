/**
 * Drift per Instance (`planwright.dev/drift: report | correct`; off by default, because KUDO
 * users expect edits made while no plan runs to stay). Baselines are taken whenever a task
 * applies an object (or finds it unchanged); checks read the live objects from the watch
 * caches the Instance holds — a watch event wakes the Instance, nothing polls. `report`
 * records a Warning Event naming the object and the fields, a `Drifted` condition and a
 * metric; `correct` re-applies what was applied last and records a Normal Event.
 *
 * Baselines live in memory (bounded): after a restart, drift is judged for objects applied
 * since (the next plan run, or the drift check's own re-apply).
 */
import type { Counter } from 'prom-client';
import { describeObject, type ApplyObject } from '../../kube/apply.ts';
import { BoundedMap } from '../../runtime/index.ts';
import type { GroupVersionKind } from '../../kube/gvk.ts';
import type { Instance, InstanceStatus } from '../api/types.ts';
import { setCondition } from './status.ts';
import {
  driftBaseline,
  driftedFields,
  inventoryKey,
  objectOf,
  type DriftBaseline,
  type InventoryEntry,
} from '../inventory/index.ts';
import type { AppliedObject } from '../tasks/types.ts';
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
  private readonly baselines = new BoundedMap<string, DriftBaseline>(MAX_BASELINES, (key) =>
    this.drop(key),
  );
  /**
   * The Instance (namespace/name) each baseline belongs to: an Instance without a finalizer
   * is deleted without a cleanup pass, so its baselines are dropped when it is gone from the
   * cache (forgetInstance), not from its last inventory.
   */
  private readonly owners = new Map<string, string>();
  /** What was last reported per object, so a standing drift is reported once. */
  private readonly reported = new Map<string, string>();

  constructor(private readonly metric?: Counter<'cluster' | 'kind' | 'mode'>) {}

  /** A task of Instance `owner` (namespace/name) applied (or found unchanged) an object. */
  applied(owner: string, applied: AppliedObject): void {
    const key = inventoryKey(applied.entry);
    this.baselines.set(
      key,
      driftBaseline(applied.desired, applied.live, applied.entry.contentDigest ?? ''),
    );
    this.owners.set(key, owner);
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
      if (input.mode === 'report') {
        if (fresh) {
          input.sink.event(
            'Warning',
            'DriftDetected',
            `${object}${where} differs from what Planwright applied: ${named} (drift: report; annotate ${ANNOTATION_DRIFT}=correct to restore it)`,
          );
        }
        findings.push({ entry, object, fields, corrected: false });
        continue;
      }
      const result = await input.target.ssa.apply(baseline.desired, { signal: input.signal });
      this.baselines.set(key, driftBaseline(baseline.desired, result, baseline.digest));
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
   * Forgets every baseline of Instance `owner` (namespace/name), which is gone from the cache.
   * One pass over at most MAX_BASELINES keys, once per deleted Instance.
   */
  forgetInstance(owner: string): void {
    for (const [key, o] of this.owners) if (o === owner) this.drop(key);
  }

  private drop(key: string): void {
    this.baselines.delete(key);
    this.reported.delete(key);
    this.owners.delete(key);
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
