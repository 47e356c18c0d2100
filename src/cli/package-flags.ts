/**
 * The flags install, upgrade and `package list` share for finding a package, and the
 * parameter flags of install, update and upgrade (parsed by the package library).
 */
import type { Command } from 'commander';
import { ParameterInputError, readParameterInput } from '../kudo/package/index.ts';
import type { CliContext, GlobalOptions } from './context.ts';
import { CliError } from './errors.ts';
import type { ResolveRequest } from './installer.ts';
import { collect } from './options.ts';
import { repositoryFor } from './repositories.ts';

export interface ParameterFlags {
  readonly parameter?: string[];
  readonly parameterFile?: string[];
}

export interface PackageSourceFlags {
  readonly repo?: string;
  readonly appVersion?: string;
  readonly operatorVersion?: string;
}

export function addParameterOptions(command: Command): Command {
  return command
    .option(
      '-p, --parameter <name=value>',
      'The parameter name and value separated by "=" (repeatable)',
      collect,
    )
    .option(
      '-P, --parameter-file <file>',
      'A YAML file with parameter names and values (repeatable; -p wins)',
      collect,
    );
}

export function addPackageSourceOptions(command: Command): Command {
  return command
    .option('--repo <name>', 'Name of the repository in repositories.yaml to use')
    .option('--app-version <version>', 'A specific app version in the repository (default: newest)')
    .option(
      '--operator-version <version>',
      'A specific operator version in the repository (default: newest)',
    );
}

/**
 * What the package-source flags put into a ResolveRequest: the same for install, upgrade and
 * `package list`, so one flag means one thing in all three.
 */
export function packageSource(
  ctx: CliContext,
  global: GlobalOptions,
  flags: PackageSourceFlags,
): Pick<ResolveRequest, 'appVersion' | 'operatorVersion' | 'cwd' | 'repository' | 'signal'> {
  return {
    appVersion: flags.appVersion,
    operatorVersion: flags.operatorVersion,
    cwd: ctx.cwd,
    repository: () => repositoryFor(ctx, global, flags.repo),
    signal: ctx.signal,
  };
}

/** -P files merged in order, then -p; KUDO's `could not parse parameters: …` on errors. */
export async function parameterValues(flags: ParameterFlags): Promise<Record<string, string>> {
  try {
    return await readParameterInput({
      parameters: flags.parameter ?? [],
      parameterFiles: flags.parameterFile ?? [],
    });
  } catch (err) {
    if (err instanceof ParameterInputError) throw new CliError(err.message, { cause: err });
    throw err;
  }
}
