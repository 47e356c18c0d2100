/**
 * The status of one Instance during one reconcile: a working copy that the plan pass and the
 * inventory change, flushed to `/status` only when it differs from what is stored. Flushes
 * are serialized (parallel steps may record inventory at the same time).
 */
import type { Instance, InstanceStatus } from '../api/types.ts';
import {
  inventoryKey,
  mergeInventory,
  readInventory,
  removeFromInventory,
  type InventoryEntry,
} from '../inventory/index.ts';
import type { InventoryRecorder } from '../tasks/index.ts';
import type { InstanceWriter } from './instance-api.ts';
import { stampChangedPlans, statusEqual } from './status.ts';

export class StatusSession implements InventoryRecorder {
  instance: Instance;
  readonly working: InstanceStatus;
  private written: InstanceStatus;
  private chain: Promise<void> = Promise.resolve();
  writes = 0;

  constructor(
    instance: Instance,
    private readonly writer: InstanceWriter,
    private readonly now: () => Date,
    private readonly signal: AbortSignal,
  ) {
    this.instance = instance;
    this.written = structuredClone(instance.status ?? {});
    this.working = structuredClone(instance.status ?? {});
  }

  get inventory(): InventoryEntry[] {
    return readInventory(this.working.inventory);
  }

  setInventory(entries: readonly InventoryEntry[]): void {
    this.working.inventory = entries.map((e) => ({ ...e }));
  }

  /** Records entries and writes them before the caller applies anything. */
  async record(entries: readonly InventoryEntry[]): Promise<void> {
    const { entries: merged, changed } = mergeInventory(this.inventory, entries);
    if (!changed) return;
    this.setInventory(merged);
    await this.flush();
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

  /** Writes the working status if it changed; serialized. */
  flush(): Promise<void> {
    const next = this.chain.then(() => this.write());
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async write(): Promise<void> {
    stampChangedPlans(this.written, this.working, this.now());
    if (statusEqual(this.written, this.working)) return;
    const stored = await this.writer.writeStatus(this.instance, this.working, this.signal);
    this.writes++;
    this.instance = stored;
    this.written = structuredClone(this.working);
  }
}
