/**
 * Which modules a command line needs. The CLI runs once per command (kuttl and scripts run it
 * hundreds of times), and most of its start is loading modules: every verb's module loaded
 * for every command cost ~0.9 s of CPU even for `version`. So each verb is a loader, and a
 * command line loads the verb it names; help, an unknown verb or no verb loads them all (the
 * help lists them, and commander's "did you mean" needs their names).
 */
import type { Command, Option } from 'commander';
import type { CliContext } from './context.ts';

/** Makes the commands of one module (most make one; `repo.ts` makes `repo` and `search`). */
export interface VerbModule {
  /** The top-level verbs its commands answer to. */
  readonly verbs: readonly string[];
  readonly load: (ctx: CliContext) => Promise<Command[]>;
}

/** The verbs of both executables, in the order `--help` lists them. */
export const BUILT_IN_VERBS: readonly VerbModule[] = [
  verb('install', async (ctx) => (await import('./commands/install.ts')).installCommand(ctx)),
  verb('update', async (ctx) => (await import('./commands/update.ts')).updateCommand(ctx)),
  verb('upgrade', async (ctx) => (await import('./commands/upgrade.ts')).upgradeCommand(ctx)),
  verb('uninstall', async (ctx) => (await import('./commands/uninstall.ts')).uninstallCommand(ctx)),
  verb('plan', async (ctx) => (await import('./commands/plan.ts')).planCommand(ctx)),
  verb('package', async (ctx) => (await import('./commands/package.ts')).packageCommand(ctx)),
  verb('get', async (ctx) => (await import('./commands/get.ts')).getCommand(ctx)),
  {
    verbs: ['repo', 'search'],
    load: async (ctx: CliContext): Promise<Command[]> => {
      const { repoCommand, searchCommand } = await import('./commands/repo.ts');
      return [repoCommand(ctx), searchCommand(ctx)];
    },
  },
  verb('init', async (ctx) => (await import('./commands/init.ts')).initCommand(ctx)),
  verb('version', async (ctx) => (await import('./commands/version.ts')).versionCommand(ctx)),
  verb('test', async (ctx) => (await import('./commands/test.ts')).testCommand(ctx)),
  verb('diagnostics', async (ctx) =>
    (await import('./commands/diagnostics.ts')).diagnosticsCommand(ctx),
  ),
];

/** `planwright start`: the manager (both executables have it). */
export const START_VERB: VerbModule = verb('start', async (ctx) =>
  (await import('./commands/start.ts')).startCommand(ctx),
);

/** A module of one verb. */
export function verb(name: string, make: (ctx: CliContext) => Promise<Command>): VerbModule {
  return { verbs: [name], load: async (ctx) => [await make(ctx)] };
}

/**
 * The verb a command line names: its first argument that is neither a root option nor the
 * value of one. `options` are the root command's (commander's Option: `required` when it
 * takes a value, `optional` when the next argument is its value unless that is a flag).
 */
export function verbOf(argv: readonly string[], options: readonly Option[]): string | undefined {
  const byFlag = new Map<string, Option>();
  for (const o of options) {
    if (o.short) byFlag.set(o.short, o);
    if (o.long) byFlag.set(o.long, o);
  }
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (arg === '--') return argv[i + 1];
    if (!arg.startsWith('-') || arg === '-') return arg;
    const option = byFlag.get(arg);
    if (option?.required) i += 1;
    else if (option?.optional && !(argv[i + 1] ?? '-').startsWith('-')) i += 1;
  }
  return undefined;
}

/** The modules a command line needs: the one of its verb, or all of them. */
export function modulesFor(
  modules: readonly VerbModule[],
  argv: readonly string[],
  rootOptions: readonly Option[],
): readonly VerbModule[] {
  const named = verbOf(argv, rootOptions);
  const only = modules.find((m) => named !== undefined && m.verbs.includes(named));
  return only ? [only] : modules;
}
