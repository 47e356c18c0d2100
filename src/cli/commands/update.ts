/** `update --instance X -p …`: one merge patch of spec.parameters; the webhook decides the plan. */
import { Command } from 'commander';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { apiMessage } from '../kudo-api.ts';
import { addWaitOptions, globals, type WaitFlags } from '../options.ts';
import { addParameterOptions, parameterValues, type ParameterFlags } from '../package-flags.ts';
import { waitForScheduledPlan } from '../wait.ts';

interface UpdateFlags extends WaitFlags, ParameterFlags {
  readonly instance?: string;
}

export function updateCommand(ctx: CliContext): Command {
  const command = new Command('update')
    .description('Update the parameters of an installed instance.')
    .argument('[args...]')
    .option('--instance <name>', 'The instance name.');
  addParameterOptions(command);
  addWaitOptions(command, 'the plan the update triggers to finish');
  return command.action(async (args: string[], flags: UpdateFlags, cmd: Command) => {
    const params = await parameterValues(flags);
    if (args.length !== 0) {
      throw new CliError(
        'expecting no arguments provided for update. Only named flags are accepted',
      );
    }
    if (!flags.instance) {
      throw new CliError(
        '--instance flag has to be provided to indicate which instance you want to update',
      );
    }
    if (Object.keys(params).length === 0) {
      throw new CliError(
        'need to specify at least one parameter to override via -p otherwise there is nothing to update',
      );
    }
    const { api, namespace } = await ctx.cluster(globals(cmd));
    const name = flags.instance;
    if (!(await api.getInstance(namespace, name))) {
      throw new CliError(
        `instance ${name} in namespace ${namespace} does not exist in the cluster`,
      );
    }
    let patched;
    try {
      patched = await api.patchInstance(namespace, name, { spec: { parameters: params } });
    } catch (err) {
      throw new CliError(`updating instance ${name}: ${apiMessage(err)}`);
    }
    ctx.term.out(`Instance ${name} was updated.`);
    if (!flags.wait) return;
    const run = await waitForScheduledPlan(ctx, api, patched, { waitTime: flags.waitTime });
    ctx.term.out(`plan ${run.name ?? ''} of instance ${namespace}/${name} is COMPLETE`);
  });
}
