/** `start`: runs the Planwright manager (what `npm start` runs). */
import { Command, Option } from 'commander';
import type { CliContext } from '../context.ts';
import { CliError, ManagerExitError } from '../errors.ts';
import { globals } from '../options.ts';
import { runStart, type StartOptions } from '../start.ts';
import { leaseTimings, renderLimits, tuningOptions, type TuningFlags } from '../start-tuning.ts';
import { parseWatchNamespaces, type WatchNamespaces } from '../watch-namespaces.ts';
import { isNodeKind, NODE_KINDS, type NodeKind } from '../../localcluster/index.ts';
import { TargetServerFlagError, TargetServerPolicy } from '../../kube/index.ts';
import {
  DEFAULT_WAITER_IMAGE,
  TENANCY_POSTURES,
  TenancyFlagError,
  parseGrant,
  parseNamespace,
  type NamespaceGrant,
  type TenancyPolicy,
  type TenancyPosture,
} from '../../kudo/tasks/index.ts';

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

/** `a,b` of --watch-namespaces: namespace names, at least one. */
export function namespaceList(value: string): readonly string[] {
  const names = value.split(',').map((n) => n.trim());
  if (names.some((n) => !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(n))) {
    throw new CliError(
      `--watch-namespaces ${JSON.stringify(value)}: needs namespace names separated by commas, e.g. --watch-namespaces team-a,team-b`,
    );
  }
  return names;
}

function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) {
    throw new CliError('--webhook-port needs a port number 0-65535, e.g. --webhook-port 9443');
  }
  return n;
}

/** Shards are labels `0` … `n-1` read by label selectors: a few hundred at most. */
export const MAX_SHARDS = 256;

function shardCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_SHARDS) {
    throw new CliError(
      `--shards ${JSON.stringify(value)}: needs a whole number from 1 to ${MAX_SHARDS}, e.g. --shards 12 (a multiple of the replica counts you run keeps them even)`,
    );
  }
  return n;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) {
    throw new CliError('--step-timeout needs a whole number of seconds, e.g. --step-timeout 600');
  }
  return n;
}

/** An --allow-target-server value (checked as the policy reads it), collected in order. */
function targetServer(value: string, previous: readonly string[] | undefined): readonly string[] {
  try {
    new TargetServerPolicy([value]);
  } catch (err) {
    if (err instanceof TargetServerFlagError) throw new CliError(err.message);
    throw err;
  }
  return [...(previous ?? []), value];
}

/** A ServiceAccount name (a DNS label here: what `FROM=NAME` of the allow flag takes too). */
function parseServiceAccount(flag: string, value: string): string {
  try {
    const name = parseNamespace(flag, value);
    if (name !== '*') return name;
  } catch (err) {
    if (!(err instanceof TenancyFlagError)) throw err;
  }
  throw new CliError(
    `${flag} ${JSON.stringify(value)}: needs a ServiceAccount name, e.g. ${flag} planwright-deployer`,
  );
}

/** A repeatable flag's parser: each value parsed by `parse`, collected in order. */
function repeated<T>(flag: string, parse: (flag: string, value: string) => T) {
  return (value: string, previous: readonly T[] | undefined): readonly T[] => {
    try {
      return [...(previous ?? []), parse(flag, value)];
    } catch (err) {
      if (err instanceof TenancyFlagError) throw new CliError(err.message);
      throw err;
    }
  };
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

export function startCommand(ctx: CliContext): Command {
  const command = new Command('start');
  for (const option of tenancyOptions()) command.addOption(option);
  for (const option of tuningOptions()) command.addOption(option);
  command.addOption(
    new Option(
      '--watch-namespaces <a,b>',
      'reconcile only Instances of these namespaces, an entry ending in * being a prefix; named ' +
        'namespaces only: the watch caches list and watch just those (a prefix keeps them ' +
        'cluster-wide); with --install the webhooks are called only for them',
    ).argParser(parseWatchNamespaces),
  );
  return command
    .description(
      'Run Planwright (webhook server + leader-elected controllers) against the cluster of your ' +
        'kubeconfig, or, when there is none, against an embedded local control plane built ' +
        'on first use: kube-apiserver, etcd, kube-controller-manager, kube-scheduler and ' +
        'nodes (see --nodes: by default a real node runs the pods it has images for, kwok ' +
        'simulates the rest).',
    )
    .option('--local', 'ignore any kubeconfig and start the embedded local control plane', false)
    .option(
      '--bare',
      'local control plane with kube-apiserver + etcd only: nothing runs pods, namespaces ' +
        'never finish deleting (implies --local)',
      false,
    )
    .addOption(
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
    )
    .option(
      '--install',
      'with a kubeconfig: install the CRDs and register the webhooks at ' +
        'https://127.0.0.1:<webhook port> (as local mode does)',
      false,
    )
    .addOption(
      new Option('--webhook-port <n>', 'HTTPS port of the webhook server (0 picks a free one)')
        .default(9443)
        .argParser(port),
    )
    .option('--no-leader-election', 'run the controllers without a Lease (one replica only)')
    .addOption(
      new Option(
        '--shards <n>',
        'split the Instances into this many shards, shared out over the live replicas of this ' +
          'installation (each replica watches and reconciles only the Instances of the shards it ' +
          'runs); every replica of an installation needs the same value (default 1: one replica ' +
          'at a time reconciles all; the Deployment runs 12; docs/replicas.md)',
      ).argParser(shardCount),
    )
    .option(
      '--cert-dir <dir>',
      'files mode: serve the webhook with tls.crt/tls.key from this folder (e.g. the Secret ' +
        'cert-manager writes, mounted), swapped in place when they change; the self-managed ' +
        "certificate and its caBundle injection are off (cert-manager's cainjector fills it)",
    )
    .addOption(
      new Option(
        '--pipe-waiter-image <image>',
        "image of the container that keeps a Pipe task's pod running while its files are copied " +
          '(runs as uid 65534 under a restricted securityContext; needs sh, sleep, stat and tar — ' +
          'use a mirror on air-gapped clusters)',
      ).default(DEFAULT_WAITER_IMAGE),
    )
    .addOption(
      new Option(
        '--step-timeout <seconds>',
        'a plan step not COMPLETE this long after it started becomes FATAL_ERROR (default: none)',
      ).argParser(seconds),
    )
    .option(
      '--allow-unsafe-kubeconfig',
      "accept target-cluster kubeconfigs (Instances' spec.kubeConfig) that skip TLS " +
        'verification or use a plain-http server; refused by default. Files, exec/auth-provider ' +
        'plugins, proxies and impersonation are refused whatever the flags',
      false,
    )
    .option(
      '--strict-package-admission',
      'refuse an OperatorVersion on any `kubectl kudo package verify` error (default: admit it ' +
        'as KUDO does, with the findings as warnings; see docs/admission.md)',
      false,
    )
    .addHelpText(
      'after',
      '\n--namespace sets the namespace of the leader-election Lease (default: the in-cluster ' +
        'namespace, else "default"); --kubeconfig the cluster (default: $KUBECONFIG, then ' +
        '~/.kube/config, then the in-cluster service account).',
    )
    .action(async (flags: StartFlags, command: Command) => {
      const global = globals(command);
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
      const tenancy = tenancyPolicy(flags);
      const lease = leaseTimings(flags);
      const render = renderLimits(flags);
      const options: StartOptions = {
        local: (flags.local ?? false) || (flags.bare ?? false),
        ...(flags.bare ? { bare: true } : {}),
        ...(flags.nodes ? { nodeKind: flags.nodes } : {}),
        ...(global.kubeconfig ? { kubeconfig: global.kubeconfig } : {}),
        ...(flags.webhookPort !== undefined ? { webhookPort: flags.webhookPort } : {}),
        ...(flags.install ? { install: true } : {}),
        ...(flags.leaderElection === false ? { noLeaderElection: true } : {}),
        ...(lease ? { leaseTimings: lease } : {}),
        ...(render ? { render } : {}),
        ...(global.namespace ? { namespace: global.namespace } : {}),
        ...(flags.certDir ? { certDir: flags.certDir } : {}),
        ...(flags.strictPackageAdmission ? { strictPackageAdmission: true } : {}),
        ...(flags.watchNamespaces ? { watchNamespaces: flags.watchNamespaces } : {}),
        ...(flags.shards !== undefined ? { shards: flags.shards } : {}),
        ...(flags.pipeWaiterImage !== undefined ||
        flags.stepTimeout !== undefined ||
        flags.allowUnsafeKubeconfig ||
        flags.allowTargetServer ||
        tenancy
          ? {
              engine: {
                ...(flags.allowUnsafeKubeconfig ? { allowUnsafeKubeconfig: true } : {}),
                ...(flags.allowTargetServer ? { allowTargetServers: flags.allowTargetServer } : {}),
                ...(tenancy ? { tenancy } : {}),
                ...(flags.pipeWaiterImage ? { pipeWaiterImage: flags.pipeWaiterImage } : {}),
                ...(flags.stepTimeout !== undefined
                  ? { stepTimeoutMs: flags.stepTimeout * 1000 }
                  : {}),
              },
            }
          : {}),
      };
      const io = {
        out: (line: string) => ctx.term.out(line),
        err: (line: string) => ctx.term.err(line),
      };
      const code = await runStart(options, io, ctx.signal);
      if (code !== 0) throw new ManagerExitError(code);
    });
}
