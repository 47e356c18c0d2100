/**
 * `planwright start`'s flags as one table, {@link START_FLAGS}, declarative data: each flag's
 * spelling, help, parser and default, written once. commands/start.ts makes commander's
 * options from it, and their type {@link StartFlags} is made from it too; {@link StartOptions}
 * adds what start reads beyond the flags as they are (the globals, what several flags make
 * together), read by cli/start.ts into the App's settings.
 */
import type { LeaderElectionSettings } from '../runtime/index.ts';
import { RENDER_WORKER_HEAP_MB } from '../kudo/render/index.ts';
import {
  DEFAULT_WAITER_IMAGE,
  TENANCY_POSTURES,
  parseGrant,
  parseNamespace,
  type TenancyPolicy,
} from '../kudo/tasks/index.ts';
import { isNodeKind, NODE_KINDS, type NodeKind } from '../localcluster/index.ts';
import { CliError } from './errors.ts';
import * as read from './flag-values.ts';
import { parseWatchNamespaces } from './watch-namespaces.ts';

/**
 * A flag: commander's spelling (`--name`, `--name <value>`, `--no-name`), its help, and how its
 * value is read — a parser (each duration in ms), or one of `choices` — and its default.
 */
export interface Flag {
  readonly spec: string;
  readonly help: string;
  readonly parse?: (value: string, previous: never) => unknown;
  readonly choices?: readonly string[];
  readonly default?: unknown;
}

const duration = (flag: string) => (text: string) => read.durationMs(flag, text);

/** The flags in the order `--help` lists them; each key is commander's name of its value. */
export const START_FLAGS = {
  // Tenancy (docs/security.md).
  tenancy: {
    spec: '--tenancy <posture>',
    help:
      'kudo: run packages as KUDO did (objects forced into the Instance namespace with a ' +
      'Warning Event, adoption warned); multi-tenant: refuse other namespaces, cluster-scoped ' +
      'objects, foreign objects and OperatorVersions unless allowed (docs/security.md)',
    choices: TENANCY_POSTURES,
    default: 'kudo',
  },
  allowNamespace: {
    spec: '--allow-namespace <from=to>',
    help:
      'Instances of namespace FROM (* for all) may write namespaced objects into namespace TO ' +
      '(repeatable)',
    parse: read.repeated('--allow-namespace', parseGrant),
  },
  allowClusterScoped: {
    spec: '--allow-cluster-scoped <namespace>',
    help:
      'multi-tenant: Instances of this namespace (* for all) may apply cluster-scoped objects ' +
      '(repeatable)',
    parse: read.repeated('--allow-cluster-scoped', parseNamespace),
  },
  allowOperatorVersion: {
    spec: '--allow-operator-version <from=to>',
    help:
      'multi-tenant: Instances of namespace FROM (* for all) may use OperatorVersions of ' +
      'namespace TO (repeatable; the kudo posture allows every namespace, as KUDO did)',
    parse: read.repeated('--allow-operator-version', parseGrant),
  },
  allowTargetServer: {
    spec: '--allow-target-server <address>',
    help:
      'target-cluster kubeconfigs may name a server at this IP address or CIDR range although ' +
      'it is loopback, link-local or private-use (pod and Service networks), which are ' +
      'refused by default (repeatable; docs/security.md)',
    parse: read.targetServer,
  },
  defaultServiceAccount: {
    spec: '--default-service-account <name>',
    help:
      "plans write with the rights of this ServiceAccount of each Instance's namespace " +
      "(impersonated) instead of the manager's own (docs/security.md)",
    parse: (text: string) => read.parseServiceAccount('--default-service-account', text),
  },
  allowServiceAccount: {
    spec: '--allow-service-account <from=name>',
    help:
      'Instances of namespace FROM (* for all) may choose ServiceAccount NAME of their namespace ' +
      'with the planwright.dev/service-account annotation (repeatable)',
    parse: read.repeated('--allow-service-account', parseGrant),
  },
  // Tuning (docs/replicas.md, docs/limits.md): the Lease timings with controller-runtime's
  // names and client-go's defaults, the limits of the render workers.
  leaderElectLeaseDuration: {
    spec: '--leader-elect-lease-duration <duration>',
    help:
      'how long a non-leader waits after the last renewal before it takes the Lease over ' +
      '(default 15s)',
    parse: duration('--leader-elect-lease-duration'),
  },
  leaderElectRenewDeadline: {
    spec: '--leader-elect-renew-deadline <duration>',
    help:
      'how long the leader keeps trying to renew before it steps down; less than the lease ' +
      'duration (default 10s)',
    parse: duration('--leader-elect-renew-deadline'),
  },
  leaderElectRetryPeriod: {
    spec: '--leader-elect-retry-period <duration>',
    help:
      'wait between tries to acquire or renew the Lease; 1.2 × it less than the renew ' +
      'deadline (default 2s)',
    parse: duration('--leader-elect-retry-period'),
  },
  renderWorkers: {
    spec: '--render-workers <n>',
    help:
      'template renders in parallel, each in a worker process (default: one per CPU, 1 to 4, ' +
      "as many as fit under the container's memory limit)",
    parse: (text: string) => read.wholeNumber('--render-workers', text, 1, '2'),
  },
  renderTimeout: {
    spec: '--render-timeout <duration>',
    help:
      'CPU time one template render may use before its step ends FATAL_ERROR; on a busy ' +
      'machine 10 × as much wall-clock time (default 10s)',
    parse: duration('--render-timeout'),
  },
  renderWorkerHeap: {
    spec: '--render-worker-heap <MiB>',
    help: `heap of each render worker; a render that needs more ends FATAL_ERROR (default ${RENDER_WORKER_HEAP_MB})`,
    // Below 64 MiB a worker cannot even load the template engine.
    parse: (text: string) => read.wholeNumber('--render-worker-heap', text, 64, '512'),
  },
  watchNamespaces: {
    spec: '--watch-namespaces <a,b>',
    help:
      'reconcile only Instances of these namespaces, an entry ending in * being a prefix; named ' +
      'namespaces only: the watch caches list and watch just those (a prefix keeps them ' +
      'cluster-wide); with --install the webhooks are called only for them',
    parse: parseWatchNamespaces,
  },
  // Where start runs: the cluster, the webhook server, the Leases, the shards.
  local: {
    spec: '--local',
    help: 'ignore any kubeconfig and start the embedded local control plane',
    default: false,
  },
  bare: {
    spec: '--bare',
    help:
      'local control plane with kube-apiserver + etcd only: nothing runs pods, namespaces ' +
      'never finish deleting (implies --local)',
    default: false,
  },
  nodes: {
    spec: '--nodes <kind>',
    help:
      'nodes of the local control plane: mixed (default; a real node, kubelet + containerd, ' +
      'runs pods whose images the local registry holds, kwok simulates the others), real, ' +
      'or kwok (simulated only). Real nodes need root; without, kwok is used',
    choices: NODE_KINDS,
    parse: (text: string): NodeKind => {
      if (isNodeKind(text)) return text;
      throw new CliError(`--nodes needs one of ${NODE_KINDS.join(', ')}, e.g. --nodes kwok`);
    },
  },
  install: {
    spec: '--install',
    help:
      'with a kubeconfig: install the CRDs and register the webhooks at ' +
      'https://127.0.0.1:<webhook port> (as local mode does)',
    default: false,
  },
  webhookPort: {
    spec: '--webhook-port <n>',
    help: 'HTTPS port of the webhook server (0 picks a free one)',
    parse: read.port,
    default: 9443,
  },
  leaderElection: {
    spec: '--no-leader-election',
    help: 'run the controllers without a Lease (one replica only)',
  },
  shards: {
    spec: '--shards <n>',
    help:
      'split the Instances into this many shards, shared out over the live replicas of this ' +
      'installation (each replica watches and reconciles only the Instances of the shards it ' +
      'runs); every replica of an installation needs the same value (default 1: one replica ' +
      'at a time reconciles all; the Deployment runs 12; docs/replicas.md)',
    parse: read.shardCount,
  },
  certDir: {
    spec: '--cert-dir <dir>',
    help:
      'files mode: serve the webhook with tls.crt/tls.key from this folder (e.g. the Secret ' +
      'cert-manager writes, mounted), swapped in place when they change; the self-managed ' +
      "certificate and its caBundle injection are off (cert-manager's cainjector fills it)",
  },
  // What the engine and admission do beyond the defaults.
  pipeWaiterImage: {
    spec: '--pipe-waiter-image <image>',
    help:
      "image of the container that keeps a Pipe task's pod running while its files are copied " +
      '(runs as uid 65534 under a restricted securityContext; needs sh, sleep, stat and tar — ' +
      'use a mirror on air-gapped clusters)',
    default: DEFAULT_WAITER_IMAGE,
  },
  stepTimeout: {
    spec: '--step-timeout <seconds>',
    help: 'a plan step not COMPLETE this long after it started becomes FATAL_ERROR (default: none)',
    parse: (text: string) => read.seconds(text) * 1000,
  },
  allowUnsafeKubeconfig: {
    spec: '--allow-unsafe-kubeconfig',
    help:
      "accept target-cluster kubeconfigs (Instances' spec.kubeConfig) that skip TLS " +
      'verification or use a plain-http server; refused by default. Files, exec/auth-provider ' +
      'plugins, proxies and impersonation are refused whatever the flags',
    default: false,
  },
  strictPackageAdmission: {
    spec: '--strict-package-admission',
    help:
      'refuse an OperatorVersion on any `kubectl kudo package verify` error (default: admit it ' +
      'as KUDO does, with the findings as warnings; see docs/admission.md)',
    default: false,
  },
} as const satisfies Record<string, Flag>;

/** A flag's value: its parser's, one of its choices, a string after `<value>`, else a switch. */
type ValueOf<F> = F extends { parse: (...args: never[]) => infer T }
  ? T
  : F extends { choices: readonly (infer C)[] }
    ? C
    : F extends { spec: `${string}<${string}>` }
      ? string
      : boolean;

/** The flags as commander reads them: undefined where a flag without a default is not given. */
export type StartFlags = {
  readonly [K in keyof typeof START_FLAGS]: (typeof START_FLAGS)[K] extends { default: unknown }
    ? ValueOf<(typeof START_FLAGS)[K]>
    : ValueOf<(typeof START_FLAGS)[K]> | undefined;
};

export type LeaseTimings = Required<
  Pick<LeaderElectionSettings, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>
>;

/** client-go's defaults (leaderelection.LeaderElectionConfig), in ms; the help says them. */
export const LEASE_DEFAULTS: LeaseTimings = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

/** What `planwright start` runs with: made once from the flags (commands/start.ts). */
export interface StartOptions extends StartFlags {
  /** --kubeconfig; else $KUBECONFIG, ~/.kube/config, in-cluster, the local control plane. */
  readonly kubeconfig: string | undefined;
  /** --namespace: the Leases'; else the in-cluster namespace, else `default`. */
  readonly namespace: string | undefined;
  /** The tenancy flags together. */
  readonly tenancyPolicy: TenancyPolicy;
  /** The Lease timings: the flags', client-go's defaults for the others. */
  readonly leaseTimings: LeaseTimings;
}
