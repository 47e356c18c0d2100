/**
 * `init`: installs Planwright into the cluster from manifests/ (KUDO's init installed its own
 * manager with admissionregistration v1beta1, which current clusters no longer serve).
 */
import { Command, Option } from 'commander';
import {
  ApplyError,
  CrdNotEstablishedError,
  ResourceManager,
  ResourceMapper,
  crdEstablished,
  describeObject,
  type ApplyObject,
  type KubeClient,
} from '../../kube/index.ts';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { KUDO_CRDS } from '../crd-check.ts';
import { apiMessage } from '../kudo-api.ts';
import { waitForWebhooks } from '../webhook-probe.ts';
import { parseWatchNamespaces, type WatchNamespaces } from '../watch-namespaces.ts';
import { MANIFEST_NAMESPACE, installationObjects, objectLabel } from '../manifests.ts';
import { stopPreShardingReplicas } from '../pre-sharding.ts';
import { formatObject, outputFormat } from '../output/objects.ts';
import { addWaitOptions, globals, type WaitFlags } from '../options.ts';
import { repositoryStore } from '../repositories.ts';
import {
  describeRegistration,
  describeTarget,
  readRegistration,
  REGISTRATION_NAME,
  targetAnswers,
} from '../registration.ts';
import { MAX_SHARDS } from '../flag-values.ts';

interface InitFlags extends WaitFlags {
  readonly clientOnly?: boolean;
  readonly certManager?: boolean;
  readonly crdOnly?: boolean;
  readonly upgrade?: boolean;
  readonly verify?: boolean;
  readonly dryRun?: boolean;
  readonly output?: string;
  readonly image?: string;
  readonly watchNamespaces?: WatchNamespaces;
  readonly replicas?: number;
  readonly shards?: number;
}

const FIELD_MANAGER = 'planwright-cli';

/** `init --watch-namespaces`: names only — a RoleBinding needs a namespace, not a prefix. */
function exactNamespaces(value: string): WatchNamespaces {
  const watch = parseWatchNamespaces(value);
  if (watch.prefixes.length > 0) {
    throw new CliError(
      `init --watch-namespaces ${JSON.stringify(value)}: prefixes (ending in *) cannot be granted by RoleBindings; name each namespace, e.g. --watch-namespaces team-a,team-b`,
    );
  }
  return watch;
}
const CERT_MANAGER_CRDS = ['certificates.cert-manager.io', 'issuers.cert-manager.io'];

function wholeNumber(flag: string, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < 1 || n > max) {
      throw new CliError(`${flag} ${JSON.stringify(value)}: needs a whole number from 1 to ${max}`);
    }
    return n;
  };
}

export function initCommand(ctx: CliContext): Command {
  return addWaitOptions(
    new Command('init')
      .description(
        'Install Planwright into the cluster: CRDs, namespace, RBAC, Deployment, Service and ' +
          'the webhook registrations from manifests/ (--namespace: default planwright-system).',
      )
      .option(
        '--cert-manager',
        'use cert-manager for the webhook certificate (manifests/cert-manager/)',
        false,
      )
      .option('--crd-only', 'install only the kudo.dev CRDs', false)
      .option(
        '--client-only',
        'only create $KUDO_HOME and its repositories.yaml; do not touch the cluster',
        false,
      )
      .option('--upgrade', 'upgrade an existing installation', false)
      .option('--verify', 'check an existing installation instead of installing', false)
      .option(
        '--dry-run',
        'print what would be installed; use with -o yaml|json for the objects',
        false,
      )
      .option('-o, --output <format>', 'with --dry-run: print the objects (yaml|json)')
      .addOption(new Option('--image <image>', 'container image of the Planwright Deployment'))
      .addOption(
        new Option(
          '--replicas <n>',
          'replicas of the Deployment (default 2): all serve the webhooks and share the ' +
            "Instances' shards",
        ).argParser(wholeNumber('--replicas', 100)),
      )
      .addOption(
        new Option(
          '--shards <n>',
          'shards the Instances are split into between the replicas (default 12, even for ' +
            '1, 2, 3, 4 and 6 replicas; docs/replicas.md)',
        ).argParser(wholeNumber('--shards', MAX_SHARDS)),
      )
      .addOption(
        new Option(
          '--watch-namespaces <a,b>',
          'a namespaced installation: Planwright serves these namespaces only and gets its ' +
            'roles there by RoleBindings, not cluster-wide (docs/namespaced-installation.md)',
        ).argParser(exactNamespaces),
      ),
    // The webhook answers only from the Deployment's pods running Planwright's image: on a
    // cluster whose nodes run no containers (kwok, like the local workloads cluster) --wait
    // can only time out; say so where the user reads it.
    "the webhook to answer (needs the Deployment's pods running the image: on nodes that " +
      'run no containers, such as kwok, it times out)',
  ).action((flags: InitFlags, command: Command) => init(ctx, flags, command));
}

/** What `init` does with its flags: install, upgrade, verify or print the installation. */
async function init(ctx: CliContext, flags: InitFlags, command: Command): Promise<void> {
  const global = globals(command);
  const format = outputFormat(flags.output);
  if (format && !flags.dryRun) throw new CliError('-o/--output is only supported with --dry-run');
  const namespace = global.namespace ?? MANIFEST_NAMESPACE;
  if (!flags.dryRun && !flags.verify) {
    const store = repositoryStore(ctx, global);
    await store.load();
    ctx.term.out(`$KUDO_HOME has been configured at ${ctx.home(global)}`);
    if (flags.clientOnly) return;
  }
  const objects = await installationObjects({
    certManager: flags.certManager ?? false,
    crdOnly: flags.crdOnly ?? false,
    namespace,
    image: flags.image,
    watchNamespaces: flags.watchNamespaces?.names,
    replicas: flags.replicas,
    shards: flags.shards,
  });
  if (flags.dryRun) return printDryRun(objects, format, ctx);
  const { client } = await ctx.cluster(global, false);
  const resources = new ResourceManager({
    client,
    mapper: new ResourceMapper(client),
    fieldManager: FIELD_MANAGER,
  });
  if (flags.verify) {
    const problems = await verify(resources, objects, ctx.signal);
    if (problems.length > 0)
      throw new CliError(`Planwright installation invalid: ${problems.join('; ')}`);
    return ctx.term.out(`Planwright installation in namespace ${namespace} is valid`);
  }
  await preChecks(client, resources, flags, namespace, ctx);
  if (flags.upgrade && !flags.crdOnly) {
    // Pods stop within their grace period (45 s) plus the preStop sleep.
    await stopPreShardingReplicas({
      client,
      namespace,
      timeoutMs: (flags.waitTime ?? 120) * 1000,
      report: (line) => ctx.term.err(line),
      signal: ctx.signal,
    });
  }
  await applyInstallation(resources, objects, ctx);
  if (flags.wait && !flags.crdOnly) {
    await waitForWebhook(client, (flags.waitTime ?? 300) * 1000, namespace, ctx.signal);
    ctx.term.out('Planwright webhook answers');
  }
  ctx.term.out(installedMessage(flags, namespace));
}

function installedMessage(flags: InitFlags, namespace: string): string {
  return flags.crdOnly
    ? 'kudo.dev CRDs installed'
    : `Planwright ${flags.upgrade ? 'upgraded' : 'installed'} in namespace ${namespace}`;
}

/** `--dry-run`: the objects (`-o yaml|json`), or one line each. */
function printDryRun(
  objects: readonly ApplyObject[],
  format: ReturnType<typeof outputFormat>,
  ctx: CliContext,
): void {
  if (format === 'json')
    ctx.term.write(formatObject({ apiVersion: 'v1', kind: 'List', items: objects }, 'json'));
  else if (format === 'yaml')
    ctx.term.write(objects.map((o) => `---\n${formatObject(o, 'yaml')}`).join(''));
  else for (const o of objects) ctx.term.out(`${objectLabel(o)} (dry run)`);
}

/**
 * Applies the installation, staged (CRDs and the Namespace first, webhook configurations last;
 * unchanged objects are not written again: --upgrade), and waits until the kudo.dev CRDs are
 * Established and served. A failure names the object as the output lists it.
 */
async function applyInstallation(
  resources: ResourceManager,
  objects: readonly ApplyObject[],
  ctx: CliContext,
): Promise<void> {
  try {
    await resources.applyAll(
      objects.map((desired) => ({ desired, known: true })),
      {
        signal: ctx.signal,
        onApplied: (e) => ctx.term.out(`✅ applied ${objectLabel(e.object)}`),
      },
    );
    await resources.waitEstablished(KUDO_CRDS, { signal: ctx.signal, served: true });
  } catch (err) {
    if (err instanceof ApplyError) {
      const failed = objects.find((o) => describeObject(o) === err.subject);
      throw new CliError(
        `applying ${failed ? objectLabel(failed) : err.subject}: ${apiMessage(err.cause)}`,
      );
    }
    if (err instanceof CrdNotEstablishedError) throw new CliError(err.message);
    throw err;
  }
}

async function preChecks(
  client: KubeClient,
  resources: ResourceManager,
  flags: InitFlags,
  namespace: string,
  ctx: CliContext,
): Promise<void> {
  if (!flags.upgrade) {
    const present: string[] = [];
    for (const name of KUDO_CRDS) if (await exists(resources, crd(name))) present.push(name);
    if (present.length > 0) {
      throw new CliError(
        `CRDs ${present.join(', ')} already installed. Did you mean to use --upgrade?`,
      );
    }
  }
  if (!flags.crdOnly) await otherInstallation(client, namespace, ctx);
  const ns = await resources.get({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
  if ((ns?.['status'] as { phase?: string } | undefined)?.phase === 'Terminating') {
    throw new CliError(
      `namespace ${namespace} is being deleted; wait until it is gone, or choose another with --namespace`,
    );
  }
  if (flags.certManager) {
    for (const name of CERT_MANAGER_CRDS) {
      if (!(await exists(resources, crd(name)))) {
        throw new CliError(
          `cert-manager is not installed (CRD ${name} not found). Install cert-manager first, or run init without --cert-manager (Planwright then manages its webhook certificate itself)`,
        );
      }
    }
    const deployments = await client
      .request<{ items?: unknown[] }>({
        path: '/apis/apps/v1/deployments',
        query: { labelSelector: 'app=cert-manager' },
      })
      .catch(() => ({ items: [] }));
    if ((deployments.items ?? []).length === 0) {
      ctx.term.err(
        'Warning: no Deployment labelled app=cert-manager found; certificates are issued only while cert-manager runs',
      );
    }
  }
}

/**
 * One installation reconciles a cluster's Instances: the one its webhook registration calls
 * (docs/replicas.md, "Two installations"). Another Deployment that answers is refused, naming
 * it; a `planwright start --install` is taken over (it serves webhooks only once the
 * registration changes, and the new replicas wait a lease duration before reconciling).
 */
async function otherInstallation(
  client: KubeClient,
  namespace: string,
  ctx: CliContext,
): Promise<void> {
  const found = await readRegistration(client, ctx.signal);
  if (found.state !== 'present') return;
  const target = found.target;
  const theirs = found.installation ?? (target.kind === 'service' ? target.namespace : undefined);
  if (theirs === namespace) return;
  if (!(await targetAnswers(client, target, ctx.signal))) return;
  if (target.kind === 'service') {
    throw new CliError(
      `Planwright is already installed in namespace ${theirs ?? target.namespace}: the webhook registration ${REGISTRATION_NAME} belongs to ${describeRegistration(found)}, which answers. ` +
        `Two installations would reconcile the same Instances. Upgrade that one (planwright init --upgrade --namespace ${theirs ?? target.namespace}), or uninstall it first.`,
    );
  }
  ctx.term.err(
    `The webhook registration ${REGISTRATION_NAME} calls ${describeTarget(target)}: this installation takes it over. ` +
      'That process stops reconciling once the registration changes (it serves webhooks only from then on); ' +
      'the new replicas wait one lease duration before they reconcile.',
  );
}

function crd(name: string): ApplyObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
  };
}

async function exists(resources: ResourceManager, obj: ApplyObject): Promise<boolean> {
  return (await resources.get(obj)) !== undefined;
}

async function verify(
  resources: ResourceManager,
  objects: readonly ApplyObject[],
  signal: AbortSignal,
): Promise<string[]> {
  const problems: string[] = [];
  for (const obj of objects) {
    let live: ApplyObject | undefined;
    try {
      live = await resources.get(obj, signal);
    } catch (err) {
      problems.push(`${objectLabel(obj)}: ${apiMessage(err)}`);
      continue;
    }
    if (!live) {
      problems.push(`${objectLabel(obj)} is missing`);
    } else if (obj.kind === 'CustomResourceDefinition' && !crdEstablished(live)) {
      problems.push(`${objectLabel(obj)} is not Established`);
    } else if (obj.kind === 'Deployment') {
      const available =
        (live['status'] as { availableReplicas?: number } | undefined)?.availableReplicas ?? 0;
      if (available < 1) problems.push(`${objectLabel(obj)} has no available replica`);
    }
  }
  return problems;
}

/** The webhook answers (see webhook-probe.ts), or a CliError saying what was seen last. */
async function waitForWebhook(
  client: KubeClient,
  timeoutMs: number,
  namespace: string,
  signal: AbortSignal,
): Promise<void> {
  const result = await waitForWebhooks(
    client,
    { namespace: 'default', timeoutMs, intervalMs: 1000 },
    signal,
  );
  if (result.answered) return;
  throw new CliError(
    `timeout waiting for the Planwright webhook to answer after ${Math.round(timeoutMs / 1000)} s (last: ${result.last}). ` +
      `Check the pods: kubectl get pods -n ${namespace}; the webhook answers only from pods ` +
      `that run Planwright's image (nodes simulated by kwok run none, so --wait cannot succeed there)`,
  );
}
