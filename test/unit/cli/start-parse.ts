// `planwright start`'s flags as commander reads them, and the message of a CliError a call
// throws: for the tests of the flag table, the tenancy and the tuning flags.
import { expect } from '@jest/globals';
import { Command } from 'commander';
import { startFlagOptions } from '../../../src/cli/commands/start.ts';
import { CliError } from '../../../src/cli/errors.ts';
import type { StartFlags } from '../../../src/cli/start-flags.ts';

export function parseStartFlags(args: readonly string[]): StartFlags {
  const command = new Command('start').exitOverride();
  for (const option of startFlagOptions()) command.addOption(option);
  command.parse(['node', 'start', ...args]);
  return command.opts<StartFlags>();
}

/** The message of the CliError `run` throws (a test failure if it throws none or another). */
export function cliFailure(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    return (err as Error).message;
  }
  throw new Error('no error');
}
