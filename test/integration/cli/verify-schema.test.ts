// `kubectl kudo package verify` with a kubeconfig: the objects the package's templates render
// are held against that cluster's schema (the integration project's real kube-apiserver), and
// each field it does not know — which Planwright drops when applying — is a warning naming the
// template, the object and the field. Without a kubeconfig verify stays offline, as KUDO's.
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repositoryRoot } from '../../../src/localcluster/paths.ts';
import { testCluster } from '../../support/cluster.ts';
import { KUBECTL_KUDO, ensureBuiltCli, runBuilt } from './built-cli.ts';

const PACKAGE = join(repositoryRoot(), 'test', 'fixtures', 'packages', 'old-fields');

describe('package verify against the cluster of the kubeconfig', () => {
  it('warns about fields the cluster does not know, and stays offline without a kubeconfig', async () => {
    await ensureBuiltCli();
    const home = mkdtempSync(join(tmpdir(), 'verify-schema-'));
    try {
      const env = { HOME: home, KUBECONFIG: '' };
      const online = await runBuilt(KUBECTL_KUDO, ['package', 'verify', PACKAGE], {
        env: { ...env, KUBECONFIG: testCluster().kubeconfigPath },
      });
      expect([online.code, online.stderr]).toEqual([0, '']);
      expect(online.stdout).toContain(
        "template deployment.yaml: Deployment Name: the cluster's schema of apps/v1 Deployment has no field spec.template.metadata.initializers; Planwright drops it when it applies the object. Remove it from the package",
      );
      expect(online.stdout).toContain(
        "template service.yaml: Service Name: the cluster's schema of v1 Service has no field spec.topologyKeys;",
      );
      // The Widget's kind comes with the package's own CRD, which this cluster does not serve.
      expect(online.stdout).not.toContain('Widget');
      expect(online.stdout).toMatch(/package is valid\n$/);

      const offline = await runBuilt(KUBECTL_KUDO, ['package', 'verify', PACKAGE], { env });
      expect(offline).toEqual({ code: 0, stdout: 'package is valid\n', stderr: '' });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
