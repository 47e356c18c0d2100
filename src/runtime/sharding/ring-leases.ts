/**
 * The Leases of one shard ring, as a replica sees them: a watch of the ring's namespace
 * (label-selected) keeps every member and shard Lease with the LOCAL time at which its record
 * last changed — liveness is judged by that time, as client-go's leader election judges a
 * Lease, never by timestamps other machines wrote. Writes are compare-and-swap on the
 * resourceVersion; a lost race is `false`, never an error.
 *
 * Two kinds of Lease, told apart by a label:
 * * member `<ring>-member-<identity>`: renewed by its replica every retry period (a
 *   {@link LeaderElector} of its own); live while its record keeps changing;
 * * shard `<ring>-shard-<k>`: names the member that runs shard k; written only when the shard
 *   changes hands, valid only while that member is live.
 */
import type { Logger } from 'pino';
import { ApiError, type KubeClient } from '../../kube/index.ts';
import { Watcher, type WatcherEvent } from '../watcher.ts';
import type { KubeObject } from '../types.ts';
import type { OwnerReferencesOf } from './lease-owner.ts';

export const ROLE_MEMBER = 'member';
export const ROLE_SHARD = 'shard';

export interface LeaseObject extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export interface SeenLease {
  readonly object: LeaseObject;
  /** Local time (ms) the record (spec) was last seen to change. */
  readonly changedAt: number;
  /** Local time (ms) this Lease was first seen: how long this replica has watched it. */
  readonly firstSeenAt: number;
}

export interface RingLeasesOptions {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly ring: string;
  /** Label key naming the ring; another, `<key>-role`, says member or shard. */
  readonly labelKey: string;
  readonly logger: Logger;
  readonly leaseDurationMs: number;
  readonly onChange: () => void;
  /** Owner references of the Leases this creates (lease-owner.ts). */
  readonly ownerReferences?: OwnerReferencesOf;
}

/** Kubernetes MicroTime: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class RingLeases {
  private readonly seen = new Map<string, SeenLease>();
  private readonly collection: string;
  private synced = false;

  constructor(private readonly options: RingLeasesOptions) {
    this.collection = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(options.namespace)}/leases`;
  }

  get roleKey(): string {
    return `${this.options.labelKey}-role`;
  }

  /** Labels of a Lease of this ring in `role`. */
  labels(role: string): Record<string, string> {
    return { [this.options.labelKey]: this.options.ring, [this.roleKey]: role };
  }

  memberLeaseName(identity: string): string {
    return `${this.options.ring}-member-${identity}`;
  }

  shardLeaseName(shard: string): string {
    return `${this.options.ring}-shard-${shard}`;
  }

  get isSynced(): boolean {
    return this.synced;
  }

  /** Watches until `signal` aborts (never rejects). */
  run(signal: AbortSignal): Promise<void> {
    const watcher = new Watcher<LeaseObject>({
      client: this.options.client,
      path: this.collection,
      labelSelector: `${this.options.labelKey}=${this.options.ring}`,
      logger: this.options.logger,
      onEvent: (event) => this.apply(event),
    });
    return watcher.run(signal);
  }

  /** The shard Lease of `shard` as last seen. */
  shard(shard: string): SeenLease | undefined {
    return this.seen.get(this.shardLeaseName(shard));
  }

  /** Deletes a Lease by name, whatever its version (this replica's own member Lease). */
  async removeByName(name: string, signal: AbortSignal): Promise<void> {
    await this.options.client
      .request({
        method: 'DELETE',
        path: `${this.collection}/${encodeURIComponent(name)}`,
        signal,
      })
      .catch((err: unknown) => {
        if (!(err instanceof ApiError && err.statusCode === 404)) throw err;
      });
    this.seen.delete(name);
  }

  /**
   * Identities of the members whose Lease changed within the lease duration. A member Lease
   * held by anyone but the member it is named after counts for nobody: its member lost it.
   */
  liveMembers(now: number): string[] {
    const out: string[] = [];
    for (const lease of this.seen.values()) {
      if (this.role(lease.object) !== ROLE_MEMBER) continue;
      const holder = lease.object.spec?.holderIdentity ?? '';
      if (holder === '' || lease.object.metadata?.name !== this.memberLeaseName(holder)) continue;
      if (lease.changedAt + this.options.leaseDurationMs > now) out.push(holder);
    }
    return out;
  }

  /**
   * Whether `identity` became a member less than a lease duration ago, as this replica saw it.
   * Such a member cannot yet tell a silent member from a dead one: it has not watched any
   * Lease for a lease duration (see {@link memberDead}).
   */
  joinedRecently(identity: string, now: number): boolean {
    const seen = this.seen.get(this.memberLeaseName(identity));
    return seen === undefined || seen.firstSeenAt + this.options.leaseDurationMs > now;
  }

  /** Member Leases not seen changing for `ms` (dead for that long): garbage to delete. */
  staleMembers(now: number, ms: number): LeaseObject[] {
    return [...this.seen.values()]
      .filter((l) => this.role(l.object) === ROLE_MEMBER && l.changedAt + ms < now)
      .map((l) => l.object);
  }

  /**
   * Whether `identity`'s member Lease is dead, read afresh (a stalled watch must not make a
   * live member look dead): gone, held by anyone else (emptied on leaving, or taken), or
   * unchanged since it was seen for a lease duration.
   */
  async memberDead(identity: string, now: number, signal: AbortSignal): Promise<boolean> {
    const name = this.memberLeaseName(identity);
    let fresh: LeaseObject;
    try {
      fresh = await this.options.client.request<LeaseObject>({
        path: `${this.collection}/${encodeURIComponent(name)}`,
        signal,
      });
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) return true;
      throw err;
    }
    if ((fresh.spec?.holderIdentity ?? '') !== identity) return true;
    const before = this.seen.get(name);
    const unchanged = before !== undefined && record(before.object) === record(fresh);
    this.remember(fresh, now);
    return unchanged && (before?.changedAt ?? now) + this.options.leaseDurationMs <= now;
  }

  /**
   * Makes `holder` the holder of shard `shard`'s Lease, if it is still as `expected` (its
   * resourceVersion; undefined: it must not exist yet). False when someone wrote it first.
   */
  async writeShard(
    shard: string,
    expected: LeaseObject | undefined,
    holder: string,
    durationSeconds: number,
    signal: AbortSignal,
  ): Promise<boolean> {
    const now = microTime(Date.now());
    const name = this.shardLeaseName(shard);
    const spec = {
      holderIdentity: holder,
      leaseDurationSeconds: durationSeconds,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: (expected?.spec?.leaseTransitions ?? -1) + 1,
    };
    const owners = expected ? [] : ((await this.options.ownerReferences?.(signal)) ?? []);
    try {
      const written = await this.options.client.request<LeaseObject>(
        expected
          ? {
              method: 'PUT',
              path: `${this.collection}/${encodeURIComponent(name)}`,
              body: { ...expected, spec },
              signal,
            }
          : {
              method: 'POST',
              path: this.collection,
              body: {
                apiVersion: 'coordination.k8s.io/v1',
                kind: 'Lease',
                metadata: {
                  name,
                  namespace: this.options.namespace,
                  labels: this.labels(ROLE_SHARD),
                  ownerReferences: owners,
                },
                spec,
              },
              signal,
            },
      );
      this.remember(written, Date.now());
      return true;
    } catch (err) {
      if (err instanceof ApiError && (err.statusCode === 409 || err.statusCode === 404)) {
        return false;
      }
      throw err;
    }
  }

  /** Deletes a Lease if it is still the version given (best effort). */
  async remove(lease: LeaseObject, signal: AbortSignal): Promise<void> {
    const name = lease.metadata?.name ?? '';
    await this.options.client
      .request({
        method: 'DELETE',
        path: `${this.collection}/${encodeURIComponent(name)}`,
        body: { preconditions: { resourceVersion: lease.metadata?.resourceVersion } },
        signal,
      })
      .catch((err: unknown) => {
        if (err instanceof ApiError && (err.statusCode === 404 || err.statusCode === 409)) return;
        throw err;
      });
    if (this.seen.get(name)?.object === lease) this.seen.delete(name);
  }

  private role(lease: LeaseObject): string | undefined {
    return lease.metadata?.labels?.[this.roleKey];
  }

  private apply(event: WatcherEvent<LeaseObject>): void {
    const now = Date.now();
    switch (event.type) {
      case 'relisted': {
        const names = new Set(event.items.map((l) => l.metadata?.name ?? ''));
        for (const name of this.seen.keys()) if (!names.has(name)) this.seen.delete(name);
        for (const item of event.items) this.remember(item, now);
        this.synced = true;
        break;
      }
      case 'upsert':
        this.remember(event.object, now);
        break;
      case 'delete':
        this.seen.delete(event.object.metadata?.name ?? '');
        break;
    }
    this.options.onChange();
  }

  /** Keeps the newer of what is known and `lease`, noting when its record changed. */
  private remember(lease: LeaseObject, now: number): void {
    const name = lease.metadata?.name ?? '';
    const before = this.seen.get(name);
    if (before && newer(before.object, lease)) return;
    const changed = !before || record(before.object) !== record(lease);
    this.seen.set(name, {
      object: lease,
      changedAt: changed ? now : before.changedAt,
      firstSeenAt: before?.firstSeenAt ?? now,
    });
  }
}

/** What a renewal changes: the spec, as text. */
function record(lease: LeaseObject): string {
  return JSON.stringify(lease.spec ?? {});
}

/**
 * Whether `a` is a later version than `b`. resourceVersions are opaque to clients in general;
 * here they only keep a write's own response from replacing a newer watch event of the same
 * Lease (etcd revisions, increasing), and an unreadable one counts as not newer.
 */
function newer(a: LeaseObject, b: LeaseObject): boolean {
  const ra = Number(a.metadata?.resourceVersion ?? 0);
  const rb = Number(b.metadata?.resourceVersion ?? 0);
  return Number.isFinite(ra) && Number.isFinite(rb) && ra > rb;
}
