/**
 * The status of one Instance during one reconcile: a working copy that the plan pass and the
 * inventory change, flushed to `/status` only when it differs from what is stored. Flushes
 * are serialized (parallel steps may record inventory at the same time).
 *
 * Inventory entries are written before their objects are applied, except those the garbage
 * collector finds without us (`foundWithoutInventory`): they ride on the pass's closing write.
 * Until a write carries them they are {@link unwritten}; the reconciler hands them to the next
 * session when that write fails.
 *
 * The cleanup finalizer is added (a metadata patch, in the same serialized chain, before the
 * status write) only once the Instance needs it: when the reconciler asks (a cleanup plan, a
 * recorded object the garbage collector does not remove) or when entries of such objects are
 * recorded — always before they are applied.
 */
import type { Instance, InstanceStatus, OperatorVersion, PlanStatus } from '../api/index.ts';
import { hasCleanupFinalizer } from './finalizer.ts';
import {
  collectedWithInstance,
  inventoryKey,
  mergeInventory,
  readInventory,
  removeFromInventory,
  type InventoryEntry,
} from '../inventory/index.ts';
import type { InventoryRecorder, RecordOptions } from '../tasks/index.ts';
import type { InstanceWriter } from './instance-api.ts';
import { setDriftCondition, type DriftFinding } from './drift.ts';
import {
  readyCondition,
  setReady,
  stampChangedPlans,
  statusEqual,
  syncPlanEntries,
  type ReadyInput,
} from './status.ts';

export class StatusSession implements InventoryRecorder {
  /** The Instance as last stored (each write returns it anew). */
  instance: Instance;
  /** The one working status of the pass: changed only through this session's methods. */
  private readonly working: InstanceStatus;
  private written: InstanceStatus;
  private chain: Promise<void> = Promise.resolve();
  /** Recorded, not carried by a successful write yet. */
  private pending: InventoryEntry[] = [];
  /** The Instance must carry the cleanup finalizer before the next write. */
  private finalizerWanted = false;
  private repairing = false;
  writes = 0;

  constructor(
    instance: Instance,
    private readonly writer: Pick<InstanceWriter, 'writeStatus' | 'addFinalizer'>,
    private readonly now: () => Date,
    private readonly signal: AbortSignal,
  ) {
    this.instance = instance;
    this.written = structuredClone(instance.status ?? {});
    this.working = structuredClone(instance.status ?? {});
  }

  /** The status as it stands in this pass (read-only: the methods below change it). */
  get status(): Readonly<InstanceStatus> {
    return this.working;
  }

  /** Sets the Ready condition (its transition time moves only when its status does). */
  setReady(ready: ReadyInput): void {
    setReady(this.working, this.instance, ready, this.now());
  }

  hasReady(): boolean {
    return readyCondition(this.working) !== undefined;
  }

  /** Sets the drift condition from a check's findings; `undefined` (drift off) removes it. */
  setDrift(findings: readonly DriftFinding[] | undefined): void {
    setDriftCondition(this.working, this.instance, findings, this.now());
  }

  /** Gives every plan of the OperatorVersion its entry (status.ts syncPlanEntries). */
  syncPlans(ov: OperatorVersion): void {
    syncPlanEntries(this.working, ov);
  }

  /** The entry of plan `name` (user input: own keys only). */
  plan(name: string): PlanStatus | undefined {
    const plans = this.working.planStatus;
    return plans && Object.hasOwn(plans, name) ? plans[name] : undefined;
  }

  /**
   * Puts the entry of a run; the plan pass then changes that entry in place (phases and
   * steps) and the next flush writes it.
   */
  setPlan(name: string, ps: PlanStatus): void {
    (this.working.planStatus ??= {})[name] = ps;
  }

  setPlanExecution(execution: NonNullable<InstanceStatus['planExecution']>): void {
    this.working.planExecution = execution;
  }

  get inventory(): InventoryEntry[] {
    return readInventory(this.working.inventory);
  }

  setInventory(entries: readonly InventoryEntry[]): void {
    this.working.inventory = entries.map((e) => ({ ...e }));
  }

  /**
   * Records entries and writes them before the caller applies anything — unless the caller
   * says the objects are found without the inventory (then the next flush carries them).
   */
  async record(entries: readonly InventoryEntry[], options?: RecordOptions): Promise<void> {
    const { entries: merged, changed } = mergeInventory(this.inventory, entries);
    if (!changed) return;
    this.setInventory(merged);
    if (options?.foundWithoutInventory) {
      this.pending.push(...entries);
      return;
    }
    if (entries.some((e) => !collectedWithInstance(e, this.instance))) this.finalizerWanted = true;
    await this.flush();
  }

  /** Adds the cleanup finalizer if the Instance lacks it (serialized with the status writes). */
  requireFinalizer(): Promise<void> {
    this.finalizerWanted = true;
    return this.flush();
  }

  /** Takes over entries an earlier session recorded but could not write (see unwritten). */
  adopt(entries: readonly InventoryEntry[]): void {
    const { entries: merged, changed } = mergeInventory(this.inventory, entries);
    if (changed) this.setInventory(merged);
    this.pending.push(...entries);
  }

  /** Entries recorded with `foundWithoutInventory` that no successful write carried yet. */
  get unwritten(): readonly InventoryEntry[] {
    return this.pending;
  }

  has(entry: InventoryEntry): boolean {
    return this.recorded(entry) !== undefined;
  }

  recorded(entry: InventoryEntry): InventoryEntry | undefined {
    const key = inventoryKey(entry);
    return this.inventory.find((e) => inventoryKey(e) === key);
  }

  forget(entries: readonly InventoryEntry[]): void {
    const { entries: rest, changed } = removeFromInventory(this.inventory, entries);
    if (changed) this.setInventory(rest);
  }

  list(): InventoryEntry[] {
    return this.inventory;
  }

  save(): Promise<void> {
    return this.flush();
  }

  /** The next flush writes even if nothing changed (the stored status had to be repaired). */
  repair(): void {
    this.repairing = true;
  }

  /** Writes the working status if it changed; serialized. */
  flush(): Promise<void> {
    const next = this.chain.then(() => this.write());
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async write(): Promise<void> {
    if (this.finalizerWanted && !hasCleanupFinalizer(this.instance)) {
      this.instance = await this.writer.addFinalizer(this.instance, this.signal);
    }
    stampChangedPlans(this.written, this.working, this.now());
    if (!this.repairing && statusEqual(this.written, this.working)) return;
    this.repairing = false;
    // What is sent is what counts as written: steps running in parallel may record more
    // while the request is in flight.
    const body = structuredClone(this.working);
    const carried = this.pending.length;
    const stored = await this.writer.writeStatus(this.instance, body, this.signal);
    this.writes++;
    this.instance = stored;
    this.written = body;
    this.pending = this.pending.slice(carried);
  }
}
