// `start --install` announces "running" only once the API server calls its webhooks; while they do
// not answer it keeps probing, and Ctrl-C in that wait is a normal stop (exit 0, no error).
// A dedicated bare cluster: a webhook registration of its own would reach every test of the
// shared one.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { startLocalCluster, type LocalCluster } from '../../../src/localcluster/index.ts';
import { kubeConfig, testCluster } from '../../support/cluster.ts';
import { startManagerProcess } from '../../support/manager-process.ts';
import { waitFor } from '../../support/wait.ts';

describe('start --install waits for its webhooks', () => {
  let cluster: LocalCluster;

  beforeAll(async () => {
    cluster = await startLocalCluster({ binaries: testCluster().binaries });
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('does not say it runs while a configuration cannot be called, and Ctrl-C then exits 0', async () => {
    const kc = kubeConfig(cluster.kubeconfigPath);
    // A mutating webhook on OperatorVersions whose server is gone: mutating webhooks run before
    // any validating one, so the OperatorVersion probe fails with "failed calling webhook" and
    // never reaches Planwright's validating webhook for as long as it is registered. (A dead
    // validating webhook would race Planwright's own, which is called in parallel.)
    await kc.makeApiClient(k8s.AdmissionregistrationV1Api).createMutatingWebhookConfiguration({
      body: {
        metadata: { name: 'probe-test-dead' },
        webhooks: [
          {
            name: 'dead.probe-test.planwright.dev',
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            failurePolicy: 'Fail',
            timeoutSeconds: 2,
            rules: [
              {
                apiGroups: ['kudo.dev'],
                apiVersions: ['v1beta1'],
                resources: ['operatorversions'],
                operations: ['CREATE'],
              },
            ],
            clientConfig: { url: 'https://127.0.0.1:1/validate' },
          },
        ],
      },
    });
    const manager = await startManagerProcess(cluster.kubeconfigPath, ['--install']);
    try {
      await waitFor(
        'both webhook configurations registered',
        () => manager.log.includes('Registered ValidatingWebhookConfiguration'),
        { timeoutMs: 60_000 },
      );
      // Several probe rounds (every 250 ms) go by without an answer.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(manager.log).not.toContain('Planwright is running');
      manager.proc.kill('SIGINT');
      expect(await manager.exited).toBe(0);
      expect(manager.log).not.toContain('Planwright is running');
      expect(manager.log).not.toMatch(/^Error:/m);
    } finally {
      if (manager.proc.exitCode === null) manager.proc.kill('SIGKILL');
    }
  });
});
