import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfigError, loadKubeConfig } from '../../../src/kube/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-test-'));
const good = join(dir, 'good.yaml');
writeFileSync(
  good,
  `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: 'https://127.0.0.1:6443' } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: ctx, context: { cluster: c, user: u } }, { name: broken, context: { cluster: nope, user: u } }]
current-context: ctx
`,
);

describe('loadKubeConfig', () => {
  it('prefers --kubeconfig, then KUBECONFIG, then ~/.kube/config', () => {
    expect(loadKubeConfig({ kubeconfig: good, env: {} })).toMatchObject({
      source: good,
      mode: 'standalone',
    });
    expect(loadKubeConfig({ env: { KUBECONFIG: `/nope:${good}` } }).source).toBe(good);
    const home = join(dir, 'home');
    mkdirSync(join(home, '.kube'), { recursive: true });
    writeFileSync(join(home, '.kube', 'config'), `apiVersion: v1\nkind: Config\n`);
    expect(() => loadKubeConfig({ env: {}, home })).toThrow(/no current-context is set/);
  });

  it('names what is missing', () => {
    expect(() => loadKubeConfig({ kubeconfig: join(dir, 'missing') })).toThrow(
      /given with --kubeconfig does not exist/,
    );
    expect(() => loadKubeConfig({ kubeconfig: good, context: 'other' })).toThrow(
      /context "other" is not defined/,
    );
    expect(() => loadKubeConfig({ kubeconfig: good, context: 'broken' })).toThrow(
      /names no known cluster/,
    );
    expect(() => loadKubeConfig({ env: {}, home: join(dir, 'empty') })).toThrow(KubeConfigError);
    expect(() => loadKubeConfig({ env: {}, home: join(dir, 'empty') })).toThrow(
      /KUBERNETES_SERVICE_HOST/,
    );
  });

  it('in a pod, requires the service-account files', () => {
    const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    expect(() =>
      loadKubeConfig({ env, home: join(dir, 'empty'), serviceAccountRoot: join(dir, 'sa') }),
    ).toThrow(/service-account file .*token is missing/);
  });
});
