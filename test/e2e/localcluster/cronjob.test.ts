// CronJobs run: the cronjob controller starts a Job at the next minute, and it completes. A
// file of its own, since it waits for the clock (up to a minute) while other files run.
import { describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { createTestNamespace, kubeConfig } from '../../support/cluster.ts';
import { waitFor } from '../../support/wait.ts';

describe('CronJobs in a workloads cluster', () => {
  it('starts a Job on schedule that completes, and records it', async () => {
    const namespace = await createTestNamespace('cron');
    const batch = kubeConfig().makeApiClient(k8s.BatchV1Api);
    await batch.createNamespacedCronJob({
      namespace,
      body: {
        metadata: { name: 'tick' },
        spec: {
          schedule: '* * * * *',
          jobTemplate: {
            spec: {
              template: {
                spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }] },
              },
            },
          },
        },
      },
    });
    const job = await waitFor(
      'a Job of CronJob tick completed',
      async () => {
        const jobs = await batch.listNamespacedJob({ namespace });
        return jobs.items.find((j) =>
          j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True'),
        );
      },
      { timeoutMs: 80_000, intervalMs: 500 },
    );
    expect(job.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'CronJob', name: 'tick' });
    const cron = await waitFor('CronJob tick records its success', async () => {
      const c = await batch.readNamespacedCronJob({ namespace, name: 'tick' });
      return c.status?.lastSuccessfulTime ? c : undefined;
    });
    expect(cron.status?.lastScheduleTime).toBeDefined();
  });
});
