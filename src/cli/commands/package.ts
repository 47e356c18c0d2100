/** `package create|verify|list`: working with package folders and archives, no cluster needed. */
import { existsSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { packageArchive, readPackageFolder } from '../../kudo/package/index.ts';
import { parseParamChecks, verifyPackage, type VerifyResult } from '../../kudo/verify/index.ts';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { formatObject, outputFormat, type OutputFormat } from '../output/objects.ts';
import { renderTable } from '../output/table.ts';
import { collect, globals } from '../options.ts';
import { schemaWarnings, type RenderedTemplate } from '../verify-schema.ts';
import { listCommand } from './package-list.ts';
import { addCommand, newCommand } from './package-generate.ts';

const ONE_FOLDER = 'expecting exactly one argument - directory of the operator or name of package';

export function packageCommand(ctx: CliContext): Command {
  const pkg = new Command('package').description('Package, verify and inspect operator packages.');
  pkg.addCommand(addCommand(ctx));
  pkg.addCommand(createCommand(ctx));
  pkg.addCommand(newCommand(ctx));
  pkg.addCommand(verifyCommand(ctx));
  pkg.addCommand(listCommand(ctx));
  return pkg;
}

/** KUDO's verify output: a Warnings table, an Errors table, then `package is valid`. */
function printVerifyResult(
  ctx: CliContext,
  result: VerifyResult,
  format: OutputFormat | undefined,
): void {
  if (format) {
    ctx.term.write(
      formatObject(
        { errors: result.errors, warnings: result.warnings, valid: result.valid },
        format,
      ),
    );
    return;
  }
  if (result.warnings.length > 0) {
    ctx.term.write(renderTable([['Warnings'], ...result.warnings.map((w) => [w])]));
  }
  if (result.errors.length > 0) {
    ctx.term.write(renderTable([['Errors'], ...result.errors.map((e) => [e])]));
  }
  if (result.valid) ctx.term.out('package is valid');
}

function verificationFailed(result: VerifyResult): CliError {
  return new CliError(`found ${result.errors.length} package verification errors`);
}

function createCommand(ctx: CliContext): Command {
  return new Command('create')
    .description('Package a local operator folder into a reproducible .tgz (verified first).')
    .argument('[dir...]')
    .option('-d, --destination <dir>', 'Location to write the package.', '.')
    .option('-w, --overwrite', 'Overwrite existing package.', false)
    .option('-o, --output <format>', 'Output format for command results, NOT the package format.')
    .action(
      async (
        args: string[],
        flags: { destination: string; overwrite: boolean; output?: string },
      ) => {
        const format = outputFormat(flags.output);
        if (args.length !== 1) throw new CliError(ONE_FOLDER);
        const archive = await packageArchive(resolve(ctx.cwd, args[0] ?? ''));
        const result = verifyPackage(archive.definition);
        printVerifyResult(ctx, result, format);
        if (!result.valid) throw verificationFailed(result);
        const destination = resolve(ctx.cwd, flags.destination);
        if (!existsSync(destination) || !statSync(destination).isDirectory()) {
          throw new CliError(
            `destination ${destination} is not an existing folder; create it first`,
          );
        }
        const target = join(destination, archive.fileName);
        if (existsSync(target) && !flags.overwrite) {
          throw new CliError(
            `package ${target} already exists; use --overwrite (-w) to replace it`,
          );
        }
        await writeFile(target, archive.bytes);
        if (!format) ctx.term.out(`Package created: ${target}`);
      },
    );
}

function verifyCommand(ctx: CliContext): Command {
  return new Command('verify')
    .description(
      "Verify a package folder: every error and warning of KUDO's verifier, and fields the " +
        "kubeconfig's cluster does not know (when there is a kubeconfig).",
    )
    .argument('[dir...]')
    .option('-o, --output <format>', 'Output format (yaml|json)')
    .option(
      '--param-checks <checks>',
      'Extra style warnings: display,hint,desc,type,hasgroup,groups,all (comma-separated, repeatable)',
      collect,
    )
    .action(
      async (
        args: string[],
        flags: { output?: string; paramChecks?: string[] },
        command: Command,
      ) => {
        const format = outputFormat(flags.output);
        if (args.length !== 1) throw new CliError(ONE_FOLDER);
        let paramChecks;
        try {
          paramChecks = parseParamChecks(
            (flags.paramChecks ?? []).flatMap((v) => v.split(',')).filter(Boolean),
          );
        } catch (err) {
          throw new CliError((err as Error).message);
        }
        const pkg = await readPackageFolder(resolve(ctx.cwd, args[0] ?? ''));
        const rendered: RenderedTemplate[] = [];
        const offline = verifyPackage(pkg, {
          paramChecks,
          onRendered: (template, objects) => rendered.push({ template, objects }),
        });
        const extra = await schemaWarnings(ctx, globals(command), rendered);
        const result = { ...offline, warnings: [...offline.warnings, ...extra] };
        printVerifyResult(ctx, result, format);
        if (!result.valid) throw verificationFailed(result);
      },
    );
}
