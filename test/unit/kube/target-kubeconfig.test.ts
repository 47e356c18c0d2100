// Target kubeconfigs from Secrets: usable ones load from an allowlist of fields; every field
// that reads a file, runs a program, proxies or impersonates is refused with its place named,
// whatever the flags; insecure TLS only with allowUnsafe; broken ones say what is wrong.
import { describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { KubeConfigError, parseTargetKubeconfig } from '../../../src/kube/index.ts';

type Doc = Record<string, unknown>;

function kubeconfig(
  change: (doc: { cluster: Doc; user: Doc; root: Doc }) => void = () => {},
): string {
  const cluster: Doc = {
    server: 'https://203.0.113.10:6443',
    'certificate-authority-data': 'Y2E=',
  };
  const user: Doc = { token: 'abc' };
  const root: Doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'target', cluster }],
    users: [{ name: 'deployer', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'target', user: 'deployer' } }],
    'current-context': 'ctx',
  };
  change({ cluster, user, root });
  return stringify(root);
}

const source = 'Secret ns/target, key value';
const parse = (text: string, allowUnsafe = false) =>
  parseTargetKubeconfig(text, { source, allowUnsafe });

describe('parseTargetKubeconfig', () => {
  it('loads a kubeconfig with embedded credentials', () => {
    const kc = parse(kubeconfig());
    expect(kc.getCurrentCluster()?.server).toBe('https://203.0.113.10:6443');
    expect(kc.getCurrentUser()?.token).toBe('abc');
  });

  // Every field @kubernetes/client-node 2.x reads that reads a file, runs a program, proxies
  // or impersonates (dist/config_types.js, file_auth.js, exec_auth.js, gcp_auth.js,
  // azure_auth.js): refused with its place named, with or without allowUnsafe.
  it.each([
    ['exec', 'user', 'exec', { command: 'aws', apiVersion: 'client.authentication.k8s.io/v1' }],
    [
      'auth-provider gcp cmd-path',
      'user',
      'auth-provider',
      { name: 'gcp', config: { 'cmd-path': '/bin/sh' } },
    ],
    [
      'auth-provider azure',
      'user',
      'auth-provider',
      { name: 'azure', config: { 'cmd-path': '/bin/sh' } },
    ],
    [
      'auth-provider tokenFile',
      'user',
      'auth-provider',
      { name: 'tokenFile', config: { tokenFile: '/etc/shadow' } },
    ],
    ['auth-provider oidc', 'user', 'auth-provider', { name: 'oidc', config: { 'id-token': 'x' } }],
    ['token-file', 'user', 'token-file', '/var/run/secrets/kubernetes.io/serviceaccount/token'],
    ['tokenFile', 'user', 'tokenFile', '/var/run/secrets/kubernetes.io/serviceaccount/token'],
    ['client-certificate', 'user', 'client-certificate', '/etc/passwd'],
    ['client-key', 'user', 'client-key', '/root/key'],
    ['certificate-authority', 'cluster', 'certificate-authority', '/etc/ca.crt'],
    ['proxy-url', 'cluster', 'proxy-url', 'http://attacker.example:3128'],
    ['as (impersonation)', 'user', 'as', 'system:admin'],
    ['as-groups', 'user', 'as-groups', ['system:masters']],
    ['username', 'user', 'username', 'admin'],
    ['password', 'user', 'password', 'secret'],
    ['unknown field', 'cluster', 'Token-File', '/etc/passwd'],
  ] as const)('refuses %s in both modes, naming field and place', (_name, part, field, value) => {
    const text = kubeconfig((d) => {
      (part === 'user' ? d.user : d.cluster)[field] = value;
    });
    for (const allowUnsafe of [false, true]) {
      let error: unknown;
      try {
        parse(text, allowUnsafe);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(KubeConfigError);
      const message = (error as Error).message;
      expect(message).toContain(
        `${part === 'user' ? 'user "deployer"' : 'cluster "target"'}: ${field} (`,
      );
      expect(message).toContain('whatever its flags');
      expect(message).toContain(source);
    }
  });

  it('refuses a file reference in an entry the current context does not use (the library reads it while loading)', () => {
    const text = kubeconfig((d) => {
      (d.root['users'] as Doc[]).push({
        name: 'other',
        user: { 'token-file': '/var/run/secrets/kubernetes.io/serviceaccount/token' },
      });
    });
    expect(() => parse(text, true)).toThrow('user "other": token-file (reads a file');
  });

  it('refuses insecure-skip-tls-verify unless allowUnsafe, and then applies it', () => {
    const text = kubeconfig((d) => {
      d.cluster['insecure-skip-tls-verify'] = true;
      delete d.cluster['certificate-authority-data'];
    });
    expect(() => parse(text)).toThrow('--allow-unsafe-kubeconfig');
    expect(parse(text, true).getCurrentCluster()?.skipTLSVerify).toBe(true);
  });

  it('builds the client from the allowlisted values only', () => {
    const kc = parse(
      kubeconfig((d) => {
        d.cluster['tls-server-name'] = 'api.internal';
        d.user['client-certificate-data'] = 'Y2VydA==';
        d.user['client-key-data'] = 'a2V5';
        d.root['contexts'] = [
          { name: 'ctx', context: { cluster: 'target', user: 'deployer', namespace: 'apps' } },
        ];
      }),
    );
    expect(kc.getCurrentCluster()).toMatchObject({
      server: 'https://203.0.113.10:6443',
      caData: 'Y2E=',
      tlsServerName: 'api.internal',
      skipTLSVerify: false,
    });
    expect(kc.getCurrentCluster()?.caFile).toBeUndefined();
    expect(kc.getCurrentCluster()?.proxyUrl).toBeUndefined();
    const user = kc.getCurrentUser();
    expect(user).toMatchObject({ certData: 'Y2VydA==', keyData: 'a2V5', token: 'abc' });
    expect(user?.exec).toBeUndefined();
    expect(user?.authProvider).toBeUndefined();
    expect(kc.getContextObject('ctx')?.namespace).toBe('apps');
  });

  it('refuses a name defined twice', () => {
    const text = kubeconfig((d) => {
      (d.root['users'] as Doc[]).push({ name: 'deployer', user: { token: 'other' } });
    });
    expect(() => parse(text)).toThrow('user "deployer" is defined twice');
  });

  it.each([
    ['not YAML', ': : :\n  - [', 'not valid YAML'],
    ['a list', '- a\n- b\n', 'not a YAML mapping'],
    [
      'no current context',
      kubeconfig((d) => delete d.root['current-context']),
      'sets no current-context',
    ],
    [
      'unknown context',
      kubeconfig((d) => (d.root['current-context'] = 'nope')),
      'context "nope" is not defined',
    ],
    ['bad server', kubeconfig((d) => (d.cluster['server'] = 'not a url')), 'invalid server URL'],
    [
      'plain http',
      kubeconfig((d) => (d.cluster['server'] = 'http://203.0.113.10:8080')),
      'not https',
    ],
    ['too large', 'x'.repeat(300 * 1024), 'larger than'],
  ])('%s: a clear error', (_name, text, expected) => {
    expect(() => parse(text)).toThrow(expected);
  });
});
