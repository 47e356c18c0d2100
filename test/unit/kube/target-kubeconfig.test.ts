// Target kubeconfigs from Secrets: usable ones load; dangerous features are refused with the
// feature and its place named, unless allowed; broken ones say what is wrong.
import { describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { KubeConfigError, parseTargetKubeconfig } from '../../../src/kube/index.ts';

type Doc = Record<string, unknown>;

function kubeconfig(
  change: (doc: { cluster: Doc; user: Doc; root: Doc }) => void = () => {},
): string {
  const cluster: Doc = { server: 'https://127.0.0.1:6443', 'certificate-authority-data': 'Y2E=' };
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
    expect(kc.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
    expect(kc.getCurrentUser()?.token).toBe('abc');
  });

  it.each([
    [
      'exec',
      (d: { user: Doc }) =>
        (d.user['exec'] = { command: 'aws', apiVersion: 'client.authentication.k8s.io/v1' }),
      'an exec credential plugin (user "deployer": exec)',
    ],
    [
      'auth-provider',
      (d: { user: Doc }) => (d.user['auth-provider'] = { name: 'gcp' }),
      'an auth-provider plugin (user "deployer": auth-provider)',
    ],
    [
      'insecure',
      (d: { cluster: Doc }) => (d.cluster['insecure-skip-tls-verify'] = true),
      'TLS without server verification (cluster "target": insecure-skip-tls-verify)',
    ],
    [
      'ca file',
      (d: { cluster: Doc }) => (d.cluster['certificate-authority'] = '/etc/ca.crt'),
      `a file path of the manager's file system (cluster "target": certificate-authority)`,
    ],
    [
      'cert file',
      (d: { user: Doc }) => (d.user['client-certificate'] = '/etc/passwd'),
      `a file path of the manager's file system (user "deployer": client-certificate)`,
    ],
    [
      'key file',
      (d: { user: Doc }) => (d.user['client-key'] = '/root/key'),
      `(user "deployer": client-key)`,
    ],
    [
      'token file',
      (d: { user: Doc }) =>
        (d.user['tokenFile'] = '/var/run/secrets/kubernetes.io/serviceaccount/token'),
      `(user "deployer": tokenFile)`,
    ],
  ] as const)('refuses %s unless allowed, naming it and the way out', (_name, change, named) => {
    const text = kubeconfig(change);
    let error: unknown;
    try {
      parse(text);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(KubeConfigError);
    const message = (error as Error).message;
    expect(message).toContain(named);
    expect(message).toContain('--allow-unsafe-kubeconfig');
    expect(message).toContain(source);
  });

  it('lets the refused features through with allowUnsafe', () => {
    const text = kubeconfig((d) => {
      d.cluster['insecure-skip-tls-verify'] = true;
      delete d.cluster['certificate-authority-data'];
    });
    expect(parse(text, true).getCurrentCluster()?.skipTLSVerify).toBe(true);
  });

  it('only judges the current context', () => {
    const text = kubeconfig((d) => {
      (d.root['users'] as Doc[]).push({ name: 'other', user: { exec: { command: 'x' } } });
    });
    expect(() => parse(text)).not.toThrow();
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
    ['plain http', kubeconfig((d) => (d.cluster['server'] = 'http://10.0.0.1:8080')), 'not https'],
    ['too large', 'x'.repeat(300 * 1024), 'larger than'],
  ])('%s: a clear error', (_name, text, expected) => {
    expect(() => parse(text)).toThrow(expected);
  });
});
