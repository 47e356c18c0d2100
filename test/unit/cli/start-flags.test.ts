// `planwright start`'s flag table and the one conversion of its flags into StartOptions: each
// table key is the name commander gives the flag's value (else the typed flags would read
// undefined), values are read as the App takes them, and the flags that exclude each other
// are refused naming both.
import { describe, expect, it } from '@jest/globals';
import { Option } from 'commander';
import { startOptions } from '../../../src/cli/commands/start.ts';
import type { GlobalOptions } from '../../../src/cli/context.ts';
import { START_FLAGS } from '../../../src/cli/start-flags.ts';
import { cliFailure, parseStartFlags as parse } from './start-parse.ts';

function refusal(args: readonly string[], global: GlobalOptions = {}): string {
  return cliFailure(() => startOptions(parse(args), global));
}

describe('the flag table', () => {
  it('names each flag as commander names its value', () => {
    for (const [key, flag] of Object.entries(START_FLAGS)) {
      expect([key, new Option(flag.spec).attributeName()]).toEqual([key, key]);
    }
  });

  it('gives the defaults --help shows, and reads --step-timeout in ms', () => {
    const flags = parse(['--step-timeout', '600']);
    expect(flags).toMatchObject({
      tenancy: 'kudo',
      local: false,
      bare: false,
      install: false,
      webhookPort: 9443,
      leaderElection: true,
      allowUnsafeKubeconfig: false,
      strictPackageAdmission: false,
      stepTimeout: 600_000,
    });
    expect(parse(['--no-leader-election']).leaderElection).toBe(false);
  });

  it('refuses a node kind it does not know, naming the kinds', () => {
    expect(() => parse(['--nodes', 'vm'])).toThrow('--nodes needs one of kwok, real, mixed');
  });
});

describe('startOptions', () => {
  it('--bare is local; an empty --kubeconfig or --namespace is none', () => {
    const options = startOptions(parse(['--bare']), { kubeconfig: '', namespace: '' });
    expect(options).toMatchObject({ local: true, bare: true });
    expect([options.kubeconfig, options.namespace]).toEqual([undefined, undefined]);
    expect(startOptions(parse([]), { namespace: 'ops' }).namespace).toBe('ops');
  });

  it('refuses flags that exclude each other, naming both', () => {
    expect(refusal(['--cert-dir', '/certs', '--install'])).toMatch(
      /^--cert-dir and --install exclude each other/,
    );
    expect(refusal(['--cert-dir', '/certs', '--bare'])).toMatch(
      /^--cert-dir and --bare exclude each other/,
    );
    expect(refusal(['--local'], { kubeconfig: '/k' })).toBe(
      '--local and --kubeconfig exclude each other: choose one cluster',
    );
    expect(refusal(['--cert-dir', ' '])).toMatch(/^--cert-dir needs a folder/);
  });
});
