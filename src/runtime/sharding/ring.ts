/**
 * A shard ring: S shards shared out over the live replicas of one installation through
 * Leases in its namespace, with no coordinator. Each replica
 * * holds a member Lease of its own (renewed every retry period; a term of membership ends
 *   when it cannot renew within the renew deadline, and the next term has a new identity);
 * * computes, from the Leases it sees, which live member should run which shard
 *   ({@link assignShards}: balanced, sticky, the same on every replica);
 * * takes a shard it should run when the shard's Lease is free — released, or naming a member
 *   whose Lease it read afresh and found gone or unchanged for a lease duration — by
 *   compare-and-swap, and then runs a term of the shard (every registered
 *   {@link ShardRunnable});
 * * hands a shard it should no longer run to the member that should: ends the term
 *   gracefully (the runnables drain: what runs finishes and is recorded) and only then
 *   writes the new holder into the shard's Lease.
 *
 * Why two never run one shard: a member runs a shard only while its own member term lasts,
 * and a term ends (every shard stops at once) when the member cannot renew within the renew
 * deadline; another member takes the shard over only after the holder's Lease stayed
 * unchanged for the (longer) lease duration. A member that lost its term comes back under a
 * new identity, so no shard Lease written for its old one is ever taken for its own.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { KubeClient } from '../../kube/index.ts';
import { LeaderElectionLostError, RuntimeConfigError } from '../errors.ts';
import { LeaderElector } from '../leaderelection.ts';
import type { RuntimeMetrics } from '../metrics.ts';
import { assignShards } from './assignment.ts';
import { LeaseOwner, type OwnerReferencesOf } from './lease-owner.ts';
import { shardNames } from './rendezvous.ts';
import { ROLE_MEMBER, RingLeases } from './ring-leases.ts';
import { ShardTerms } from './terms.ts';
import { ShardHandoffError, type ShardRunnable, type ShardSet } from './types.ts';

export const DEFAULT_RING_LABEL = 'planwright.dev/shard-ring';

export interface ShardRingOptions {
  readonly client: KubeClient;
  /** Where the ring's Leases live (the installation's namespace). */
  readonly namespace: string;
  /** The ring's name: its Leases are `<name>-member-<identity>` and `<name>-shard-<k>`. */
  readonly name: string;
  readonly shards: number;
  readonly logger: Logger;
  /** Start of each member identity (a random suffix is added per term). Default: the host name. */
  readonly identity?: string;
  /** Default 15 s. */
  readonly leaseDurationMs?: number;
  /** Default 10 s. */
  readonly renewDeadlineMs?: number;
  /** Default 2 s. */
  readonly retryPeriodMs?: number;
  /** Label key naming the ring on its Leases. Default {@link DEFAULT_RING_LABEL}. */
  readonly labelKey?: string;
  /**
   * A Lease of this namespace that owns the ring's Leases (the installation's leader Lease):
   * deleting it deletes them (lease-owner.ts).
   */
  readonly ownerLease?: string;
  readonly metrics?: RuntimeMetrics;
  /** A shard runnable failed: an unrecoverable error of the process. */
  readonly onFailure?: (runnable: string, error: unknown) => void;
}

interface Timings {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** A member identity: a DNS label made of the host name (a pod's name) and a random suffix. */
export function memberIdentity(base: string): string {
  const clean = base
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${clean || 'replica'}-${randomBytes(3).toString('hex')}`;
}

export class ShardRing implements ShardSet {
  readonly shards: readonly string[];
  private readonly timings: Timings;
  private readonly leases: RingLeases;
  private readonly ownerReferences: OwnerReferencesOf | undefined;
  private readonly terms: ShardTerms;
  private readonly listeners = new Set<() => void>();
  private readonly log: Logger;
  /** Shards being handed over (their term ended, the Lease not yet written). */
  private readonly leaving = new Set<string>();
  private me: string | undefined;
  private wake: (() => void) | undefined;
  private kicked = false;

  constructor(private readonly options: ShardRingOptions) {
    if (!Number.isInteger(options.shards) || options.shards < 1) {
      throw new RuntimeConfigError(
        `must be a whole number of at least 1, got ${options.shards}`,
        'sharding.shards',
      );
    }
    this.shards = shardNames(options.shards);
    this.timings = {
      leaseDurationMs: options.leaseDurationMs ?? 15_000,
      renewDeadlineMs: options.renewDeadlineMs ?? 10_000,
      retryPeriodMs: options.retryPeriodMs ?? 2_000,
    };
    this.log = options.logger.child({ ring: options.name });
    const owner = options.ownerLease
      ? new LeaseOwner(options.client, options.namespace, options.ownerLease)
      : undefined;
    this.ownerReferences = owner ? (signal) => owner.references(signal) : undefined;
    this.leases = new RingLeases({
      client: options.client,
      namespace: options.namespace,
      ring: options.name,
      labelKey: options.labelKey ?? DEFAULT_RING_LABEL,
      logger: this.log,
      leaseDurationMs: this.timings.leaseDurationMs,
      onChange: () => this.changed(),
      ownerReferences: this.ownerReferences,
    });
    this.terms = new ShardTerms({
      logger: this.log,
      onEnd: () => this.changed(),
      onFailure: options.onFailure,
      owned:
        options.metrics &&
        ((shard, on) => options.metrics?.shardOwned.set({ ring: options.name, shard }, on ? 1 : 0)),
    });
  }

  /** Registers work to run for each term of each shard; before `run`. */
  register(runnable: ShardRunnable): void {
    this.terms.register(runnable);
  }

  get hasRunnables(): boolean {
    return this.terms.hasRunnables;
  }

  /** This replica's identity in the current member term. */
  get identity(): string | undefined {
    return this.me;
  }

  runs(shard: string): boolean {
    return this.terms.runs(shard);
  }

  isHeld(shard: string): boolean {
    if (this.runs(shard)) return true;
    const holder = this.leases.shard(shard)?.object.spec?.holderIdentity ?? '';
    if (holder === '') return false;
    return holder === this.me || this.leases.liveMembers(Date.now()).includes(holder);
  }

  /** The live members this replica sees (its own identity included while it is a member). */
  members(): string[] {
    const live = new Set(this.leases.liveMembers(Date.now()));
    if (this.me) live.add(this.me);
    return [...live].sort();
  }

  /** The member the shard's Lease names (empty when free). */
  holderOf(shard: string): string {
    return this.leases.shard(shard)?.object.spec?.holderIdentity ?? '';
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * Takes part until `signal` aborts, then leaves gracefully: every shard drains and goes to
   * the member that should run it without this one, and the member Lease is deleted.
   */
  async run(signal: AbortSignal): Promise<void> {
    const watchStop = new AbortController();
    const watching = this.leases.run(watchStop.signal);
    try {
      while (!signal.aborted) {
        const identity = memberIdentity(this.options.identity ?? hostname());
        const elector = new LeaderElector({
          client: this.options.client,
          namespace: this.options.namespace,
          name: this.leases.memberLeaseName(identity),
          identity,
          labels: this.leases.labels(ROLE_MEMBER),
          ownerReferences: this.ownerReferences,
          logger: this.log.child({ member: identity }),
          ...this.timings,
        });
        if (!(await elector.acquire(signal))) break;
        this.me = identity;
        this.log.info({ member: identity, shards: this.shards.length }, 'joined the shard ring');
        this.changed();
        await this.serve(AbortSignal.any([signal, elector.lost]));
        if (signal.aborted) {
          await this.leave(elector);
          break;
        }
        // The member term is lost: stop every shard at once, come back as someone new.
        this.log.error(
          { err: elector.lost.reason as unknown },
          'shard ring membership lost; every shard stopped, rejoining under a new identity',
        );
        await this.terms.stopAll(elector.lost.reason);
        this.me = undefined;
        this.changed();
      }
    } finally {
      this.me = undefined;
      watchStop.abort();
      await watching;
      this.changed();
    }
  }

  private async serve(term: AbortSignal): Promise<void> {
    while (!term.aborted) {
      if (this.leases.isSynced) {
        await this.reconcile(term).catch((err: unknown) => {
          if (!term.aborted) this.log.warn({ err }, 'shard ring: a Lease request failed; retrying');
        });
      }
      await this.nextWake(term);
    }
  }

  /** One look at the Leases: take, keep, hand over or stop shards as the assignment says. */
  private async reconcile(term: AbortSignal): Promise<void> {
    const me = this.me;
    if (!me) return;
    const now = Date.now();
    const live = new Set([...this.leases.liveMembers(now), me]);
    const holders = new Map<string, string>();
    for (const shard of this.shards) {
      const holder = this.holderOf(shard);
      if (live.has(holder)) holders.set(shard, holder);
    }
    const desired = assignShards({ shards: this.shards, members: [...live], holders });
    // A dead member's shards are taken over by the members that can judge it dead: one that
    // joined less than a lease duration ago has not watched its Lease long enough, and if
    // the shard waited for it, the takeover would wait a second lease duration. It gets the
    // shard by a handoff afterwards, as the assignment above says.
    const judges = [...live].filter((m) => m === me || !this.leases.joinedRecently(m, now));
    const takeover =
      judges.length === live.size
        ? desired
        : assignShards({ shards: this.shards, members: judges, holders });
    this.options.metrics?.shardMembers.set({ ring: this.options.name }, live.size);
    for (const shard of this.shards) {
      await this.reconcileShard(shard, {
        me,
        live,
        want: desired.get(shard),
        takeover: takeover.get(shard),
        now,
        term,
      });
    }
    for (const stale of this.leases.staleMembers(now, 2 * this.timings.leaseDurationMs)) {
      if (stale.spec?.holderIdentity !== me) await this.leases.remove(stale, term);
    }
  }

  private async reconcileShard(
    shard: string,
    at: {
      readonly me: string;
      readonly live: ReadonlySet<string>;
      readonly want: string | undefined;
      /** Who takes the shard over when its holder is a dead member. */
      readonly takeover: string | undefined;
      readonly now: number;
      readonly term: AbortSignal;
    },
  ): Promise<void> {
    const seen = this.leases.shard(shard);
    const holder = seen?.object.spec?.holderIdentity ?? '';
    if (this.leaving.has(shard)) return;
    if (holder === at.me) {
      if (!this.terms.has(shard)) this.terms.start(shard);
      else if (
        at.want !== undefined &&
        at.want !== at.me &&
        this.terms.heldFor(shard, at.now) >= this.timings.retryPeriodMs
      ) {
        void this.handOff(shard, at.want);
      }
      return;
    }
    if (this.terms.runs(shard)) {
      // Someone else's name is in the Lease of a shard we run: we cannot prove we own it.
      void this.terms.stop(
        shard,
        new LeaderElectionLostError(
          this.leases.shardLeaseName(shard),
          at.me,
          `the Lease now names ${holder || 'nobody'}`,
        ),
      );
      return;
    }
    if (this.terms.has(shard)) return;
    if (holder !== '' && at.live.has(holder)) return; // its holder hands it over
    if ((holder === '' ? at.want : at.takeover) !== at.me) return;
    if (holder !== '' && !(await this.leases.memberDead(holder, at.now, at.term))) return;
    const durationSeconds = Math.ceil(this.timings.leaseDurationMs / 1000);
    if (await this.leases.writeShard(shard, seen?.object, at.me, durationSeconds, at.term)) {
      this.log.info({ shard, from: holder || undefined }, 'took shard');
      this.options.metrics?.shardTransitions.inc({
        ring: this.options.name,
        reason: holder === '' ? 'acquired' : 'takeover',
      });
      this.terms.start(shard);
    }
  }

  /** Drains the shard's term, then names `to` in its Lease. */
  private async handOff(shard: string, to: string): Promise<void> {
    this.leaving.add(shard);
    try {
      await this.terms.stop(shard, new ShardHandoffError(shard, to, `moves to member ${to}`));
      await this.writeHolder(shard, to);
      this.log.info({ shard, to }, 'handed shard over');
      this.options.metrics?.shardTransitions.inc({ ring: this.options.name, reason: 'handoff' });
    } catch (err) {
      this.log.warn({ err, shard, to }, 'could not hand the shard over; it expires instead');
    } finally {
      this.leaving.delete(shard);
      this.kick();
    }
  }

  /** Writes `to` as the holder while the Lease still names this member (a few tries). */
  private async writeHolder(shard: string, to: string): Promise<void> {
    const durationSeconds = Math.ceil(this.timings.leaseDurationMs / 1000);
    for (let attempt = 0; attempt < 3; attempt++) {
      const seen = this.leases.shard(shard)?.object;
      if (!seen || seen.spec?.holderIdentity !== this.me) return;
      const signal = AbortSignal.timeout(this.timings.renewDeadlineMs);
      if (await this.leases.writeShard(shard, seen, to, durationSeconds, signal)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * Graceful end of membership: drain every shard, step out of the membership (so that no
   * one hands this replica a shard any more), then name in each shard's Lease the member it
   * goes to without this one, and delete the member Lease.
   */
  private async leave(elector: LeaderElector): Promise<void> {
    const me = this.me;
    const held = this.shards.filter((s) => this.terms.has(s) || this.holderOf(s) === me);
    await this.terms.stopAll(new ShardHandoffError('*', undefined, 'this replica stops'));
    await elector.release();
    const others = this.leases.liveMembers(Date.now()).filter((m) => m !== me);
    const holders = new Map<string, string>();
    for (const shard of this.shards) {
      const holder = this.holderOf(shard);
      if (others.includes(holder)) holders.set(shard, holder);
    }
    const next = assignShards({ shards: this.shards, members: others, holders });
    await Promise.all(
      held.map((shard) =>
        this.writeHolder(shard, next.get(shard) ?? '').catch((err: unknown) =>
          this.log.warn({ err, shard }, 'could not hand the shard over; it expires instead'),
        ),
      ),
    );
    this.log.info({ shards: held.length, to: [...new Set(next.values())] }, 'left the shard ring');
    if (me) {
      await this.leases
        .removeByName(
          this.leases.memberLeaseName(me),
          AbortSignal.timeout(this.timings.renewDeadlineMs),
        )
        .catch((err: unknown) =>
          this.log.warn({ err }, 'could not delete the member Lease; the others collect it'),
        );
    }
  }

  private changed(): void {
    this.kick();
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (err) {
        this.log.error({ err }, 'shard ring listener threw');
      }
    }
  }

  private kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  /** Until something changed, a retry period passed, or `term` aborted. */
  private async nextWake(term: AbortSignal): Promise<void> {
    if (!this.kicked) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.timings.retryPeriodMs);
        term.addEventListener('abort', done, { once: true });
        this.wake = done;
        function done(): void {
          clearTimeout(timer);
          term.removeEventListener('abort', done);
          resolve();
        }
      });
    }
    this.wake = undefined;
    this.kicked = false;
  }
}
