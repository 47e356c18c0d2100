/**
 * The gate between serving webhooks and running controllers: a replica takes part in the
 * leader election and the shard ring only while the cluster's webhook registration names its
 * installation (registration.ts). Two installations — a `planwright start` on a laptop beside
 * the in-cluster Deployment, two Deployments in different namespaces — each have their own
 * Leases, which cannot keep them apart; the registration, one per cluster, can.
 *
 * * At start, a registration naming another installation is said once (to the terminal and
 *   the log), and the replica serves webhooks only until the registration names it.
 * * While admitted, the registration is followed (a watch; read every retry period where the
 *   role may not watch it): when it names another installation, or cannot be followed for the
 *   renew deadline, admission ends (the controllers drain and the shards are let go).
 * * When admitted, the replica first waits one lease duration, re-reading meanwhile — by then
 *   an installation that lost the registration has stopped — unless this very process wrote
 *   the registration (`--install`, which refuses to replace one that answers).
 *
 * No registration at all (nothing calls any webhook) or one this replica may not read admits
 * at once: there is nothing to tell two installations apart by, so no other installation
 * would wind down during a wait (it reads the same absence as its own); the log says so once.
 * The registration is still followed, and one that names another installation ends admission.
 */
import type { Logger } from 'pino';
import { ApiError, type KubeClient } from '../kube/index.ts';
import { sleep, type ParticipationGate } from '../runtime/index.ts';
import {
  describeRegistration,
  followRegistration,
  readRegistration,
  registeredTo,
  REGISTRATION_NAME,
  type Installation,
  type Registration,
} from './registration.ts';
import type { LeaseTimings } from './start-flags.ts';

/** A followed registration with no byte for this long is watched anew (bookmarks: every minute). */
const WATCH_INACTIVITY_MS = 3 * 60_000;

export interface RegistrationGateOptions {
  readonly client: KubeClient;
  readonly logger: Logger;
  /** This installation (whom its registration calls is known once the server listens). */
  readonly self: () => Promise<Installation | undefined>;
  /** A line for the person who started the process (stderr). */
  readonly report: (line: string) => void;
  /**
   * The Lease's timings: admitted, the replica waits a lease duration; it reads again every
   * retry period; admission ends when the registration could not be read a renew deadline.
   */
  readonly lease: LeaseTimings;
  /** This process wrote the registration (`start --install`): nobody else winds down. */
  readonly registeredHere: boolean;
}

type Verdict =
  | { readonly kind: 'mine' }
  /** No registration, or one this replica may not read: nothing to wait for. */
  | { readonly kind: 'unguarded' }
  | { readonly kind: 'other'; readonly found: Extract<Registration, { state: 'present' }> }
  | { readonly kind: 'unknown'; readonly error: unknown };

export class RegistrationGate implements ParticipationGate {
  private settled: boolean;
  private reportedOther: string | undefined;
  private warnedUnreadable = false;

  constructor(private readonly options: RegistrationGateOptions) {
    this.settled = options.registeredHere;
  }

  async admit(signal: AbortSignal): Promise<AbortSignal | undefined> {
    const self = await this.options.self().catch(() => undefined);
    if (!self || signal.aborted) return undefined;
    let openSince: number | undefined;
    while (!signal.aborted) {
      const verdict = await this.check(self, signal);
      if (verdict.kind === 'other') {
        this.reportOther(verdict.found);
        openSince = undefined;
        this.settled = false;
      } else if (verdict.kind === 'mine' || verdict.kind === 'unguarded') {
        openSince ??= Date.now();
        const wait =
          this.settled || verdict.kind === 'unguarded'
            ? 0
            : this.options.lease.leaseDurationMs - (Date.now() - openSince);
        if (wait <= 0) {
          this.settled = true;
          if (this.reportedOther) {
            this.options.report(
              `The webhook registration ${REGISTRATION_NAME} names this installation now: running controllers.`,
            );
            this.reportedOther = undefined;
          }
          return this.watch(self, signal);
        }
        this.options.logger.info(
          { waitMs: wait },
          'webhook registration names this installation; waiting a lease duration before running controllers',
        );
        await sleep(Math.min(wait, this.options.lease.retryPeriodMs), signal);
        continue;
      }
      await sleep(this.options.lease.retryPeriodMs, signal);
    }
    return undefined;
  }

  /**
   * Follows the registration while admitted (a watch: one LIST and WATCH every few minutes,
   * not a read every retry period; polled instead where the role may only read it); the signal
   * aborts when admission ends.
   */
  private watch(self: Installation, signal: AbortSignal): AbortSignal {
    const revoke = new AbortController();
    const end = (): void => {
      this.settled = false;
      revoke.abort(new Error('this replica is no longer admitted to run controllers'));
    };
    const following = AbortSignal.any([signal, revoke.signal]);
    void (async () => {
      let failingSince: number | undefined;
      while (!following.aborted) {
        try {
          await followRegistration({
            client: this.options.client,
            signal: following,
            timeoutMs: this.options.lease.renewDeadlineMs,
            inactivityMs: WATCH_INACTIVITY_MS,
            onChange: (found) => {
              failingSince = undefined;
              const verdict = this.verdictOf(found, self);
              if (verdict.kind === 'other') {
                this.reportOther(verdict.found);
                end();
              }
            },
          });
        } catch (err) {
          if (following.aborted) return;
          if (err instanceof ApiError && err.statusCode === 403) {
            await this.poll(self, following, end);
            return;
          }
          failingSince ??= Date.now();
          if (Date.now() - failingSince >= this.options.lease.renewDeadlineMs) {
            this.options.logger.error(
              { err },
              `could not follow the webhook registration for ${this.options.lease.renewDeadlineMs} ms; controllers stop until it can be read`,
            );
            end();
            return;
          }
          await sleep(this.options.lease.retryPeriodMs, following);
        }
      }
    })();
    return revoke.signal;
  }

  /** Reads the registration every retry period (a role that may not list or watch it). */
  private async poll(self: Installation, signal: AbortSignal, end: () => void): Promise<void> {
    let confirmed = Date.now();
    while (!signal.aborted) {
      await sleep(this.options.lease.retryPeriodMs, signal);
      if (signal.aborted) return;
      const verdict = await this.check(self, signal);
      if (verdict.kind === 'mine' || verdict.kind === 'unguarded') {
        confirmed = Date.now();
        continue;
      }
      if (verdict.kind === 'other') {
        this.reportOther(verdict.found);
      } else if (Date.now() - confirmed < this.options.lease.renewDeadlineMs) {
        continue;
      } else {
        this.options.logger.error(
          { err: verdict.error },
          `could not read the webhook registration for ${this.options.lease.renewDeadlineMs} ms; controllers stop until it can be read`,
        );
      }
      end();
      return;
    }
  }

  private async check(self: Installation, signal: AbortSignal): Promise<Verdict> {
    try {
      const found = await readRegistration(
        this.options.client,
        signal,
        this.options.lease.renewDeadlineMs,
      );
      return this.verdictOf(found, self);
    } catch (error) {
      return { kind: 'unknown', error };
    }
  }

  /** Whether a registration read admits this installation. */
  private verdictOf(found: Registration, self: Installation): Verdict {
    if (found.state === 'present') {
      return registeredTo(found, self) ? { kind: 'mine' } : { kind: 'other', found };
    }
    if (!this.warnedUnreadable) {
      this.warnedUnreadable = true;
      this.options.logger.warn(
        { registration: REGISTRATION_NAME, found: found.state },
        found.state === 'absent'
          ? 'no webhook registration: running controllers (nothing tells installations apart)'
          : 'cannot read the webhook registration (RBAC): running controllers without the check',
      );
    }
    return { kind: 'unguarded' };
  }

  private reportOther(found: Extract<Registration, { state: 'present' }>): void {
    const described = describeRegistration(found);
    if (this.reportedOther === described) return;
    this.reportedOther = described;
    const line =
      `Another Planwright installation runs this cluster's Instances: the webhook registration ` +
      `${REGISTRATION_NAME} belongs to ${described}. This process serves webhooks only and ` +
      'reconciles nothing while that is so (two installations would reconcile the same ' +
      'Instances). To move the Instances here, stop or uninstall that one and register this ' +
      'one (planwright init, or planwright start --install).';
    this.options.report(line);
    this.options.logger.warn({ registration: REGISTRATION_NAME, calls: described }, line);
  }
}
