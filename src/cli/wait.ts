/**
 * `--wait`: follows one plan run of an Instance until it is over. KUDO polled until COMPLETE
 * and waited through FATAL_ERROR until its timeout; here a run that ends FATAL_ERROR or ABORTED
 * fails at once, with the reason and where to look.
 */
import { sleepOrThrow } from '../runtime/index.ts';
import type { Instance, PlanStatus } from '../kudo/api/index.ts';
import { CliError, PlanFailedError } from './errors.ts';
import type { Terminal } from './io.ts';
import type { KudoApi } from './kudo-api.ts';
import { FAILED_STATUSES, lastExecutedPlan } from './plan-view.ts';
import { PlanProgress } from './output/plan-progress.ts';

export interface PlanWaitTarget {
  readonly namespace: string;
  readonly name: string;
  /**
   * The run to follow: the uid the webhook recorded in spec.planExecution when it accepted the
   * write. Without it, the last executed plan is followed (KUDO's rule).
   */
  readonly uid?: string;
  readonly planName?: string;
}

export interface PlanWaitOptions {
  readonly api: KudoApi;
  readonly term: Terminal;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** Poll interval; KUDO polled every second. */
  readonly intervalMs?: number;
  /** Show the live progress tree (TTY) or change lines. */
  readonly progress?: boolean;
  /** How the user looks at details, for messages (`kubectl kudo`). */
  readonly commandName: string;
  /** Statuses that end the wait successfully; default COMPLETE. */
  readonly success?: ReadonlySet<string>;
}

/** The run a wait follows in an Instance as read now; undefined until it shows up in status. */
export function followedRun(instance: Instance, target: PlanWaitTarget): PlanStatus | undefined {
  if (target.uid) {
    for (const [key, plan] of Object.entries(instance.status?.planStatus ?? {})) {
      if (plan.uid === target.uid) return { ...plan, name: plan.name ?? key };
    }
    return undefined;
  }
  return lastExecutedPlan(instance);
}

/** The first failed step's message, else the plan's own. */
export function failureReason(plan: PlanStatus): string {
  for (const phase of plan.phases ?? []) {
    for (const step of phase.steps ?? []) {
      if (FAILED_STATUSES.has(step.status ?? '') && step.message) {
        return `step ${phase.name ?? ''}/${step.name ?? ''}: ${step.message}`;
      }
    }
  }
  return plan.message ?? 'no message';
}

export async function waitForPlan(
  target: PlanWaitTarget,
  options: PlanWaitOptions,
): Promise<PlanStatus> {
  const started = Date.now();
  const success = options.success ?? new Set(['COMPLETE']);
  const where = `${target.namespace}/${target.name}`;
  const details = `${options.commandName} plan status --instance ${target.name} -n ${target.namespace}`;
  const progress = options.progress
    ? new PlanProgress(options.term, target.planName ?? 'plan', started)
    : undefined;
  for (;;) {
    const instance = await options.api.getInstance(target.namespace, target.name);
    if (!instance) {
      throw new CliError(`instance ${where} does not exist in the cluster any more`);
    }
    const run = followedRun(instance, target);
    progress?.update(run, Date.now());
    if (run && success.has(run.status ?? '')) return run;
    if (run && FAILED_STATUSES.has(run.status ?? '')) {
      throw new PlanFailedError(
        `plan "${run.name ?? ''}" of instance ${where} ended ${run.status ?? ''}: ${failureReason(run)}. ` +
          `Details: ${details}`,
      );
    }
    if (Date.now() - started >= options.timeoutMs) {
      const state = run
        ? `plan "${run.name ?? ''}" is ${run.status ?? 'unknown'}`
        : `plan "${target.planName ?? '?'}" has not started`;
      throw new CliError(
        `timeout waiting for instance ${where}: ${state} after ${Math.round(options.timeoutMs / 1000)} s. ` +
          `Details: ${details}`,
      );
    }
    await sleepOrThrow(options.intervalMs ?? 1000, options.signal);
  }
}

export interface ScheduledWaitOptions {
  /** --wait-time in seconds (default 300). */
  readonly waitTime?: number;
  /** The plan to name while the webhook's record is missing (install: deploy). */
  readonly planName?: string;
  readonly success?: ReadonlySet<string>;
}

/**
 * `--wait` after a write: follows the run the webhook recorded in the returned object's
 * spec.planExecution (its uid), with the live progress view.
 */
export function waitForScheduledPlan(
  ctx: { readonly term: Terminal; readonly signal: AbortSignal; readonly commandName: string },
  api: KudoApi,
  written: Instance,
  options: ScheduledWaitOptions = {},
): Promise<PlanStatus> {
  const pe = written.spec?.planExecution;
  const planName = pe?.planName ?? options.planName;
  return waitForPlan(
    {
      namespace: written.metadata.namespace ?? '',
      name: written.metadata.name ?? '',
      // An empty planName is none (the progress view then says "plan").
      planName: planName || undefined,
      uid: pe?.uid,
    },
    {
      api,
      term: ctx.term,
      signal: ctx.signal,
      timeoutMs: (options.waitTime ?? 300) * 1000,
      progress: true,
      commandName: ctx.commandName,
      success: options.success,
    },
  );
}
