/**
 * What the reconciler remembers between passes, for one term of leadership. None of it may
 * outlive the term: while another replica leads, the Instances change under it (runs finish,
 * statuses are written, Events recorded), so a new term starts knowing nothing and reads
 * everything afresh. Bounded: the oldest Instances are forgotten first.
 */
import { BoundedMap } from '../../runtime/index.ts';
import type { InventoryEntry } from '../inventory/index.ts';
import { WaitBackoff, type WaitBackoffOptions } from './waits.ts';

/** Instances remembered per map (oldest forgotten first). */
const MAX_REMEMBERED = 65_536;
const MAX_WARNINGS = 4096;

export class TermMemory {
  /** How long each waiting Instance waits before the next look. */
  readonly waits: WaitBackoff;
  /** Warnings already recorded, per Instance and plan run. */
  readonly warned = new BoundedMap<string, true>(MAX_WARNINGS);
  /** The run each Instance last finished (`plan/uid`), to recognise a stale cached copy. */
  readonly finished = new BoundedMap<string, string>(MAX_REMEMBERED);
  /**
   * Inventory entries of objects applied whose record no status write carried yet (the
   * closing write failed, e.g. a conflict): the next session of the Instance writes them.
   * An Instance forgotten here is no longer `accounted`: its entries are lost to memory, only
   * a look can find their objects again.
   */
  readonly unwritten = new BoundedMap<string, readonly InventoryEntry[]>(MAX_REMEMBERED, (key) =>
    this.accounted.delete(key),
  );
  /**
   * Instances (key → metadata.uid) of which this term knows every applied object is recorded
   * or in `unwritten`: it saw their scheduled run finished, or looked for unrecorded objects
   * itself. A new run of such an Instance needs no look (unrecorded.ts).
   */
  readonly accounted = new BoundedMap<string, string>(MAX_REMEMBERED);

  constructor(waits: WaitBackoffOptions) {
    this.waits = new WaitBackoff(waits);
  }

  /** Everything about one Instance (it is gone, or no longer ours). */
  forget(key: string): void {
    this.waits.forget(key);
    this.finished.delete(key);
    this.unwritten.delete(key);
    this.accounted.delete(key);
  }
}
