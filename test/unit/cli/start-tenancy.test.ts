// `planwright start`'s tenancy flags as commander parses them: the posture's choices, the
// repeatable allowances with their syntax errors, the policy they make (KUDO's for the
// default posture without allowances), and --watch-namespaces' list.
import { describe, expect, it } from '@jest/globals';
import { tenancyPolicy } from '../../../src/cli/commands/start.ts';
import { namespaceList } from '../../../src/cli/flag-values.ts';
import { KUDO_TENANCY } from '../../../src/kudo/tasks/index.ts';
import { parseStartFlags as parse } from './start-parse.ts';

describe('tenancy flags', () => {
  it('default posture without allowances: KUDO behaviour, no ServiceAccount to act as', () => {
    const policy = tenancyPolicy(parse([]));
    expect(policy).toEqual(KUDO_TENANCY);
    // The controller impersonates only where a ServiceAccount policy is present.
    expect(policy.serviceAccounts).toBeUndefined();
  });

  it('multi-tenant with repeated allowances', () => {
    const policy = tenancyPolicy(
      parse([
        '--tenancy',
        'multi-tenant',
        '--allow-namespace',
        'team-a=shared',
        '--allow-namespace',
        '*=monitoring',
        '--allow-cluster-scoped',
        'platform',
        '--allow-operator-version',
        'team-a=catalog',
      ]),
    );
    expect(policy).toEqual({
      posture: 'multi-tenant',
      namespaces: [
        { from: 'team-a', to: 'shared' },
        { from: '*', to: 'monitoring' },
      ],
      clusterScoped: ['platform'],
      operatorVersions: [{ from: 'team-a', to: 'catalog' }],
    });
  });

  it('--allow-target-server collects addresses and ranges, and refuses anything else', () => {
    expect(
      parse(['--allow-target-server', '10.20.0.0/16', '--allow-target-server', '127.0.0.1'])
        .allowTargetServer,
    ).toEqual(['10.20.0.0/16', '127.0.0.1']);
    expect(() => parse(['--allow-target-server', 'k8s.example.com'])).toThrow(
      'needs an IP address or a CIDR range, e.g. --allow-target-server 10.20.0.0/16',
    );
  });

  it('an allowance alone keeps the kudo posture', () => {
    expect(tenancyPolicy(parse(['--allow-namespace', 'a=b']))).toEqual({
      posture: 'kudo',
      namespaces: [{ from: 'a', to: 'b' }],
    });
  });

  it('--default-service-account and --allow-service-account make the ServiceAccount policy', () => {
    expect(
      tenancyPolicy(
        parse([
          '--default-service-account',
          'planwright-tenant',
          '--allow-service-account',
          'team-a=builder',
          '--allow-service-account',
          '*=viewer',
        ]),
      ),
    ).toEqual({
      posture: 'kudo',
      serviceAccounts: {
        default: 'planwright-tenant',
        allowed: [
          { from: 'team-a', to: 'builder' },
          { from: '*', to: 'viewer' },
        ],
      },
    });
    expect(() => parse(['--default-service-account', 'Not/A-Name'])).toThrow(
      /--default-service-account "Not\/A-Name": needs a ServiceAccount name/,
    );
    expect(() => parse(['--default-service-account', '*'])).toThrow(/needs a ServiceAccount name/);
    expect(() => parse(['--allow-service-account', 'team-a'])).toThrow(/--allow-service-account/);
  });

  it('refuses an unknown posture and a malformed allowance', () => {
    expect(() => parse(['--tenancy', 'open'])).toThrow(/Allowed choices are kudo, multi-tenant/);
    expect(() => parse(['--allow-namespace', 'team-a'])).toThrow(
      'e.g. --allow-namespace team-a=shared',
    );
  });

  it('--watch-namespaces takes a comma list of names', () => {
    expect(namespaceList('a,b-2')).toEqual(['a', 'b-2']);
    expect(() => namespaceList('a,,b')).toThrow('e.g. --watch-namespaces team-a,team-b');
  });
});
