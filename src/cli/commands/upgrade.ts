/** `upgrade <package> --instance X`: a newer OperatorVersion for an existing Instance. */
import { Command } from 'commander';
import type { OperatorVersion } from '../../kudo/api/index.ts';
import { compareVersionStrings } from '../../kudo/package/index.ts';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { requireOperatorVersion } from '../instances.ts';
import { installOperators, resolvePackage } from '../installer.ts';
import { apiMessage } from '../kudo-api.ts';
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

interface UpgradeFlags extends WaitFlags, ParameterFlags, PackageSourceFlags {
  readonly instance?: string;
}

function newer(next: string, current: string): boolean {
  try {
    return compareVersionStrings(next, current) > 0;
  } catch (err) {
    throw new CliError(`cannot compare versions ${next} and ${current}: ${(err as Error).message}`);
  }
}

export function upgradeCommand(ctx: CliContext): Command {
  const command = new Command('upgrade')
    .description('Upgrade an instance to a newer version of its operator package.')
    .argument('[package...]')
    .option('--instance <name>', 'The instance name.');
  addParameterOptions(command);
  addPackageSourceOptions(command);
  addWaitOptions(command, 'the plan the upgrade triggers to finish');
  return command.action(async (args: string[], flags: UpgradeFlags, cmd: Command) => {
    const params = await parameterValues(flags);
    if (args.length !== 1) {
      throw new CliError('expecting exactly one argument - name of the package or path to upgrade');
    }
    if (!flags.instance) {
      throw new CliError('please use --instance and specify instance name. It cannot be empty');
    }
    const global = globals(cmd);
    const { api, namespace } = await ctx.cluster(global);
    const name = flags.instance;
    const resolved = await resolvePackage(api, {
      name: args[0] ?? '',
      ...packageSource(ctx, global, flags),
      namespace,
    });
    const instance = await api.getInstance(namespace, name);
    if (!instance) {
      throw new CliError(
        `instance ${name} in namespace ${namespace} does not exist in the cluster`,
      );
    }
    const current: OperatorVersion = await requireOperatorVersion(api, instance);
    const next = resolved.root.resources.operatorVersion;
    const nextVersion = next.spec?.version ?? '';
    const currentVersion = current.spec?.version ?? '';
    if (!newer(nextVersion, currentVersion)) {
      throw new CliError(
        `upgraded version ${nextVersion} is the same or smaller as current version ${currentVersion} -> not upgrading`,
      );
    }
    const operatorName = resolved.root.resources.operator.metadata.name ?? '';
    if (!(await api.getOperator(namespace, operatorName))) {
      throw new CliError(
        `operator ${namespace}/${operatorName} does not exist: install the operator first (\`${ctx.commandName} install\`), then upgrade its instances`,
      );
    }
    await installOperators(api, resolved.creationOrder, namespace, ctx.term);
    const ovName =
      (await api.list<OperatorVersion>('operatorversions', namespace)).find(
        (ov) =>
          ov.spec?.operator?.name === next.spec?.operator?.name && ov.spec?.version === nextVersion,
      )?.metadata.name ??
      next.metadata.name ??
      '';
    let patched;
    try {
      patched = await api.patchInstance(namespace, name, {
        spec: {
          operatorVersion: { name: ovName },
          ...(Object.keys(params).length > 0 ? { parameters: params } : {}),
        },
      });
    } catch (err) {
      throw new CliError(`updating instance ${name}: ${apiMessage(err)}`);
    }
    ctx.term.out(`instance ${namespace}/${name} updated`);
    if (!flags.wait) return;
    const run = await waitForScheduledPlan(ctx, api, patched, { waitTime: flags.waitTime });
    ctx.term.out(`plan ${run.name ?? ''} of instance ${namespace}/${name} is COMPLETE`);
  });
}
