/**
 * Leader election on a coordination.k8s.io/v1 Lease, following client-go's rules:
 * optimistic concurrency on resourceVersion; expiry judged by the LOCAL time at which this
 * process last saw the record change (never by timestamps other machines wrote); the leader
 * must renew within `renewDeadlineMs` or it steps down; a graceful release writes an empty
 * holder with a 1 s duration so a successor takes over at its next retry.
 *
 * Leadership comes in terms: each successful {@link LeaderElector.acquire} starts one, whose
 * {@link LeaderElector.lost} signal aborts when renewal fails. After a lost term the elector
 * can simply acquire again (the process rejoins the election instead of exiting); since a
 * leader steps down at the renew deadline, before its lease can expire for anyone else, two
 * terms never overlap.
 *
 * See examples/api/runtime.ts.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { ApiError, deadlineSignal, type KubeClient } from '../kube/index.ts';
import { LeaderElectionLostError, RuntimeConfigError } from './errors.ts';
import type { RuntimeMetrics } from './metrics.ts';
import { sleep } from './time.ts';
import { namespacedName } from '../kube/index.ts';
import type { OwnerReferencesOf } from './sharding/lease-owner.ts';

export interface LeaderElectionOptions {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly name: string;
  readonly logger: Logger;
  /** Default `hostname_<random>`. */
  readonly identity?: string;
  /** Default 15 s. */
  readonly leaseDurationMs?: number;
  /** Default 10 s. */
  readonly renewDeadlineMs?: number;
  /** Default 2 s. */
  readonly retryPeriodMs?: number;
  readonly metrics?: RuntimeMetrics;
  /** Labels of the Lease when this elector creates it (a shard ring finds its members by them). */
  readonly labels?: Readonly<Record<string, string>>;
  /** Owner references of the Lease when this elector creates it (sharding/lease-owner.ts). */
  readonly ownerReferences?: OwnerReferencesOf;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec?: LeaseSpec;
}

const JITTER = 1.2;

/** Kubernetes MicroTime: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Another writer's win (409 Conflict) as undefined; any other error as it is. */
function conflictAsUndefined(e: unknown): undefined {
  if (e instanceof ApiError && e.statusCode === 409) return undefined;
  throw e;
}

export class LeaderElector {
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  private readonly path: string;
  private readonly log: Logger;
  private observed: string | undefined;
  private observedAt = 0;
  private lastLease: Lease | undefined;
  private leader = false;
  /** The current (or last) term: aborted when it is lost. */
  private lostController = new AbortController();
  /** Stops the current term's renew loop (release, or a new term). */
  private renewStop = new AbortController();
  private renewing: Promise<void> | undefined;

  constructor(private readonly options: LeaderElectionOptions) {
    this.identity = options.identity ?? `${hostname()}_${randomBytes(4).toString('hex')}`;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (!(this.leaseDurationMs > this.renewDeadlineMs)) {
      throw new RuntimeConfigError(
        `lease duration (${this.leaseDurationMs} ms) must be greater than the renew deadline (${this.renewDeadlineMs} ms)`,
        'leaderElection.leaseDurationMs',
      );
    }
    if (!(this.renewDeadlineMs > JITTER * this.retryPeriodMs)) {
      throw new RuntimeConfigError(
        `renew deadline (${this.renewDeadlineMs} ms) must be greater than 1.2 × retry period (${this.retryPeriodMs} ms)`,
        'leaderElection.renewDeadlineMs',
      );
    }
    if (!options.namespace || !options.name) {
      throw new RuntimeConfigError(
        'lease namespace and name are required',
        'leaderElection.namespace/name',
      );
    }
    this.path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(options.namespace)}/leases/${encodeURIComponent(options.name)}`;
    this.log = options.logger.child({
      lease: namespacedName(options),
      identity: this.identity,
    });
    options.metrics?.leaderStatus.set({ name: options.name }, 0);
  }

  get isLeader(): boolean {
    return this.leader;
  }

  /**
   * The current term's signal: aborts (reason: {@link LeaderElectionLostError}) when this
   * term of leadership is lost. Read it after `acquire` resolved true.
   */
  get lost(): AbortSignal {
    return this.lostController.signal;
  }

  /**
   * Tries every retry period (jittered) until this process holds the lease, then keeps
   * renewing in the background. Resolves true when leader, false when `signal` aborted first.
   */
  async acquire(signal: AbortSignal): Promise<boolean> {
    if (this.leader) return true;
    // A previous term's renew loop has ended (it aborted `lost` on its way out).
    await this.renewing;
    this.log.info('waiting for leadership');
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew(signal).catch((err: unknown) => this.failed(err))) {
        this.becomeLeader();
        return true;
      }
      await sleep(this.retryPeriodMs * (1 + (JITTER - 1) * Math.random()), signal);
    }
    return false;
  }

  /** Stops renewing and, if still leader, hands the lease back (empty holder, 1 s). */
  async release(): Promise<void> {
    this.renewStop.abort();
    await this.renewing;
    if (!this.leader) return;
    this.setLeader(false);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        // After a conflict, read again: the record may have moved under us.
        const lease =
          attempt === 0 && this.lastLease
            ? this.lastLease
            : await this.options.client.request<Lease>({
                path: this.path,
                timeoutMs: this.renewDeadlineMs,
              });
        if (lease.spec?.holderIdentity !== this.identity) return; // not ours any more
        const now = microTime(Date.now());
        await this.options.client.request<Lease>({
          method: 'PUT',
          path: this.path,
          timeoutMs: this.renewDeadlineMs,
          body: {
            ...lease,
            spec: {
              ...lease.spec,
              holderIdentity: '',
              leaseDurationSeconds: 1,
              renewTime: now,
              acquireTime: now,
            },
          },
        });
        this.log.info('released leadership');
        return;
      } catch (err) {
        if (err instanceof ApiError && err.statusCode === 409 && attempt === 0) continue;
        this.log.warn(
          { err },
          'could not release the lease; a successor takes over after it expires',
        );
        return;
      }
    }
  }

  private becomeLeader(): void {
    this.lostController = new AbortController();
    this.renewStop = new AbortController();
    this.setLeader(true);
    this.log.info('became leader');
    this.renewing = this.renewLoop(this.renewStop.signal, this.lostController);
  }

  private setLeader(value: boolean): void {
    this.leader = value;
    this.options.metrics?.leaderStatus.set({ name: this.options.name }, value ? 1 : 0);
  }

  private async renewLoop(stop: AbortSignal, lost: AbortController): Promise<void> {
    let lastRenew = Date.now();
    while (!stop.aborted) {
      await sleep(this.retryPeriodMs, stop);
      if (stop.aborted) return;
      const remaining = this.renewDeadlineMs - (Date.now() - lastRenew);
      let ok = false;
      if (remaining > 0) {
        const deadline = deadlineSignal(remaining, stop);
        ok = await this.tryAcquireOrRenew(deadline.signal)
          .catch((err: unknown) => this.failed(err))
          .finally(() => deadline.clear());
      }
      if (stop.aborted) return;
      if (ok) {
        lastRenew = Date.now();
        continue;
      }
      if (Date.now() - lastRenew >= this.renewDeadlineMs || remaining <= 0) {
        this.setLeader(false);
        const reason = new LeaderElectionLostError(
          namespacedName(this.options),
          this.identity,
          `could not renew within ${this.renewDeadlineMs} ms`,
        );
        this.log.error({ err: reason }, 'leadership lost');
        lost.abort(reason);
        return;
      }
    }
  }

  private failed(err: unknown): false {
    this.log.warn({ err }, 'lease request failed');
    return false;
  }

  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = Date.now();
    if (await this.renewFromLast(signal, now)) return true;
    let lease: Lease;
    try {
      lease = await this.options.client.request<Lease>({
        path: this.path,
        signal,
        timeoutMs: this.renewDeadlineMs,
      });
    } catch (err) {
      if (!(err instanceof ApiError && err.statusCode === 404)) throw err;
      return this.create(signal, now);
    }
    return this.takeOver(lease, signal, now);
  }

  /**
   * The leader renews optimistically from the record it wrote last (client-go does the
   * same): one PUT instead of GET + PUT. The resourceVersion guards it; a conflict means
   * someone else wrote the Lease (false), and the full read-then-write path decides.
   */
  private async renewFromLast(signal: AbortSignal, now: number): Promise<boolean> {
    const last = this.lastLease;
    if (!this.leader || last?.spec?.holderIdentity !== this.identity) return false;
    const renewed = await this.options.client
      .request<Lease>({
        method: 'PUT',
        path: this.path,
        signal,
        body: { ...last, spec: { ...last.spec, renewTime: microTime(now) } },
      })
      .catch((e: unknown) => {
        if (e instanceof ApiError && (e.statusCode === 409 || e.statusCode === 404))
          return undefined;
        throw e;
      });
    if (!renewed) return false;
    this.see(renewed, Date.now());
    return true;
  }

  /** Creates the Lease held by this elector; false when someone was faster (a 409). */
  private async create(signal: AbortSignal, now: number): Promise<boolean> {
    const owners = (await this.options.ownerReferences?.(signal)) ?? [];
    const created = await this.options.client
      .request<Lease>({
        method: 'POST',
        path: this.path.slice(0, this.path.lastIndexOf('/')),
        signal,
        body: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: {
            name: this.options.name,
            namespace: this.options.namespace,
            labels: this.options.labels,
            ownerReferences: owners,
          },
          spec: {
            holderIdentity: this.identity,
            leaseDurationSeconds: this.durationSeconds(),
            acquireTime: microTime(now),
            renewTime: microTime(now),
            leaseTransitions: 0,
          },
        },
      })
      .catch(conflictAsUndefined);
    return this.won(created);
  }

  /**
   * Takes the Lease read (or renews it, when it is ours) unless another holder's term is
   * still running; false when it is, or when another writer won the race (a 409).
   */
  private async takeOver(lease: Lease, signal: AbortSignal, now: number): Promise<boolean> {
    const spec = lease.spec ?? {};
    const durationSeconds = this.durationSeconds();
    // Expiry is judged by when WE saw the record change, immune to clock skew between machines.
    const record = JSON.stringify(spec);
    if (record !== this.observed) {
      this.observed = record;
      this.observedAt = now;
    }
    const holder = spec.holderIdentity ?? '';
    const heldByOther = holder !== '' && holder !== this.identity;
    const durationMs = (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
    if (heldByOther && this.observedAt + durationMs > now) return false;
    const mine = holder === this.identity;
    const updated = await this.options.client
      .request<Lease>({
        method: 'PUT',
        path: this.path,
        signal,
        body: {
          ...lease,
          spec: {
            holderIdentity: this.identity,
            leaseDurationSeconds: durationSeconds,
            acquireTime: mine && spec.acquireTime ? spec.acquireTime : microTime(now),
            renewTime: microTime(now),
            leaseTransitions: (spec.leaseTransitions ?? 0) + (mine ? 0 : 1),
          },
        },
      })
      .catch(conflictAsUndefined);
    return this.won(updated);
  }

  private durationSeconds(): number {
    return Math.ceil(this.leaseDurationMs / 1000);
  }

  /** The Lease a create or update wrote, or undefined when another writer won the race. */
  private won(lease: Lease | undefined): boolean {
    if (!lease) return false;
    this.see(lease, Date.now());
    return true;
  }

  private see(lease: Lease, at: number): void {
    this.lastLease = lease;
    this.observed = JSON.stringify(lease.spec ?? {});
    this.observedAt = at;
  }
}
