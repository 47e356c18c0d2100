/** `repo add|remove|list|context|index` and `search`: package repositories. */
import { existsSync, statSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import {
  indexDirectory,
  parseRepositoryIndex,
  RepositoryClient,
  searchIndex,
  type RepositoryStore,
  serializeRepositoryIndex,
} from '../../kudo/package/index.ts';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { renderTable } from '../output/table.ts';
import { globals } from '../options.ts';
import { repositoryFor, repositoryStore } from '../repositories.ts';

function exactly(args: readonly string[], n: number, what: string): void {
  if (args.length !== n)
    throw new CliError(
      `expecting exactly ${n === 1 ? 'one argument' : `${n} arguments`} - ${what}`,
    );
}

/** A `repo` subcommand of exactly one repository name: `act` on the store, then say `done`. */
function byName(
  ctx: CliContext,
  command: string,
  description: string,
  act: (store: RepositoryStore, name: string) => Promise<unknown>,
  done: (name: string) => string,
): Command {
  return new Command(command)
    .description(description)
    .argument('[args...]')
    .action(async (args: string[], _flags: unknown, cmd: Command) => {
      exactly(args, 1, 'name of the repository');
      const name = args[0] ?? '';
      await act(repositoryStore(ctx, globals(cmd)), name);
      ctx.term.out(done(name));
    });
}

export function repoCommand(ctx: CliContext): Command {
  return new Command('repo')
    .description('Manage the package repositories of repositories.yaml ($KUDO_HOME/repository).')
    .addCommand(
      new Command('add')
        .description('Add a repository (its index.yaml is downloaded to check it).')
        .argument('[args...]')
        .action(async (args: string[], _flags: unknown, cmd: Command) => {
          exactly(args, 2, 'name and url of the repository');
          const [name = '', url = ''] = args;
          await new RepositoryClient({ name, url }).downloadIndex(ctx.signal);
          await repositoryStore(ctx, globals(cmd)).add({ name, url });
          ctx.term.out(`"${name}" has been added to your repositories`);
        }),
    )
    .addCommand(
      byName(
        ctx,
        'remove',
        'Remove a repository.',
        (store, name) => store.remove(name),
        (name) => `"${name}" has been removed from your repositories`,
      ),
    )
    .addCommand(
      new Command('list')
        .description('List the repositories; the current one is marked with *.')
        .action(async (_flags: unknown, cmd: Command) => {
          const file = await repositoryStore(ctx, globals(cmd)).load();
          const name = (r: { name: string }): string =>
            r.name === file.context ? `*${r.name}` : r.name;
          ctx.term.write(
            renderTable([['NAME', 'URL'], ...file.repositories.map((r) => [name(r), r.url])]),
          );
        }),
    )
    .addCommand(
      byName(
        ctx,
        'context',
        'Make a repository the current one.',
        (store, name) => store.setContext(name),
        (name) => `"${name}" is now the current repository`,
      ),
    )
    .addCommand(indexCommand(ctx));
}

/** `repo index`: index.yaml for the packages of a folder. */
function indexCommand(ctx: CliContext): Command {
  return new Command('index')
    .description('Write index.yaml for the .tgz packages of a folder.')
    .argument('[args...]')
    .option('--url <url>', 'URL the packages will be served from', 'http://localhost/')
    .option('--merge <file>', 'An existing index.yaml (path or URL) to merge into the new one')
    .option('-w, --overwrite', 'Overwrite an existing index.yaml', false)
    .action(async (args: string[], flags: { url: string; merge?: string; overwrite: boolean }) => {
      exactly(args, 1, 'directory of the packages');
      const dir = resolve(ctx.cwd, args[0] ?? '');
      if (!existsSync(dir) || !statSync(dir).isDirectory())
        throw new CliError(`${dir} is not a folder`);
      const target = join(dir, 'index.yaml');
      if (existsSync(target) && !flags.overwrite) {
        throw new CliError(`index file ${target} exists; use --overwrite (-w) to replace it`);
      }
      const merge = flags.merge
        ? parseRepositoryIndex(await readFile(resolve(ctx.cwd, flags.merge), 'utf8'), flags.merge)
        : undefined;
      const { index, problems } = await indexDirectory(dir, { url: flags.url, merge });
      for (const p of problems) ctx.term.err(`Warning: ${p}`);
      await writeFile(target, serializeRepositoryIndex(index));
      ctx.term.out(`index ${target} created`);
    });
}

export function searchCommand(ctx: CliContext): Command {
  return new Command('search')
    .description('Search the repository for operators whose name contains the text.')
    .argument('[text...]')
    .option('--repo <name>', 'Name of the repository in repositories.yaml to use')
    .option('-a, --all-versions', 'Show all versions, not only the newest', false)
    .action(
      async (args: string[], flags: { repo?: string; allVersions: boolean }, cmd: Command) => {
        if (args.length > 1)
          throw new CliError('expecting at most one argument - the text to search for');
        const config = await repositoryFor(ctx, globals(cmd), flags.repo);
        const index = await new RepositoryClient(config).downloadIndex(ctx.signal);
        const found = searchIndex(index, args[0] ?? '', flags.allVersions);
        if (found.length === 0) {
          ctx.term.out('no operators found');
          return;
        }
        ctx.term.write(
          renderTable([
            ['Name', 'Operator Version', 'App Version'],
            ...found.map((f) => [f.name, f.operatorVersion, f.appVersion]),
          ]),
        );
      },
    );
}
