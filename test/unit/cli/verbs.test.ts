// A command line loads the module of the verb it names, and only that one (verbs.ts): the
// verb is found past the root options and their values, and a command line naming no known
// verb (help, a typo) gets every verb, so the help and commander's suggestions are whole.
import { describe, expect, it } from '@jest/globals';
import { CliContext } from '../../../src/cli/context.ts';
import { buildProgram } from '../../../src/cli/program.ts';
import { BUILT_IN_VERBS, START_VERB, verbOf } from '../../../src/cli/verbs.ts';
import { recordingTerminal } from './terminal.ts';

async function commandsFor(argv: readonly string[]): Promise<string[]> {
  const ctx = new CliContext({
    term: recordingTerminal(),
    signal: new AbortController().signal,
    env: { HOME: '/nonexistent' },
    cwd: '/',
    commandName: 'kubectl kudo',
  });
  const program = await buildProgram(ctx, 'kubectl kudo', { extra: [START_VERB], argv });
  return program.commands.map((c) => c.name());
}

describe('verbs', () => {
  it('finds the verb past root options, their values and an optional value', async () => {
    const root = (
      await buildProgram(
        new CliContext({
          term: recordingTerminal(),
          signal: new AbortController().signal,
          env: {},
          cwd: '/',
          commandName: 'kubectl kudo',
        }),
        'kubectl kudo',
        { argv: ['version'] },
      )
    ).options;
    expect(verbOf(['install', 'pkg', '--namespace', 'ns'], root)).toBe('install');
    expect(verbOf(['-n', 'plan', 'get', 'instances'], root)).toBe('get');
    expect(verbOf(['--kubeconfig', '/k', '--request-timeout', '5', 'plan', 'status'], root)).toBe(
      'plan',
    );
    expect(verbOf(['--validate-install', 'false', 'uninstall'], root)).toBe('uninstall');
    expect(verbOf(['--validate-install', '--home', 'h', 'repo', 'list'], root)).toBe('repo');
    expect(verbOf(['--namespace=ns', '-v', '2', 'search'], root)).toBe('search');
    expect(verbOf(['--help'], root)).toBeUndefined();
  });

  it('loads only the named verb; help, a typo or no verb loads every one', async () => {
    expect(await commandsFor(['version'])).toEqual(['version']);
    expect(await commandsFor(['-n', 'ns', 'search', 'x'])).toEqual(['repo', 'search']);
    expect(await commandsFor(['start', '--help'])).toEqual(['start']);
    const every = await commandsFor(['--help']);
    expect(every).toEqual([...BUILT_IN_VERBS.flatMap((v) => v.verbs), 'start']);
    expect(every).toEqual(expect.arrayContaining(['install', 'plan', 'package', 'version']));
    expect(await commandsFor(['instal'])).toEqual(every);
    expect(await commandsFor(['help', 'install'])).toEqual(every);
    expect(await commandsFor([])).toEqual(every);
  });
});
