/**
 * `package new` and `package add maintainer|parameter|plan|task`: KUDO's generators. They write
 * the files KUDO wrote (operator.yaml and params.yaml with sorted keys; empty template files
 * for a task's resources) and ask KUDO's questions on a terminal; every answer also has a flag,
 * so scripts get the same result without a terminal.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { collect } from '../options.ts';
import {
  findOperatorFolder,
  readYamlMap,
  writeYamlFile,
  type YamlMap,
} from '../operator-folder.ts';
import { assertTerminal, terminalPrompter, type Prompter, type Validator } from '../prompt.ts';

const API_VERSION = 'kudo.dev/v1beta1';
/** The KUDO release whose API Planwright speaks: what `kudoVersion` of a new operator says. */
const KUDO_API_RELEASE = 'v0.19.0';
const TASK_KINDS = ['Apply', 'Delete', 'Pipe', 'Toggle'] as const;
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
const SEMVER = /^v?\d+(\.\d+)?(\.\d+)?(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

async function withPrompter<T>(ctx: CliContext, f: (p: Prompter) => Promise<T>): Promise<T> {
  const prompter = terminalPrompter(ctx.signal);
  try {
    return await f(prompter);
  } finally {
    prompter.close();
  }
}

interface NewFlags {
  readonly interactive?: boolean;
  readonly overwrite?: boolean;
}

function canGenerate(cwd: string, dir: string, overwrite: boolean): string | undefined {
  if (existsSync(resolve(cwd, dir)) && !overwrite) return `folder "${dir}" already exists`;
  if (existsSync(join(cwd, 'operator.yaml'))) {
    return 'operator.yaml exists in the current directory.  creating an operator in an operator is not supported';
  }
  return undefined;
}

export function newCommand(ctx: CliContext): Command {
  return new Command('new')
    .description('create new operator')
    .argument('[name...]')
    .option('-i, --interactive', 'Interactively create operator', false)
    .option('-w, --overwrite', 'overwrite existing directory and operator.yaml file', false)
    .action(async (args: string[], flags: NewFlags) => {
      if (flags.interactive && args.length > 1) {
        throw new CliError('expecting at most one argument - name of the operator');
      }
      if (!flags.interactive && args.length !== 1) {
        throw new CliError(
          'expecting exactly one argument - name of the operator. Or use -i for interactive mode',
        );
      }
      const overwrite = flags.overwrite ?? false;
      const operator: YamlMap = {
        apiVersion: API_VERSION,
        name: args[0] ?? 'myoperator',
        operatorVersion: '0.1.0',
        appVersion: '0.1.0',
        kudoVersion: KUDO_API_RELEASE,
        kubernetesVersion: '0.16.0',
      };
      let dir = 'operator';
      if (flags.interactive) {
        assertTerminal('package new -i', 'the operator name as argument, without -i');
        dir = await withPrompter(ctx, async (p) => {
          operator['name'] = await p.ask('Operator Name', String(operator['name']), (a) =>
            a.length < 3 ? 'operator name must have more than 3 characters' : undefined,
          );
          const folder = await p.ask('Operator directory', dir, (a) =>
            a.length < 1
              ? 'operator directory must have more than 1 character'
              : canGenerate(ctx.cwd, a, overwrite),
          );
          operator['operatorVersion'] = await p.ask('Operator Version', '0.1.0', semver(true));
          const app = await p.ask('Application Version', '', semver(false));
          if (app) operator['appVersion'] = app;
          else delete operator['appVersion'];
          operator['kudoVersion'] = await p.ask('Required KUDO Version', KUDO_API_RELEASE);
          operator['kubernetesVersion'] = await p.ask('Required Kubernetes Version', '0.16.0');
          const url = await p.ask('Project URL');
          if (url) operator['url'] = url;
          operator['maintainers'] = [await askMaintainer(p)];
          return folder;
        });
      } else {
        operator['maintainers'] = [{ name: 'My Name', email: 'MyEmail@invalid' }];
      }
      const problem = canGenerate(ctx.cwd, dir, overwrite);
      if (problem) throw new CliError(problem);
      const folder = resolve(ctx.cwd, dir);
      await mkdir(folder, { recursive: true });
      operator['tasks'] = [{ name: 'deploy', kind: 'Apply', spec: {} }];
      operator['plans'] = {
        deploy: {
          strategy: 'serial',
          phases: [
            { name: 'deploy', strategy: 'serial', steps: [{ name: 'deploy', tasks: ['deploy'] }] },
          ],
        },
      };
      await writeYamlFile(join(folder, 'operator.yaml'), operator);
      if (existsSync(join(folder, 'params.yaml'))) return;
      await writeYamlFile(join(folder, 'params.yaml'), { apiVersion: API_VERSION, parameters: [] });
      ctx.term.out(
        'Operator created. Use \n - package add parameter\n - package add plan\n - package add task\nor other package add commands to extend it.',
      );
    });
}

function semver(required: boolean): Validator {
  return (a) => {
    if (a.length < 1) return required ? 'operator version is required in semver format' : undefined;
    return SEMVER.test(a) ? undefined : `Invalid Semantic Version: ${a}`;
  };
}

async function askMaintainer(p: Prompter): Promise<{ name: string; email: string }> {
  const name = await p.ask('Maintainer Name', '', (a) =>
    a.length < 1 ? 'maintainer name must be > than 1 character' : undefined,
  );
  const email = await p.ask('Maintainer Email', '', (a) =>
    EMAIL.test(a) ? undefined : 'maintainer email must be valid email address',
  );
  return { name, email };
}

export function addCommand(ctx: CliContext): Command {
  const add = new Command('add').description('add content to an operator package files');
  add.addCommand(addMaintainerCommand(ctx));
  add.addCommand(addParameterCommand(ctx));
  add.addCommand(addTaskCommand(ctx));
  add.addCommand(addPlanCommand(ctx));
  return add;
}

/** operator.yaml as KUDO re-wrote it after reading: the same mapping, keys sorted. */
async function updateOperator(ctx: CliContext, change: (op: YamlMap) => void): Promise<void> {
  const file = join(findOperatorFolder(ctx.cwd), 'operator.yaml');
  const operator = await readYamlMap(file);
  change(operator);
  await writeYamlFile(file, operator);
}

function addMaintainerCommand(ctx: CliContext): Command {
  return new Command('maintainer')
    .description('adds a maintainer to the operator.yaml file')
    .argument('[name_and_email...]')
    .option('-i, --interactive', 'Interactive mode.', false)
    .action(async (args: string[]) => {
      if (args.length === 1 || args.length > 2) {
        throw new CliError('expecting two arguments - name and email address');
      }
      findOperatorFolder(ctx.cwd);
      let maintainer: { name: string; email: string };
      if (args.length === 0) {
        assertTerminal('package add maintainer', 'the name and email as two arguments');
        maintainer = await withPrompter(ctx, askMaintainer);
      } else {
        maintainer = { name: args[0] ?? '', email: args[1] ?? '' };
      }
      await updateOperator(ctx, (op) => {
        const list = Array.isArray(op['maintainers']) ? (op['maintainers'] as unknown[]) : [];
        op['maintainers'] = [...list, maintainer];
      });
    });
}

interface ParameterFlags {
  readonly name?: string;
  readonly default?: string;
  readonly displayName?: string;
  readonly description?: string;
  readonly required?: boolean;
  readonly trigger?: string;
}

function addParameterCommand(ctx: CliContext): Command {
  return new Command('parameter')
    .description('adds a parameter to the params.yaml file')
    .option('-i, --interactive', 'Interactive mode.', false)
    .option('--name <name>', 'Parameter name (without it, the command asks on a terminal)')
    .option('--default <value>', 'Default value')
    .option('--display-name <text>', 'Display name')
    .option('--description <text>', 'Description')
    .addOption(new Option('--required', 'Required (a parameter without default)'))
    .option('--trigger <plan>', 'Plan the parameter triggers when it changes')
    .action(async (flags: ParameterFlags) => {
      const folder = findOperatorFolder(ctx.cwd);
      const paramsFile = join(folder, 'params.yaml');
      const params = await readYamlMap(paramsFile);
      const existing = Array.isArray(params['parameters'])
        ? (params['parameters'] as YamlMap[])
        : [];
      const unique: Validator = (a) =>
        a.length < 1
          ? 'parameter name must be > than 1 character'
          : existing.some((p) => p['name'] === a)
            ? 'parameter name must be unique'
            : undefined;
      let param: YamlMap;
      if (flags.name === undefined) {
        assertTerminal('package add parameter', '--name (and --default, --description, …)');
        param = await withPrompter(ctx, async (p) => {
          const out: YamlMap = { name: await p.ask('Parameter Name', '', unique) };
          const value = await p.ask('Default Value');
          if (value) out['default'] = value;
          const display = await p.ask('Display Name');
          if (display) out['displayName'] = display;
          const desc = await p.ask('Description');
          if (desc) out['description'] = desc;
          if (!value && (await p.ask('Required (y/n)', 'n')).toLowerCase().startsWith('y')) {
            out['required'] = true;
          }
          const trigger = await p.ask('Trigger Plan');
          if (trigger) out['trigger'] = trigger;
          return out;
        });
      } else {
        const problem = unique(flags.name);
        if (problem) throw new CliError(problem);
        param = { name: flags.name };
        if (flags.default !== undefined) param['default'] = flags.default;
        if (flags.displayName) param['displayName'] = flags.displayName;
        if (flags.description) param['description'] = flags.description;
        if (flags.required) param['required'] = true;
        if (flags.trigger) param['trigger'] = flags.trigger;
      }
      // KUDO wrote the parameters back as it had read them: with `required` and `immutable`
      // filled in by their defaults.
      const filled = existing.map((p) => ({ required: true, immutable: false, ...p }));
      await writeYamlFile(paramsFile, { ...params, parameters: [...filled, param] });
    });
}

interface TaskFlags {
  readonly name?: string;
  readonly kind?: string;
  readonly resource?: string[];
  readonly parameter?: string;
  readonly pod?: string;
}

function taskNameValidator(existing: readonly YamlMap[]): Validator {
  return (a) =>
    a.length < 1
      ? 'task name must be > than 1 character'
      : existing.some((t) => t['name'] === a)
        ? 'task name must be unique'
        : undefined;
}

/** Every file a task names exists below templates/ (an empty one is made), as KUDO ensured. */
async function ensureTemplates(folder: string, files: readonly string[]): Promise<void> {
  for (const file of files) {
    const target = join(folder, 'templates', file);
    await mkdir(join(target, '..'), { recursive: true });
    if (!existsSync(target)) await writeFile(target, '');
  }
}

function addTaskCommand(ctx: CliContext): Command {
  return new Command('task')
    .description('adds a task to the operator.yaml file')
    .option('-i, --interactive', 'Interactive mode.', false)
    .option('--name <name>', 'Task name (without it, the command asks on a terminal)')
    .addOption(new Option('--kind <kind>', 'Task kind').choices([...TASK_KINDS]).default('Apply'))
    .option('--resource <file>', 'Template the task applies or deletes (repeatable)', collect)
    .option('--parameter <name>', 'Toggle: the parameter that switches the resources')
    .option('--pod <file>', 'Pipe: the pod template')
    .action(async (flags: TaskFlags) => {
      const folder = findOperatorFolder(ctx.cwd);
      const operator = await readYamlMap(join(folder, 'operator.yaml'));
      const existing = Array.isArray(operator['tasks']) ? (operator['tasks'] as YamlMap[]) : [];
      const valid = taskNameValidator(existing);
      let task: YamlMap;
      if (flags.name === undefined) {
        assertTerminal('package add task', '--name, --kind and --resource');
        task = await withPrompter(ctx, async (p) => {
          const name = await p.ask('Task Name', '', valid);
          const kind = await p.ask(`Task Kind (${TASK_KINDS.join(', ')})`, 'Apply', (a) =>
            (TASK_KINDS as readonly string[]).includes(a) ? undefined : `unknown task kind ${a}`,
          );
          return taskOf(name, kind, await askTaskSpec(p, kind));
        });
      } else {
        const problem = valid(flags.name);
        if (problem) throw new CliError(problem);
        task = taskOf(flags.name, flags.kind ?? 'Apply', {
          resources: flags.resource ?? [],
          parameter: flags.parameter,
          pod: flags.pod,
        });
      }
      const spec = (task['spec'] ?? {}) as { resources?: string[]; pod?: string };
      await ensureTemplates(folder, [...(spec.resources ?? []), ...(spec.pod ? [spec.pod] : [])]);
      await updateOperator(ctx, (op) => {
        op['tasks'] = [...existing, task];
      });
    });
}

async function askTaskSpec(p: Prompter, kind: string): Promise<YamlMap> {
  if (kind === 'Pipe') return { pod: await p.ask('Pipe Pod File') };
  const spec: YamlMap = {};
  if (kind === 'Toggle') spec['parameter'] = await p.ask('Toggle Parameter');
  const resources: string[] = [];
  for (;;) {
    const resource = await p.ask('Task Resource (empty to finish)');
    if (!resource) break;
    resources.push(resource);
  }
  spec['resources'] = resources;
  return spec;
}

function taskOf(name: string, kind: string, spec: YamlMap): YamlMap {
  const clean: YamlMap = {};
  for (const [k, v] of Object.entries(spec)) {
    if (v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0)) clean[k] = v;
  }
  return { name, kind, spec: clean };
}

interface PlanFlags {
  readonly name?: string;
  readonly strategy?: string;
  readonly phase?: string;
  readonly phaseStrategy?: string;
  readonly step?: string;
  readonly task?: string[];
}

function addPlanCommand(ctx: CliContext): Command {
  return new Command('plan')
    .description('adds a plan to the operator.yaml file')
    .option('-i, --interactive', 'Interactive mode.', false)
    .option('--name <name>', 'Plan name (without it, the command asks on a terminal)')
    .addOption(new Option('--strategy <s>', 'Plan strategy').choices(['serial', 'parallel']))
    .option('--phase <name>', 'Name of its one phase (default: the plan name)')
    .addOption(new Option('--phase-strategy <s>', 'Phase strategy').choices(['serial', 'parallel']))
    .option('--step <name>', 'Name of its one step (default: the plan name)')
    .option('--task <name>', 'Task the step runs, an existing one (repeatable)', collect)
    .action(async (flags: PlanFlags) => {
      const folder = findOperatorFolder(ctx.cwd);
      const operator = await readYamlMap(join(folder, 'operator.yaml'));
      const plans = (operator['plans'] ?? {}) as YamlMap;
      const tasks = Array.isArray(operator['tasks']) ? (operator['tasks'] as YamlMap[]) : [];
      const taskNames = tasks.map((t) => String(t['name']));
      const validName: Validator = (a) =>
        a.length < 1
          ? 'plan name must be > than 1 character'
          : Object.hasOwn(plans, a)
            ? 'plan name must be unique'
            : undefined;
      let name: string;
      let plan: YamlMap;
      if (flags.name === undefined) {
        assertTerminal('package add plan', '--name, --phase, --step and --task');
        [name, plan] = await withPrompter(ctx, async (p) => {
          const planName = await p.ask('Plan Name', '', validName);
          const strategy = await p.ask('Plan strategy for phase', 'serial');
          const phase = await p.ask('Phase Name', planName);
          const phaseStrategy = await p.ask('Phase strategy for steps', 'serial');
          const step = await p.ask('Step Name', planName);
          const task = await p.ask(`Task Name 1 for Step "${step}"`, taskNames[0] ?? '', (a) =>
            taskNames.includes(a) ? undefined : `task ${a} is not defined; add it first`,
          );
          return [planName, planOf({ strategy, phase, phaseStrategy, step, tasks: [task] })];
        });
      } else {
        const problem = validName(flags.name);
        if (problem) throw new CliError(problem);
        const wanted = flags.task ?? [];
        if (wanted.length === 0) throw new CliError('a plan step needs a task: pass --task <name>');
        const missing = wanted.filter((t) => !taskNames.includes(t));
        if (missing.length > 0) {
          throw new CliError(
            `task ${missing.join(', ')} is not defined in operator.yaml; add it first with package add task`,
          );
        }
        name = flags.name;
        plan = planOf({
          strategy: flags.strategy ?? 'serial',
          phase: flags.phase ?? flags.name,
          phaseStrategy: flags.phaseStrategy ?? 'serial',
          step: flags.step ?? flags.name,
          tasks: wanted,
        });
      }
      await updateOperator(ctx, (op) => {
        op['plans'] = { ...plans, [name]: plan };
      });
    });
}

function planOf(p: {
  strategy: string;
  phase: string;
  phaseStrategy: string;
  step: string;
  tasks: string[];
}): YamlMap {
  return {
    strategy: p.strategy,
    phases: [
      { name: p.phase, strategy: p.phaseStrategy, steps: [{ name: p.step, tasks: p.tasks }] },
    ],
  };
}
