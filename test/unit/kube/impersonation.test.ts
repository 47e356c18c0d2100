// The impersonating kubeconfig: the manager's server, TLS and credentials, plus the
// Impersonate-User header client-node sends for the user's `as` — and nothing of the other
// users or contexts of the manager's kubeconfig.
import { describe, expect, it } from '@jest/globals';
import type { RequestOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { impersonatingKubeConfig, serviceAccountUser } from '../../../src/kube/impersonation.ts';

function managerConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      { name: 'home', server: 'https://127.0.0.1:6443', skipTLSVerify: false },
      { name: 'other', server: 'https://10.0.0.1:6443', skipTLSVerify: false },
    ],
    users: [
      { name: 'manager', token: 'manager-token' },
      { name: 'root', token: 'root-token' },
    ],
    contexts: [
      { name: 'main', cluster: 'home', user: 'manager' },
      { name: 'spare', cluster: 'other', user: 'root' },
    ],
    currentContext: 'main',
  });
  return kc;
}

async function headers(
  kc: Pick<KubeConfig, 'applyToHTTPSOptions'>,
): Promise<Record<string, unknown>> {
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  return (opts.headers ?? {}) as Record<string, unknown>;
}

describe('impersonatingKubeConfig', () => {
  it("sends the manager's token and Impersonate-User for the ServiceAccount", async () => {
    const user = serviceAccountUser('team-a', 'planwright-tenant');
    expect(user).toBe('system:serviceaccount:team-a:planwright-tenant');
    const kc = impersonatingKubeConfig(managerConfig(), user);
    expect(kc.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
    expect(await headers(kc)).toMatchObject({
      Authorization: 'Bearer manager-token',
      'Impersonate-User': user,
    });
  });

  it('keeps only the current context, and leaves the original untouched', async () => {
    const base = managerConfig();
    const kc = impersonatingKubeConfig(base, 'system:serviceaccount:a:b');
    expect(kc.getContexts().map((c) => c.name)).toEqual(['main']);
    expect(kc.getUsers().map((u) => u.name)).toEqual(['manager']);
    expect(await headers(base)).not.toHaveProperty('Impersonate-User');
  });
});
