/** `uninstall --instance X`: deletes the Instance; cleanup is the controller's (finalizer, cleanup plan). */
import { sleepOrThrow } from '../../runtime/index.ts';
import { Command } from 'commander';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { apiMessage, isNotFound } from '../kudo-api.ts';
import { addWaitOptions, globals, type WaitFlags } from '../options.ts';

export function uninstallCommand(ctx: CliContext): Command {
  return addWaitOptions(
    new Command('uninstall')
      .description('Uninstall an instance; its operator and operator version stay installed.')
      .argument('[args...]')
      .option('--instance <name>', 'The instance name.'),
    'the instance to be deleted',
  ).action(async (args: string[], flags: WaitFlags & { instance?: string }, command: Command) => {
    if (args.length > 0) {
      throw new CliError(
        'expecting no arguments provided for uninstall. Only named flags are accepted',
      );
    }
    if (!flags.instance) throw new CliError('required flag(s) "instance" not set');
    const { api, namespace } = await ctx.cluster(globals(command));
    const name = flags.instance;
    const instance = await api.getInstance(namespace, name);
    if (!instance) {
      throw new CliError(
        `instance ${name} in namespace ${namespace} does not exist in the cluster`,
      );
    }
    try {
      await api.deleteInstance(namespace, name);
    } catch (err) {
      if (!isNotFound(err))
        throw new CliError(`deleting instance ${namespace}/${name}: ${apiMessage(err)}`);
    }
    if (flags.wait) {
      const deadline = Date.now() + (flags.waitTime ?? 300) * 1000;
      while (await api.getInstance(namespace, name)) {
        if (Date.now() >= deadline) {
          throw new CliError(
            `timeout waiting for instance ${namespace}/${name} to be deleted; see its status with ` +
              `\`${ctx.commandName} plan status --instance ${name} -n ${namespace}\` (a cleanup plan may still run)`,
          );
        }
        await sleepOrThrow(1000, ctx.signal);
      }
    }
    ctx.term.out(`instance.kudo.dev/v1beta1/${name} deleted`);
  });
}
