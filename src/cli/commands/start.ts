/**
 * `start`: runs the Planwright manager (what `npm start` runs). Its flags are the table of
 * start-flags.ts, made into commander's options here; once all are read, {@link startOptions}
 * checks the relations between values and makes them into the one {@link StartOptions} that
 * cli/start.ts runs the App with.
 */
import { Command, Option } from 'commander';
import type { TenancyPolicy } from '../../kudo/tasks/index.ts';
import type { CliContext, GlobalOptions } from '../context.ts';
import { CliError, ManagerExitError } from '../errors.ts';
import { globals } from '../options.ts';
import { runStart } from '../start.ts';
import {
  LEASE_DEFAULTS,
  START_FLAGS,
  type Flag,
  type LeaseTimings,
  type StartFlags,
  type StartOptions,
} from '../start-flags.ts';

/** Commander's option of a flag of the table. */
function option(flag: Flag): Option {
  const made = new Option(flag.spec, flag.help);
  if (flag.choices) made.choices(flag.choices);
  // After the choices: a parser of the flag's own replaces commander's check of them.
  if (flag.parse) made.argParser(flag.parse as (value: string, previous: unknown) => unknown);
  return flag.default === undefined ? made : made.default(flag.default);
}

/** Commander's options of every flag of `planwright start`, in the order --help lists them. */
export function startFlagOptions(): Option[] {
  return Object.values<Flag>(START_FLAGS).map(option);
}

export function startCommand(ctx: CliContext): Command {
  const command = new Command('start');
  for (const made of startFlagOptions()) command.addOption(made);
  return command
    .description(
      'Run Planwright (webhook server + leader-elected controllers) against the cluster of your ' +
        'kubeconfig, or, when there is none, against an embedded local control plane built ' +
        'on first use: kube-apiserver, etcd, kube-controller-manager, kube-scheduler and ' +
        'nodes (see --nodes: by default a real node runs the pods it has images for, kwok ' +
        'simulates the rest).',
    )
    .addHelpText(
      'after',
      '\n--namespace sets the namespace of the leader-election Lease (default: the in-cluster ' +
        'namespace, else "default"); --kubeconfig the cluster (default: $KUBECONFIG, then ' +
        '~/.kube/config, then the in-cluster service account).',
    )
    .action(async (flags: StartFlags, command: Command) => {
      const io = {
        out: (line: string) => ctx.term.out(line),
        err: (line: string) => ctx.term.err(line),
      };
      const code = await runStart(startOptions(flags, globals(command)), io, ctx.signal);
      if (code !== 0) throw new ManagerExitError(code);
    });
}

/** client-go waits up to 1.2 × the retry period between tries (its JitterFactor). */
const RETRY_JITTER = 1.2;

/** The one conversion of the flags: checked against each other, made into the options. */
export function startOptions(flags: StartFlags, global: GlobalOptions): StartOptions {
  refuseConflicts(flags, global);
  return {
    ...flags,
    local: flags.local || flags.bare,
    // An empty --kubeconfig or --namespace means none, as it always has.
    kubeconfig: global.kubeconfig || undefined,
    namespace: global.namespace || undefined,
    tenancyPolicy: tenancyPolicy(flags),
    leaseTimings: leaseTimings(flags),
  };
}

/** Flags that exclude each other, or a value only its relation to another makes wrong. */
function refuseConflicts(flags: StartFlags, global: GlobalOptions): void {
  const local = flags.bare ? '--bare' : flags.local ? '--local' : undefined;
  if (flags.certDir !== undefined && (flags.install || local)) {
    throw new CliError(
      `--cert-dir and ${flags.install ? '--install' : local} exclude each other: ` +
        'those register the webhooks at 127.0.0.1 with a development certificate of their own',
    );
  }
  if (flags.certDir?.trim() === '') {
    throw new CliError(
      '--cert-dir needs a folder, e.g. --cert-dir /tmp/k8s-webhook-server/serving-certs',
    );
  }
  if (local && global.kubeconfig) {
    throw new CliError(`${local} and --kubeconfig exclude each other: choose one cluster`);
  }
}

/**
 * The policy of the tenancy flags. The kudo posture with no allowance is KUDO's behaviour, as
 * no policy is: every reader takes a missing one as `{ posture: 'kudo' }`.
 */
export function tenancyPolicy(flags: StartFlags): TenancyPolicy {
  const { defaultServiceAccount, allowServiceAccount } = flags;
  return {
    posture: flags.tenancy,
    namespaces: flags.allowNamespace,
    clusterScoped: flags.allowClusterScoped,
    operatorVersions: flags.allowOperatorVersion,
    // Present only when set: the controller impersonates where there is a ServiceAccount policy.
    serviceAccounts:
      defaultServiceAccount !== undefined || allowServiceAccount
        ? { default: defaultServiceAccount, allowed: allowServiceAccount }
        : undefined,
  };
}

/**
 * The Lease timings the flags give, with client-go's defaults for the others. Refused: a renew
 * deadline not under the lease duration (a leader would still renew after others may take
 * over) and a retry period whose jittered wait does not fit in the renew deadline (the leader
 * would step down without a second try).
 */
export function leaseTimings(flags: StartFlags): LeaseTimings {
  const given = Object.entries({
    '--leader-elect-lease-duration': flags.leaderElectLeaseDuration,
    '--leader-elect-renew-deadline': flags.leaderElectRenewDeadline,
    '--leader-elect-retry-period': flags.leaderElectRetryPeriod,
  }).flatMap(([flag, ms]) => (ms === undefined ? [] : [flag]));
  if (given.length > 0 && flags.leaderElection === false) {
    throw new CliError(
      `${given.join(', ')} and --no-leader-election exclude each other: without leader ` +
        'election there is no Lease to time',
    );
  }
  const timings: LeaseTimings = {
    leaseDurationMs: flags.leaderElectLeaseDuration ?? LEASE_DEFAULTS.leaseDurationMs,
    renewDeadlineMs: flags.leaderElectRenewDeadline ?? LEASE_DEFAULTS.renewDeadlineMs,
    retryPeriodMs: flags.leaderElectRetryPeriod ?? LEASE_DEFAULTS.retryPeriodMs,
  };
  const { leaseDurationMs: lease, renewDeadlineMs: renew, retryPeriodMs: retry } = timings;
  if (!(renew < lease)) {
    throw new CliError(
      `--leader-elect-renew-deadline (${renew}ms) must be less than ` +
        `--leader-elect-lease-duration (${lease}ms): a leader must step down before another ` +
        'replica may take the Lease; shorten the first or lengthen the second',
    );
  }
  if (!(RETRY_JITTER * retry < renew)) {
    throw new CliError(
      `--leader-elect-retry-period (${retry}ms) must be less than ` +
        `--leader-elect-renew-deadline (${renew}ms) / ${RETRY_JITTER}: the leader retries a ` +
        'failed renewal after up to 1.2 retry periods; shorten the retry period or lengthen ' +
        'the renew deadline',
    );
  }
  return timings;
}
