/**
 * The render pool's waiting jobs, fair between tenants (namespaces): one FIFO queue per
 * tenant, served round-robin, and a cap on the workers one tenant holds at once. A namespace
 * whose templates each run to their deadline can then hold at most `maxHeldPerTenant`
 * workers — with the pool's default, all but one — and when it has its turn again every other
 * namespace that waits has had one: a job of another tenant waits for at most one job of
 * each tenant ahead of it, never for the whole backlog of one.
 */

export interface FairQueueOptions {
  /** Workers one tenant may hold at once (at least 1). */
  readonly maxHeldPerTenant: number;
  /** Jobs one tenant may have waiting; beyond that {@link FairQueue.push} refuses. */
  readonly maxQueuedPerTenant: number;
}

interface Tenant<T> {
  readonly waiting: T[];
  /** Jobs of this tenant that workers run now. */
  held: number;
}

export class FairQueue<T> {
  /** Tenants with waiting or running jobs, in round-robin order (the next to serve first). */
  private readonly tenants = new Map<string, Tenant<T>>();
  private waitingCount = 0;

  constructor(private readonly options: FairQueueOptions) {
    if (!(options.maxHeldPerTenant >= 1) || !(options.maxQueuedPerTenant >= 1)) {
      throw new RangeError(
        `FairQueue: maxHeldPerTenant and maxQueuedPerTenant must be at least 1, got ${options.maxHeldPerTenant} and ${options.maxQueuedPerTenant}`,
      );
    }
  }

  /** Jobs waiting, all tenants together. */
  get size(): number {
    return this.waitingCount;
  }

  /** Jobs `tenant` has waiting. */
  waiting(tenant: string): number {
    return this.tenants.get(tenant)?.waiting.length ?? 0;
  }

  /** Adds a job at the end of its tenant's queue; false when that queue is full. */
  push(tenant: string, job: T): boolean {
    let entry = this.tenants.get(tenant);
    if (!entry) {
      entry = { waiting: [], held: 0 };
      this.tenants.set(tenant, entry);
    }
    if (entry.waiting.length >= this.options.maxQueuedPerTenant) return false;
    entry.waiting.push(job);
    this.waitingCount++;
    return true;
  }

  /**
   * The next job a free worker may take: the first waiting job of the first tenant in turn
   * that holds fewer than its cap. Its tenant then holds one more worker (until
   * {@link release}) and goes to the end of the turn.
   */
  take(): { readonly tenant: string; readonly job: T } | undefined {
    for (const [tenant, entry] of this.tenants) {
      if (entry.waiting.length === 0 || entry.held >= this.options.maxHeldPerTenant) continue;
      const job = entry.waiting.shift() as T;
      this.waitingCount--;
      entry.held++;
      // To the end of the turn: every other tenant that waits is served before its next job.
      this.tenants.delete(tenant);
      this.tenants.set(tenant, entry);
      return { tenant, job };
    }
    return undefined;
  }

  /** A job {@link take} handed out has ended: its tenant holds one worker less. */
  release(tenant: string): void {
    const entry = this.tenants.get(tenant);
    if (!entry || entry.held === 0) return;
    entry.held--;
    this.forgetIfDone(tenant, entry);
  }

  /** Jobs a free worker could take now (tenants under their cap). */
  get runnable(): number {
    let n = 0;
    for (const entry of this.tenants.values()) {
      n += Math.min(entry.waiting.length, this.options.maxHeldPerTenant - entry.held);
    }
    return n;
  }

  /** Takes `job` out of its queue before a worker took it; false if it was not waiting. */
  remove(tenant: string, job: T): boolean {
    const entry = this.tenants.get(tenant);
    const i = entry?.waiting.indexOf(job) ?? -1;
    if (!entry || i < 0) return false;
    entry.waiting.splice(i, 1);
    this.waitingCount--;
    this.forgetIfDone(tenant, entry);
    return true;
  }

  /** Every waiting job, in order of arrival per tenant; the queues are left empty. */
  drain(): T[] {
    const all: T[] = [];
    for (const [tenant, entry] of this.tenants) {
      all.push(...entry.waiting.splice(0));
      this.forgetIfDone(tenant, entry);
    }
    this.waitingCount = 0;
    return all;
  }

  private forgetIfDone(tenant: string, entry: Tenant<T>): void {
    if (entry.waiting.length === 0 && entry.held === 0) this.tenants.delete(tenant);
  }
}
