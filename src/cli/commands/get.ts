/** `get instances|operators|operatorversions|all` in one namespace. */
import { Command } from 'commander';
import type { Instance, Operator, OperatorVersion } from '../../kudo/api/index.ts';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { apiMessage, type KudoResource } from '../kudo-api.ts';
import { formatObjects, outputFormat } from '../output/objects.ts';
import { renderTable } from '../output/table.ts';
import { renderTree } from '../output/tree.ts';
import { shardOwners } from '../shard-owners.ts';
import { globals } from '../options.ts';

const KINDS = ['instances', 'operators', 'operatorversions', 'all'] as const;
const ONE_OF = '"instances, operators, operatorversions or all"';

/** List items carry no apiVersion/kind; -o yaml|json shows them as objects of their kind. */
function typed<T extends object>(items: T[], kind: string): T[] {
  return items.map((item) => ({ apiVersion: 'kudo.dev/v1beta1', kind, ...item }));
}

export function getCommand(ctx: CliContext): Command {
  return new Command('get')
    .description('Show all available instances, operators, operatorversions or all of them.')
    .argument('[kind...]', `one of ${ONE_OF}`)
    .option(
      '-o, --output <format>',
      'Output format for command results (yaml|json; wide: instances with their shard and the replica reconciling it)',
    )
    .action(async (args: string[], flags: { output?: string }, command: Command) => {
      const wide = flags.output === 'wide';
      const format = wide ? undefined : outputFormat(flags.output);
      if (wide && args[0] !== 'instances') {
        throw new CliError('-o wide is only supported for instances');
      }
      if (args.length !== 1) throw new CliError(`expecting exactly one argument - ${ONE_OF}`);
      const kind = args[0] as (typeof KINDS)[number];
      if (!KINDS.includes(kind)) {
        throw new CliError(`expecting one of ${ONE_OF} and not "${args[0] ?? ''}"`);
      }
      const { api, namespace, client } = await ctx.cluster(globals(command));
      const list = async <T>(resource: KudoResource): Promise<T[]> => {
        try {
          return await api.list<T>(resource, namespace);
        } catch (err) {
          throw new CliError(`failed to retrieve ${resource}: ${apiMessage(err)}`);
        }
      };
      if (kind !== 'all') {
        const kindName = {
          instances: 'Instance',
          operators: 'Operator',
          operatorversions: 'OperatorVersion',
        }[kind];
        const items = typed(await list<{ metadata: { name?: string } }>(kind), kindName);
        if (format) return ctx.term.write(formatObjects(items, format));
        if (wide) {
          const rows = await shardOwners(client, items);
          ctx.term.write(
            renderTable([
              ['NAME', 'SHARD', 'REPLICA'],
              ...rows.map((r) => [r.name, r.shard, r.owner]),
            ]),
          );
          return;
        }
        ctx.term.out(`List of current installed ${kind} in namespace "${namespace}":`);
        ctx.term.write(`${renderTree(items.map((i) => ({ text: i.metadata.name ?? '' })))}\n`);
        return;
      }
      const operators = typed(await list<Operator>('operators'), 'Operator');
      const versions = typed(await list<OperatorVersion>('operatorversions'), 'OperatorVersion');
      const instances = typed(await list<Instance>('instances'), 'Instance');
      if (format) {
        return ctx.term.write(formatObjects([...operators, ...versions, ...instances], format));
      }
      const tree = operators.map((op) => ({
        text: op.metadata.name ?? '',
        children: versions
          .filter((ov) => ov.spec?.operator?.name === op.metadata.name)
          .map((ov) => ({
            text: ov.metadata.name ?? '',
            children: instances
              .filter((i) => i.spec?.operatorVersion?.name === ov.metadata.name)
              .map((i) => ({ text: i.metadata.name ?? '' })),
          })),
      }));
      ctx.term.out(
        `List of current installed operators including versions and instances in namespace "${namespace}":`,
      );
      ctx.term.write(`${renderTree(tree)}\n`);
    });
}
