/** `version`: the CLI's version (package.json of this checkout or installation). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { installationRoot } from '../../installation.ts';
import type { CliContext } from '../context.ts';

/** The version in the package.json of the checkout or installation running this. */
export function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(join(installationRoot(), 'package.json'), 'utf8')) as {
    version?: string;
  };
  return pkg.version ?? 'unknown';
}

export function versionCommand(ctx: CliContext): Command {
  return new Command('version').description('Print the version information').action(() => {
    ctx.term.out(
      `Planwright CLI version ${cliVersion()} (kubectl kudo compatible, kudo.dev/v1beta1)`,
    );
  });
}
