/** `install <package>`: Operator, OperatorVersion (and dependencies) and an Instance. */
import { Command } from 'commander';
import type { CliContext } from '../context.ts';
import type { ResolvedDependencies } from '../../kudo/package/index.ts';
import { CliError } from '../errors.ts';
import {
  checkKubernetesVersion,
  installedRootVersion,
  installOperators,
  missingRequiredParameters,
  resolvePackage,
} from '../installer.ts';
import { apiMessage, type KudoApi } from '../kudo-api.ts';
import { namespaceObject } from '../namespace.ts';
import { addWaitOptions, globals, type WaitFlags } from '../options.ts';
import {
  addPackageSourceOptions,
  addParameterOptions,
  packageSource,
  parameterValues,
  type PackageSourceFlags,
  type ParameterFlags,
} from '../package-flags.ts';
import { waitForScheduledPlan } from '../wait.ts';

interface InstallFlags extends WaitFlags, ParameterFlags, PackageSourceFlags {
  readonly instance?: string;
  readonly skipInstance?: boolean;
  readonly createNamespace?: boolean;
  readonly inCluster?: boolean;
}

export function installCommand(ctx: CliContext): Command {
  const command = new Command('install')
    .description(
      'Install an operator package: a folder, a .tgz, a URL of a .tgz, or a name in a repository.',
    )
    .argument('[package...]')
    .option('--instance <name>', 'The Instance name (default: <operator>-instance)')
    .option('--skip-instance', 'Install the Operator and OperatorVersion only', false)
    .option(
      '--create-namespace',
      "Create the namespace (from the package's namespace manifest, if any)",
      false,
    )
    .option(
      '--in-cluster',
      'Resolve the package from OperatorVersions already in the namespace',
      false,
    );
  addParameterOptions(command);
  addPackageSourceOptions(command);
  addWaitOptions(command, 'the deploy plan to finish');
  return command.action(async (args: string[], flags: InstallFlags, cmd: Command) => {
    const params = await parameterValues(flags);
    if (args.length !== 1) {
      throw new CliError('expecting exactly one argument - name of the package or path to install');
    }
    if (flags.inCluster && (flags.skipInstance || flags.repo)) {
      throw new CliError('--in-cluster cannot be used with --skip-instance or --repo');
    }
    const global = globals(cmd);
    const { api, namespace } = await ctx.cluster(global);
    const name = args[0] ?? '';
    const resolved = await resolvePackage(api, {
      name,
      ...packageSource(ctx, global, flags),
      namespace,
      inCluster: flags.inCluster ?? false,
    });
    const root = resolved.root;
    const instance = root.resources.instance;
    if (flags.instance) instance.metadata.name = flags.instance;
    instance.spec = { ...instance.spec, parameters: params };
    const instanceName = instance.metadata.name ?? '';
    if (!flags.skipInstance) {
      const missing = missingRequiredParameters(root.resources.operatorVersion, params);
      if (missing.length > 0) {
        throw new CliError(`missing required parameters during installation: ${missing.join(',')}`);
      }
    }
    await checkKubernetesVersion(api, root);
    if (flags.createNamespace) {
      try {
        await api.createNamespace(namespaceObject(root, namespace, instanceName, params));
      } catch (err) {
        throw new CliError(`failed to create namespace ${namespace}: ${apiMessage(err)}`);
      }
      ctx.term.out(`namespace ${namespace} created`);
    }
    if (!flags.skipInstance)
      await refuseExistingInstance(ctx, api, resolved, namespace, instanceName);
    await installOperators(api, resolved.creationOrder, namespace, ctx.term);
    if (flags.skipInstance) return;
    let created;
    try {
      created = await api.create('instances', namespace, instance);
    } catch (err) {
      throw new CliError(
        `failed to install instance ${namespace}/${instanceName}: ${apiMessage(err)}`,
      );
    }
    ctx.term.out(`instance ${namespace}/${instanceName} created`);
    if (!flags.wait) return;
    await waitForScheduledPlan(ctx, api, created, {
      planName: 'deploy',
      waitTime: flags.waitTime,
    });
    ctx.term.out(`instance ${namespace}/${instanceName} ready`);
  });
}

/**
 * An Instance of the name exists: fail before anything is written (KUDO created the Operator
 * and OperatorVersion first and failed after). When there was nothing to create, the output is
 * KUDO's: its `operatorversion … already installed` line, then the error. (The namespace is
 * created before this check as KUDO does; it cannot be new if the Instance is in it.)
 */
async function refuseExistingInstance(
  ctx: CliContext,
  api: KudoApi,
  resolved: ResolvedDependencies,
  namespace: string,
  instanceName: string,
): Promise<void> {
  if (!(await api.getInstance(namespace, instanceName))) return;
  const installed = await installedRootVersion(api, resolved.creationOrder, namespace);
  if (installed !== undefined) {
    ctx.term.out(`operatorversion ${namespace}/${installed} already installed`);
  }
  throw new CliError(
    `cannot install instance '${instanceName}' because an instance of that name already exists in namespace ${namespace}`,
  );
}
