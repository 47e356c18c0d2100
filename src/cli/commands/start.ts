/**
 * `start`: runs the Planwright manager (what `npm start` runs). Its flags — the tenancy flags,
 * the tuning flags (the leader-election timings with controller-runtime's `--leader-elect-*`
 * names and defaults, the limits of the render workers) and the rest — each parsed by
 * commander as it is read; the relations between values are checked once all are, and the
 * flags become one {@link StartOptions} (start.ts) that goes as it is to the App's settings.
 */
import { Command, Option } from 'commander';
import type { RenderSettings } from '../../app.ts';
import { RENDER_WORKER_HEAP_MB } from '../../kudo/render/index.ts';
import type { CliContext, GlobalOptions } from '../context.ts';
import { CliError, ManagerExitError } from '../errors.ts';
import {
  durationMs,
  parseServiceAccount,
  port,
  repeated,
  seconds,
  shardCount,
  targetServer,
  wholeNumber,
} from '../flag-values.ts';
import { globals } from '../options.ts';
import { runStart, type LeaseTimings, type StartOptions } from '../start.ts';
import { parseWatchNamespaces, type WatchNamespaces } from '../watch-namespaces.ts';
import { isNodeKind, NODE_KINDS, type NodeKind } from '../../localcluster/index.ts';
import {
  DEFAULT_WAITER_IMAGE,
  TENANCY_POSTURES,
  parseGrant,
  parseNamespace,
  type NamespaceGrant,
  type TenancyPolicy,
  type TenancyPosture,
} from '../../kudo/tasks/index.ts';

/** client-go's defaults (leaderelection.LeaderElectionConfig), in ms. */
export const LEASE_DEFAULTS = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
} as const;

/** client-go waits up to 1.2 × the retry period between tries (its JitterFactor). */
const RETRY_JITTER = 1.2;

/** Below this a worker cannot even load the template engine. */
const MIN_HEAP_MB = 64;

export interface TuningFlags {
  readonly leaderElectLeaseDuration?: number;
  readonly leaderElectRenewDeadline?: number;
  readonly leaderElectRetryPeriod?: number;
  readonly leaderElection?: boolean;
  readonly renderWorkers?: number;
  readonly renderTimeout?: number;
  readonly renderWorkerHeap?: number;
}

/** The render limits the flags set (the App's defaults for the others). */
export type RenderLimits = Pick<RenderSettings, 'workers' | 'deadlineMs' | 'maxHeapMb'>;

/** The tuning flags (docs/replicas.md, docs/limits.md). */
export function tuningOptions(): Option[] {
  const duration = (flag: string) => (value: string) => durationMs(flag, value);
  return [
    new Option(
      '--leader-elect-lease-duration <duration>',
      'how long a non-leader waits after the last renewal before it takes the Lease over ' +
        '(default 15s)',
    ).argParser(duration('--leader-elect-lease-duration')),
    new Option(
      '--leader-elect-renew-deadline <duration>',
      'how long the leader keeps trying to renew before it steps down; less than the lease ' +
        'duration (default 10s)',
    ).argParser(duration('--leader-elect-renew-deadline')),
    new Option(
      '--leader-elect-retry-period <duration>',
      'wait between tries to acquire or renew the Lease; 1.2 × it less than the renew ' +
        'deadline (default 2s)',
    ).argParser(duration('--leader-elect-retry-period')),
    new Option(
      '--render-workers <n>',
      'template renders in parallel, each in a worker process (default: one per CPU, 1 to 4, ' +
        "as many as fit under the container's memory limit)",
    ).argParser((v: string) => wholeNumber('--render-workers', v, 1, '2')),
    new Option(
      '--render-timeout <duration>',
      'CPU time one template render may use before its step ends FATAL_ERROR; on a busy ' +
        'machine 10 × as much wall-clock time (default 10s)',
    ).argParser(duration('--render-timeout')),
    new Option(
      '--render-worker-heap <MiB>',
      `heap of each render worker; a render that needs more ends FATAL_ERROR (default ${RENDER_WORKER_HEAP_MB})`,
    ).argParser((v: string) => wholeNumber('--render-worker-heap', v, MIN_HEAP_MB, '512')),
  ];
}

/**
 * The Lease timings the flags give, with client-go's defaults for the others; undefined when
 * no flag sets one. Refused: a renew deadline not under the lease duration (a leader would
 * still renew after others may take over) and a retry period whose jittered wait does not fit
 * in the renew deadline (the leader would step down without a second try).
 */
export function leaseTimings(flags: TuningFlags): LeaseTimings | undefined {
  const given = [
    flags.leaderElectLeaseDuration !== undefined ? '--leader-elect-lease-duration' : '',
    flags.leaderElectRenewDeadline !== undefined ? '--leader-elect-renew-deadline' : '',
    flags.leaderElectRetryPeriod !== undefined ? '--leader-elect-retry-period' : '',
  ].filter((f) => f !== '');
  if (given.length === 0) return undefined;
  if (flags.leaderElection === false) {
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
  const show = (ms: number): string => `${ms}ms`;
  if (!(timings.renewDeadlineMs < timings.leaseDurationMs)) {
    throw new CliError(
      `--leader-elect-renew-deadline (${show(timings.renewDeadlineMs)}) must be less than ` +
        `--leader-elect-lease-duration (${show(timings.leaseDurationMs)}): a leader must step ` +
        'down before another replica may take the Lease; shorten the first or lengthen the second',
    );
  }
  if (!(RETRY_JITTER * timings.retryPeriodMs < timings.renewDeadlineMs)) {
    throw new CliError(
      `--leader-elect-retry-period (${show(timings.retryPeriodMs)}) must be less than ` +
        `--leader-elect-renew-deadline (${show(timings.renewDeadlineMs)}) / ${RETRY_JITTER}: ` +
        'the leader retries a failed renewal after up to 1.2 retry periods; shorten the ' +
        'retry period or lengthen the renew deadline',
    );
  }
  return timings;
}

/** The render limits the flags give; undefined when none is set (the defaults apply). */
export function renderLimits(flags: TuningFlags): RenderLimits | undefined {
  if (
    flags.renderWorkers === undefined &&
    flags.renderTimeout === undefined &&
    flags.renderWorkerHeap === undefined
  ) {
    return undefined;
  }
  return {
    ...(flags.renderWorkers !== undefined ? { workers: flags.renderWorkers } : {}),
    ...(flags.renderTimeout !== undefined ? { deadlineMs: flags.renderTimeout } : {}),
    ...(flags.renderWorkerHeap !== undefined ? { maxHeapMb: flags.renderWorkerHeap } : {}),
  };
}

export interface StartFlags extends TuningFlags {
  readonly local?: boolean;
  readonly bare?: boolean;
  readonly nodes?: NodeKind;
  readonly install?: boolean;
  readonly webhookPort?: number;
  readonly leaderElection?: boolean;
  readonly certDir?: string;
  readonly pipeWaiterImage?: string;
  readonly stepTimeout?: number;
  readonly allowUnsafeKubeconfig?: boolean;
  readonly allowTargetServer?: readonly string[];
  readonly strictPackageAdmission?: boolean;
  readonly watchNamespaces?: WatchNamespaces;
  readonly tenancy?: TenancyPosture;
  readonly allowNamespace?: readonly NamespaceGrant[];
  readonly allowClusterScoped?: readonly string[];
  readonly allowOperatorVersion?: readonly NamespaceGrant[];
  readonly defaultServiceAccount?: string;
  readonly allowServiceAccount?: readonly NamespaceGrant[];
  readonly shards?: number;
}

/** The tenancy flags (docs/security.md). */
export function tenancyOptions(): Option[] {
  return [
    new Option(
      '--tenancy <posture>',
      'kudo: run packages as KUDO did (objects forced into the Instance namespace with a ' +
        'Warning Event, adoption warned); multi-tenant: refuse other namespaces, cluster-scoped ' +
        'objects, foreign objects and OperatorVersions unless allowed (docs/security.md)',
    )
      .choices(TENANCY_POSTURES)
      .default('kudo'),
    new Option(
      '--allow-namespace <from=to>',
      'Instances of namespace FROM (* for all) may write namespaced objects into namespace TO ' +
        '(repeatable)',
    ).argParser(repeated('--allow-namespace', parseGrant)),
    new Option(
      '--allow-cluster-scoped <namespace>',
      'multi-tenant: Instances of this namespace (* for all) may apply cluster-scoped objects ' +
        '(repeatable)',
    ).argParser(repeated('--allow-cluster-scoped', parseNamespace)),
    new Option(
      '--allow-operator-version <from=to>',
      'multi-tenant: Instances of namespace FROM (* for all) may use OperatorVersions of ' +
        'namespace TO (repeatable; the kudo posture allows every namespace, as KUDO did)',
    ).argParser(repeated('--allow-operator-version', parseGrant)),
    new Option(
      '--allow-target-server <address>',
      'target-cluster kubeconfigs may name a server at this IP address or CIDR range although ' +
        'it is loopback, link-local or private-use (pod and Service networks), which are ' +
        'refused by default (repeatable; docs/security.md)',
    ).argParser(targetServer),
    new Option(
      '--default-service-account <name>',
      "plans write with the rights of this ServiceAccount of each Instance's namespace " +
        "(impersonated) instead of the manager's own (docs/security.md)",
    ).argParser((value: string) => parseServiceAccount('--default-service-account', value)),
    new Option(
      '--allow-service-account <from=name>',
      'Instances of namespace FROM (* for all) may choose ServiceAccount NAME of their namespace ' +
        'with the planwright.dev/service-account annotation (repeatable)',
    ).argParser(repeated('--allow-service-account', parseGrant)),
  ];
}

/** The policy the tenancy flags describe; undefined for the default posture without allowances. */
export function tenancyPolicy(flags: StartFlags): TenancyPolicy | undefined {
  const posture = flags.tenancy ?? 'kudo';
  if (
    posture === 'kudo' &&
    !flags.allowNamespace?.length &&
    !flags.allowClusterScoped?.length &&
    !flags.allowOperatorVersion?.length &&
    flags.defaultServiceAccount === undefined &&
    !flags.allowServiceAccount?.length
  ) {
    return undefined;
  }
  return {
    posture,
    ...(flags.allowNamespace ? { namespaces: flags.allowNamespace } : {}),
    ...(flags.allowClusterScoped ? { clusterScoped: flags.allowClusterScoped } : {}),
    ...(flags.allowOperatorVersion ? { operatorVersions: flags.allowOperatorVersion } : {}),
    ...(flags.defaultServiceAccount !== undefined || flags.allowServiceAccount
      ? {
          serviceAccounts: {
            ...(flags.defaultServiceAccount !== undefined
              ? { default: flags.defaultServiceAccount }
              : {}),
            ...(flags.allowServiceAccount ? { allowed: flags.allowServiceAccount } : {}),
          },
        }
      : {}),
  };
}

/** The flags of where start runs: the cluster, the webhook server, the Leases, the shards. */
function placementOptions(): Option[] {
  return [
    new Option(
      '--local',
      'ignore any kubeconfig and start the embedded local control plane',
    ).default(false),
    new Option(
      '--bare',
      'local control plane with kube-apiserver + etcd only: nothing runs pods, namespaces ' +
        'never finish deleting (implies --local)',
    ).default(false),
    new Option(
      '--nodes <kind>',
      'nodes of the local control plane: mixed (default; a real node, kubelet + containerd, ' +
        'runs pods whose images the local registry holds, kwok simulates the others), real, ' +
        'or kwok (simulated only). Real nodes need root; without, kwok is used',
    )
      .choices([...NODE_KINDS])
      .argParser((value: string): NodeKind => {
        if (!isNodeKind(value)) {
          throw new CliError(`--nodes needs one of ${NODE_KINDS.join(', ')}, e.g. --nodes kwok`);
        }
        return value;
      }),
    new Option(
      '--install',
      'with a kubeconfig: install the CRDs and register the webhooks at ' +
        'https://127.0.0.1:<webhook port> (as local mode does)',
    ).default(false),
    new Option('--webhook-port <n>', 'HTTPS port of the webhook server (0 picks a free one)')
      .default(9443)
      .argParser(port),
    new Option('--no-leader-election', 'run the controllers without a Lease (one replica only)'),
    new Option(
      '--shards <n>',
      'split the Instances into this many shards, shared out over the live replicas of this ' +
        'installation (each replica watches and reconciles only the Instances of the shards it ' +
        'runs); every replica of an installation needs the same value (default 1: one replica ' +
        'at a time reconciles all; the Deployment runs 12; docs/replicas.md)',
    ).argParser(shardCount),
    new Option(
      '--cert-dir <dir>',
      'files mode: serve the webhook with tls.crt/tls.key from this folder (e.g. the Secret ' +
        'cert-manager writes, mounted), swapped in place when they change; the self-managed ' +
        "certificate and its caBundle injection are off (cert-manager's cainjector fills it)",
    ),
  ];
}

/** The flags of what the engine and admission do beyond the defaults. */
function engineOptions(): Option[] {
  return [
    new Option(
      '--pipe-waiter-image <image>',
      "image of the container that keeps a Pipe task's pod running while its files are copied " +
        '(runs as uid 65534 under a restricted securityContext; needs sh, sleep, stat and tar — ' +
        'use a mirror on air-gapped clusters)',
    ).default(DEFAULT_WAITER_IMAGE),
    new Option(
      '--step-timeout <seconds>',
      'a plan step not COMPLETE this long after it started becomes FATAL_ERROR (default: none)',
    ).argParser(seconds),
    new Option(
      '--allow-unsafe-kubeconfig',
      "accept target-cluster kubeconfigs (Instances' spec.kubeConfig) that skip TLS " +
        'verification or use a plain-http server; refused by default. Files, exec/auth-provider ' +
        'plugins, proxies and impersonation are refused whatever the flags',
    ).default(false),
    new Option(
      '--strict-package-admission',
      'refuse an OperatorVersion on any `kubectl kudo package verify` error (default: admit it ' +
        'as KUDO does, with the findings as warnings; see docs/admission.md)',
    ).default(false),
  ];
}

export function startCommand(ctx: CliContext): Command {
  const command = new Command('start');
  const options = [
    ...tenancyOptions(),
    ...tuningOptions(),
    new Option(
      '--watch-namespaces <a,b>',
      'reconcile only Instances of these namespaces, an entry ending in * being a prefix; named ' +
        'namespaces only: the watch caches list and watch just those (a prefix keeps them ' +
        'cluster-wide); with --install the webhooks are called only for them',
    ).argParser(parseWatchNamespaces),
    ...placementOptions(),
    ...engineOptions(),
  ];
  for (const option of options) command.addOption(option);
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

/** Flags that exclude each other, or a value only its relation to another makes wrong. */
function refuseConflicts(flags: StartFlags, global: GlobalOptions): void {
  if (flags.certDir !== undefined && (flags.install || flags.local || flags.bare)) {
    throw new CliError(
      `--cert-dir and ${flags.install ? '--install' : flags.bare ? '--bare' : '--local'} exclude each other: ` +
        'those register the webhooks at 127.0.0.1 with a development certificate of their own',
    );
  }
  if (flags.certDir !== undefined && flags.certDir.trim() === '') {
    throw new CliError(
      '--cert-dir needs a folder, e.g. --cert-dir /tmp/k8s-webhook-server/serving-certs',
    );
  }
  if ((flags.local || flags.bare) && global.kubeconfig) {
    throw new CliError(
      `${flags.bare ? '--bare' : '--local'} and --kubeconfig exclude each other: choose one cluster`,
    );
  }
}

/** The one conversion of the flags: into the options start reads down to the App. */
export function startOptions(flags: StartFlags, global: GlobalOptions): StartOptions {
  refuseConflicts(flags, global);
  const tenancy = tenancyPolicy(flags);
  const leaseTimingsGiven = leaseTimings(flags);
  const render = renderLimits(flags);
  return {
    // An empty --kubeconfig or --namespace means none, as it always has.
    kubeconfig: global.kubeconfig || undefined,
    namespace: global.namespace || undefined,
    local: (flags.local ?? false) || (flags.bare ?? false),
    bare: flags.bare ?? false,
    nodeKind: flags.nodes,
    install: flags.install ?? false,
    webhookPort: flags.webhookPort ?? 9443,
    leaderElection: flags.leaderElection !== false,
    leaseTimings: leaseTimingsGiven,
    certDir: flags.certDir,
    watchNamespaces: flags.watchNamespaces,
    shards: flags.shards,
    packagePolicy: flags.strictPackageAdmission ? 'strict' : 'warn',
    tenancy,
    render,
    controller: {
      pipeWaiterImage: flags.pipeWaiterImage,
      stepTimeoutMs: flags.stepTimeout === undefined ? undefined : flags.stepTimeout * 1000,
      remote: {
        allowUnsafeKubeconfig: flags.allowUnsafeKubeconfig,
        allowedServers: flags.allowTargetServer,
      },
    },
  };
}
