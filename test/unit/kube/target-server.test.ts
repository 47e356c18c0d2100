// Which servers a target kubeconfig may name (docs/security.md, "Target servers"): loopback,
// link-local and the private-use ranges of pod and Service networks are refused unless an
// administrator allows an address or range; a host name is judged where it resolves.
import { describe, expect, it } from '@jest/globals';
import type { LookupAddress } from 'node:dns';
import { stringify } from 'yaml';
import {
  KubeConfigError,
  TargetServerFlagError,
  TargetServerPolicy,
  TargetServerRefusedError,
  parseTargetKubeconfig,
} from '../../../src/kube/index.ts';

const policy = new TargetServerPolicy();

describe('TargetServerPolicy', () => {
  it.each([
    ['127.0.0.1', '127.0.0.0/8 (loopback)'],
    ['127.255.1.2', '127.0.0.0/8 (loopback)'],
    ['::1', '::1/128 (loopback)'],
    ['::ffff:127.0.0.1', '127.0.0.0/8 (loopback)'],
    ['0.0.0.0', '0.0.0.0/8'],
    ['169.254.169.254', '169.254.0.0/16 (link-local (metadata endpoints))'],
    ['fe80::1', 'fe80::/10 (link-local)'],
    ['10.96.0.1', '10.0.0.0/8 (private-use (pod and Service networks))'],
    ['172.20.0.10', '172.16.0.0/12'],
    ['192.168.1.1', '192.168.0.0/16'],
    ['100.64.0.1', '100.64.0.0/10'],
    ['fd00::10', 'fc00::/7'],
  ])('refuses %s, naming the range and the flag', (address, range) => {
    const why = policy.refusal(address);
    expect(why).toContain(range);
    expect(why).toContain('`planwright start --allow-target-server');
  });

  it.each(['8.8.8.8', '203.0.113.7', '2001:db8::1', '172.32.0.1'])('accepts %s', (address) => {
    expect(policy.refusal(address)).toBeUndefined();
  });

  it('an allowed address or range is accepted, the rest of its range is not', () => {
    const allowing = new TargetServerPolicy(['127.0.0.1', '10.20.0.0/16', '::1']);
    expect(allowing.refusal('127.0.0.1')).toBeUndefined();
    expect(allowing.refusal('::ffff:127.0.0.1')).toBeUndefined();
    expect(allowing.refusal('::1')).toBeUndefined();
    expect(allowing.refusal('127.0.0.2')).toBeDefined();
    expect(allowing.refusal('10.20.3.4')).toBeUndefined();
    expect(allowing.refusal('10.21.0.1')).toBeDefined();
  });

  it.each(['example.com', '10.0.0.0/33', '10.0.0.0/8/1', '10.0.0.0/x', ''])(
    'refuses the flag value %j with an example',
    (value) => {
      expect(() => new TargetServerPolicy([value])).toThrow(TargetServerFlagError);
      expect(() => new TargetServerPolicy([value])).toThrow('e.g. --allow-target-server');
    },
  );

  it('judges a URL by its address literal only (names are judged when resolved)', () => {
    expect(policy.refusalOfUrl(new URL('https://127.0.0.1:6443'))).toContain('loopback');
    expect(policy.refusalOfUrl(new URL('https://[::1]:6443'))).toContain('loopback');
    expect(policy.refusalOfUrl(new URL('https://kubernetes.example:6443'))).toBeUndefined();
  });

  it('a name that resolves to refused addresses only fails to connect, naming why', async () => {
    const result = await new Promise<{ err: unknown; address: unknown }>((resolve) =>
      policy.lookup('localhost', {}, (err, address) => resolve({ err, address })),
    );
    expect(result.err).toBeInstanceOf(TargetServerRefusedError);
    expect((result.err as Error).message).toMatch(
      /^host localhost: address (127\.0\.0\.1|::1) is in/,
    );
  });

  it('an allowed name resolves as dns.lookup would (one address, or all)', async () => {
    const allowing = new TargetServerPolicy(['127.0.0.0/8', '::1']);
    const one = await new Promise<{ err: unknown; address: unknown; family: unknown }>((resolve) =>
      allowing.lookup('localhost', {}, (err, address, family) => resolve({ err, address, family })),
    );
    expect(one.err).toBeNull();
    expect(['127.0.0.1', '::1']).toContain(one.address);
    const all = await new Promise<{ err: unknown; address: unknown }>((resolve) =>
      allowing.lookup('localhost', { all: true }, (err, address) => resolve({ err, address })),
    );
    expect(all.err).toBeNull();
    expect((all.address as LookupAddress[]).length).toBeGreaterThan(0);
  });
});

describe('parseTargetKubeconfig with the server policy', () => {
  const kubeconfig = (server: string): string =>
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 't', cluster: { server } }],
      users: [{ name: 'u', user: { token: 'x' } }],
      contexts: [{ name: 'c', context: { cluster: 't', user: 'u' } }],
      'current-context': 'c',
    });

  it('refuses a refused address before anything is sent, naming cluster, server and flag', () => {
    const parse = (): unknown =>
      parseTargetKubeconfig(kubeconfig('https://169.254.169.254'), { source: 'Secret a/kc' });
    expect(parse).toThrow(KubeConfigError);
    expect(parse).toThrow(
      'cluster "t" (server https://169.254.169.254): address 169.254.169.254 is in 169.254.0.0/16',
    );
  });

  it('accepts it once allowed, and any public address or name', () => {
    const servers = new TargetServerPolicy(['169.254.169.254']);
    expect(
      parseTargetKubeconfig(kubeconfig('https://169.254.169.254'), {
        source: 's',
        servers,
      }).getCurrentCluster()?.server,
    ).toBe('https://169.254.169.254');
    for (const server of ['https://203.0.113.7:6443', 'https://k8s.example.com']) {
      expect(parseTargetKubeconfig(kubeconfig(server), { source: 's' })).toBeDefined();
    }
  });
});
