/**
 * The command tree of `planwright` and `kubectl-kudo` (the same verbs; kubectl runs the latter
 * as `kubectl kudo`). Flags are accepted before and after positional arguments, because kuttl
 * appends `--namespace <ns>` to the commands of KUDO's test cases.
 */
import { Command, CommanderError, Option } from 'commander';
import type { CliContext } from './context.ts';
import { ChildExitError, CliError, EXIT_ERROR, EXIT_OK } from './errors.ts';
import { booleanValue, nonNegativeInt } from './options.ts';
import { cliVersion } from './commands/version.ts';
import { BUILT_IN_VERBS, modulesFor, type VerbModule } from './verbs.ts';

export interface BuildProgramOptions {
  /** The executable's verbs beyond the built-in ones (`start`). */
  readonly extra?: readonly VerbModule[];
  /**
   * The command line about to run: only its verb's module is loaded (verbs.ts). Without it,
   * every verb is.
   */
  readonly argv?: readonly string[];
}

export async function buildProgram(
  ctx: CliContext,
  name: string,
  options: BuildProgramOptions = {},
): Promise<Command> {
  const program = new Command(name)
    .description(
      'Planwright: a declarative operator engine speaking the KUDO API. ' +
        'Install, update, upgrade and watch KUDO operator packages.',
    )
    .version(cliVersion(), '--cli-version', 'output the CLI version')
    .option(
      '-n, --namespace <namespace>',
      'Target namespace for the object (default: the current context\'s, else "default")',
    )
    .option(
      '--kubeconfig <path>',
      'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)',
    )
    .option('--home <dir>', 'Location of your KUDO config (default: $KUDO_HOME, else ~/.kudo)')
    .addOption(
      new Option(
        '--request-timeout <seconds>',
        'Request timeout value, in seconds; 0 means no timeout',
      ).argParser(nonNegativeInt('--request-timeout')),
    )
    .addOption(
      new Option('--validate-install [bool]', 'Validate the kudo.dev CRDs before running a command')
        .default(true)
        .argParser(booleanValue('--validate-install')),
    )
    .addOption(
      new Option('-v, --v <level>', 'Log level for verbose output').argParser(nonNegativeInt('-v')),
    );
  const all = [...BUILT_IN_VERBS, ...(options.extra ?? [])];
  const modules = options.argv ? modulesFor(all, options.argv, program.options) : all;
  // One after another: they share most of their modules, and the order is --help's.
  for (const module of modules) {
    for (const command of await module.load(ctx)) program.addCommand(command);
  }
  configure(program, ctx);
  return program;
}

/** Errors are ours to print (`Error: …`, exit 255), never commander's usage text. */
function configure(command: Command, ctx: CliContext): void {
  command
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.term.write(text),
      writeErr: (text) => ctx.term.err(text.replace(/\n$/, '')),
      outputError: () => undefined,
    })
    .showHelpAfterError(false)
    .allowExcessArguments(false);
  for (const sub of command.commands) configure(sub, ctx);
}

/** Parses and runs; resolves with the exit code. Never throws. */
export async function runProgram(
  program: Command,
  argv: readonly string[],
  ctx: CliContext,
): Promise<number> {
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT_OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.exitCode === 0
      ) {
        return EXIT_OK;
      }
      if (err.code === 'commander.executeSubCommandAsync' || err.code === 'commander.help')
        return EXIT_OK;
      ctx.term.err(`Error: ${err.message.replace(/^error: /, '')}`);
      return EXIT_ERROR;
    }
    if (ctx.signal.aborted && err instanceof Error && err.name === 'AbortError') {
      ctx.term.err('Error: interrupted');
      return 130;
    }
    ctx.term.err(`Error: ${await describe(err)}`);
    return err instanceof ChildExitError ? err.exitCode : EXIT_ERROR;
  } finally {
    ctx.close();
  }
}

async function describe(err: unknown): Promise<string> {
  if (err instanceof CliError) return err.message;
  // Loaded here, on the way out: a command that never reads a package does not load the
  // package library to start.
  const { PackageError } = await import('../kudo/package/index.ts');
  if (err instanceof PackageError) return err.message;
  if (err instanceof Error) {
    const parts: string[] = [];
    for (let e: unknown = err; e instanceof Error && parts.length < 4; e = e.cause) {
      const code = (e as NodeJS.ErrnoException).code;
      parts.push(code && !e.message.includes(code) ? `${e.message} (${code})` : e.message);
    }
    return parts.join(': ');
  }
  return String(err);
}
