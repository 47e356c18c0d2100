/**
 * A controller whose objects are split into shards by a label: for each term of each shard
 * its replica runs (see {@link ShardSet}), one {@link Controller} whose primary cache lists and
 * watches only that shard's objects (`<label>=<shard>`), with a queue and a reconciler of its
 * own for the term. The controllers of all shards share one limit on reconciles in flight,
 * and the caches of the other kinds they watch (shared per kind by the registry).
 *
 * A graceful end of a shard's term (it moves to another replica) drains its controller: no
 * new key is taken, what runs finishes — so a shard changes hands only after the work in
 * flight recorded its outcome, and the next holder starts from what is recorded.
 */
import type { CacheView } from '../cache-registry.ts';
import type { Controller } from '../controller.ts';
import { objectKey, type KubeObject, type ObjectKey } from '../types.ts';
import type { ShardRunnable } from './types.ts';

export interface ShardedControllerOptions<T extends KubeObject> {
  readonly name: string;
  /** Label key whose value is an object's shard. */
  readonly shardLabel: string;
  /** Builds the controller of one shard term; its primary source reads `view`. */
  readonly build: (shard: string, view: CacheView) => Controller<T>;
  /** After a shard's term ended, with the keys it held: what is kept per object may go. */
  readonly onTermEnd?: (keys: readonly ObjectKey[]) => void;
}

export class ShardedController<T extends KubeObject> implements ShardRunnable {
  readonly name: string;
  private readonly running = new Map<string, Controller<T>>();

  constructor(private readonly options: ShardedControllerOptions<T>) {
    this.name = options.name;
  }

  /** The label selector of a shard's objects. */
  selector(shard: string): string {
    return `${this.options.shardLabel}=${shard}`;
  }

  async start(shard: string, signal: AbortSignal): Promise<void> {
    const controller = this.options.build(shard, { labelSelector: this.selector(shard) });
    this.running.set(shard, controller);
    try {
      await controller.start(signal);
    } finally {
      const keys = heldKeys(controller);
      if (this.running.get(shard) === controller) this.running.delete(shard);
      controller.release();
      this.options.onTermEnd?.(keys);
    }
  }

  /** Wakes `key` in the shard that holds it (nowhere when no running shard does). */
  enqueue(key: ObjectKey): void {
    for (const controller of this.running.values()) {
      if (primaryHas(controller, key)) {
        controller.enqueue(key);
        return;
      }
    }
  }

  /** The shards running here and how many objects each holds (metrics). */
  objects(): Map<string, number> {
    return new Map([...this.running].map(([shard, c]) => [shard, primarySize(c)]));
  }
}

function primaryHas<T extends KubeObject>(controller: Controller<T>, key: ObjectKey): boolean {
  try {
    return controller.primary.get(key) !== undefined;
  } catch {
    return false; // caches not acquired yet
  }
}

function primarySize<T extends KubeObject>(controller: Controller<T>): number {
  try {
    return controller.primary.size;
  } catch {
    return 0;
  }
}

function heldKeys<T extends KubeObject>(controller: Controller<T>): ObjectKey[] {
  try {
    return controller.primary.list().map(objectKey);
  } catch {
    return [];
  }
}
