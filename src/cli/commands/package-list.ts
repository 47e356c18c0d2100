/**
 * `package list parameters|plans|tasks`: what KUDO's CLI printed for a package, byte for byte
 * (uitable tables, treeprint trees, KUDO's sort orders and empty-package messages), except the
 * flag fixes docs/cli.md lists.
 */
import { Command } from 'commander';
import type { OperatorVersion, Task } from '../../kudo/api/index.ts';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { PackageError, packageResolver } from '../../kudo/package/index.ts';
import { repositoryFor } from '../repositories.ts';
import { findOperatorFolder } from '../operator-folder.ts';
import { globals } from '../options.ts';
import { renderTree, type TreeNode } from '../output/tree.ts';
import { renderUiTable } from '../output/uitable.ts';
import { addPackageSourceOptions, type PackageSourceFlags } from '../package-flags.ts';

const ONE_PACKAGE = 'expecting exactly one argument - directory of the operator or name of package';

interface ParameterListFlags extends PackageSourceFlags {
  readonly descriptions?: boolean;
  readonly names?: boolean;
  readonly required?: boolean;
}

interface PlanListFlags extends PackageSourceFlags {
  readonly withTasks?: boolean;
}

export function listCommand(ctx: CliContext): Command {
  const list = new Command('list').description('list context from an operator package');
  list.addCommand(parametersCommand(ctx));
  list.addCommand(plansCommand(ctx));
  list.addCommand(tasksCommand(ctx));
  return list;
}

/** KUDO's wording of the step that failed: reading the files, or making the API objects. */
const STAGE_PREFIX = {
  files: 'while parsing package files: ',
  resources: 'while getting package resources: ',
} as const;

/**
 * The package's OperatorVersion, resolved like install (folder, .tgz, URL, repository) but
 * without dependencies and accepting a missing operatorVersion, as KUDO's `packageDiscovery`.
 */
async function operatorVersionOf(
  ctx: CliContext,
  cmd: Command,
  name: string,
  flags: PackageSourceFlags,
): Promise<OperatorVersion> {
  const global = globals(cmd);
  const resolver = packageResolver({
    cwd: ctx.cwd,
    repository: () => repositoryFor(ctx, global, flags.repo),
    allowMissingOperatorVersion: true,
  });
  try {
    const resolved = await resolver.resolve(
      name,
      flags.appVersion ?? '',
      flags.operatorVersion ?? '',
      ctx.signal,
    );
    return resolved.resources.operatorVersion;
  } catch (err) {
    if (!(err instanceof PackageError)) throw err;
    const stage = err.stage ? STAGE_PREFIX[err.stage] : '';
    throw new CliError(
      `failed to resolve package files for operator: ${name}: ${stage}${err.message}`,
      { cause: err },
    );
  }
}

function parametersCommand(ctx: CliContext): Command {
  const cmd = new Command('parameters')
    .description('List operator parameters')
    .argument('[operator...]')
    .option('-d, --descriptions', 'Display descriptions.', false)
    .option(
      '-r, --required',
      'Show only parameters which have no defaults but are required.',
      false,
    )
    .option('--names', 'Display only names.', false);
  addPackageSourceOptions(cmd);
  return cmd.action(async (args: string[], flags: ParameterListFlags, command: Command) => {
    // Without an argument KUDO lists the operator folder the generators would work on.
    let name = args[0];
    if (args.length !== 1) {
      try {
        name = findOperatorFolder(ctx.cwd);
      } catch {
        throw new CliError(ONE_PACKAGE);
      }
    }
    const set = [flags.required, flags.names, flags.descriptions].filter(Boolean).length;
    if (set > 1) {
      throw new CliError("only one of the flags 'required', 'names', 'descriptions' can be set");
    }
    const ov = await operatorVersionOf(ctx, command, name ?? '', flags);
    ctx.term.write(parameterTable(ov, flags));
  });
}

/** The parameters sorted by name, as `displayParamsTable` printed them. */
export function parameterTable(ov: OperatorVersion, flags: ParameterListFlags): string {
  const params = [...(ov.spec?.parameters ?? [])].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  if (flags.required) {
    const names = params.filter((p) => p.required === true && p.default == null);
    if (names.length === 0) return 'no required parameters without default values found\n';
    return `${renderUiTable([['Name'], ...names.map((p) => [p.name])])}\n`;
  }
  if (flags.names) return `${renderUiTable([['Name'], ...params.map((p) => [p.name])])}\n`;
  const header = ['Name', 'Default', 'Required', 'Immutable'];
  if (flags.descriptions) header.push('Descriptions');
  const rows = params.map((p) => {
    const row = [
      p.name,
      p.default ?? '',
      String(p.required === true),
      String(p.immutable === true),
    ];
    if (flags.descriptions) row.push(p.description ?? '');
    return row;
  });
  return `${renderUiTable([header, ...rows], { maxColWidth: 35, wrap: true })}\n`;
}

function plansCommand(ctx: CliContext): Command {
  const cmd = new Command('plans')
    .description('List operator plans')
    .argument('[operator...]')
    .option('-t, --with-tasks', 'Display task resources with plans', false);
  addPackageSourceOptions(cmd);
  return cmd.action(async (args: string[], flags: PlanListFlags, command: Command) => {
    if (args.length !== 1) throw new CliError(ONE_PACKAGE);
    const ov = await operatorVersionOf(ctx, command, args[0] ?? '', flags);
    ctx.term.write(planTree(ov, flags.withTasks ?? false));
  });
}

/** `displayPlanTable`: plans by name under a `plans` root; `--with-tasks` adds each task's files. */
export function planTree(ov: OperatorVersion, withTasks: boolean): string {
  const plans = ov.spec?.plans ?? {};
  const names = Object.keys(plans).sort();
  if (names.length === 0) return 'no plans found\n';
  const tasks = ov.spec?.tasks ?? [];
  const nodes: TreeNode[] = names.map((name) => {
    const plan = plans[name] ?? {};
    return {
      text: `${name} (${plan.strategy ?? ''})`,
      children: (plan.phases ?? []).map((phase) => ({
        text: `[phase]  ${phase.name ?? ''} (${phase.strategy ?? ''})`,
        children: (phase.steps ?? []).map((step) => ({
          text: `[step]  ${step.name ?? ''}`,
          children: (step.tasks ?? []).flatMap((task) =>
            withTasks ? taskNodes(task, tasks) : [{ text: task }],
          ),
        })),
      })),
    };
  });
  return `${renderTree(nodes, 'plans')}\n`;
}

/** One node per task of that name (none for an undefined one), as addTaskNodeWithResources. */
function taskNodes(name: string, tasks: readonly Task[]): TreeNode[] {
  return tasks
    .filter((t) => t.name === name)
    .map((t) => {
      const resources = (t.spec?.resources ?? []).map((r) => ({ text: r }));
      switch (t.kind) {
        case 'Apply':
          return { text: `[apply]  ${name}`, children: resources };
        case 'Delete':
          return { text: `[delete]  ${name}`, children: resources };
        case 'Toggle':
          return {
            text: `[toggle]  ${name}`,
            children: [{ text: `[parameter]  ${t.spec?.parameter ?? ''}` }, ...resources],
          };
        case 'Pipe':
          return { text: `[pipe]  ${name}`, children: [{ text: t.spec?.pod ?? '' }] };
        case 'Dummy':
          return { text: `[dummy]  ${name}` };
        default:
          return { text: `[unknown]  ${name}` };
      }
    });
}

function tasksCommand(ctx: CliContext): Command {
  const cmd = new Command('tasks').description('List operator tasks').argument('[operator...]');
  addPackageSourceOptions(cmd);
  return cmd.action(async (args: string[], flags: PackageSourceFlags, command: Command) => {
    if (args.length !== 1) throw new CliError(ONE_PACKAGE);
    const ov = await operatorVersionOf(ctx, command, args[0] ?? '', flags);
    ctx.term.write(taskTable(ov));
  });
}

/** `displayTasksTable`: a Pipe shows its pod file, every other kind its resources list. */
export function taskTable(ov: OperatorVersion): string {
  const tasks = ov.spec?.tasks ?? [];
  if (tasks.length === 0) return 'no tasks  found\n';
  const rows = tasks.map((t) => [
    t.name,
    t.kind,
    t.kind === 'Pipe' ? (t.spec?.pod ?? '') : `[${(t.spec?.resources ?? []).join(' ')}]`,
  ]);
  return `${renderUiTable([['Name', 'Kind', 'Resources'], ...rows])}\n`;
}
