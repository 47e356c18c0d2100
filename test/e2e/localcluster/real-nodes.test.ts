// A cluster with mixed nodes: containers really run on the real node (kubelet, containerd,
// runc, the pod bridge) from the cluster's own registry, pods whose images the registry lacks
// go to the kwok nodes, and stop() leaves no process, mount or bridge behind.
import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import {
  READY_TIMEOUT_MS,
  startLocalCluster,
  type LocalCluster,
} from '../../../src/localcluster/index.ts';
import { findLeftovers } from '../../../src/localcluster/nodes/leftovers.ts';
import { isAlive } from '../../../src/localcluster/lock.ts';
import { kubectl, kubeConfig, testCluster } from '../../support/cluster.ts';
import { waitFor } from '../../support/wait.ts';

const STEP = { timeoutMs: READY_TIMEOUT_MS, intervalMs: 250 };

function pod(
  name: string,
  container: Partial<k8s.V1Container>,
  extra: Partial<k8s.V1PodSpec> = {},
): k8s.V1Pod {
  return {
    metadata: { name },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 0,
      containers: [{ name: 'main', image: 'busybox', ...container }],
      ...extra,
    },
  };
}

describe('real and kwok nodes in one cluster (mixed)', () => {
  it(
    'runs containers for real, sends unknown images to kwok, and stops without leftovers',
    async () => {
      const cluster: LocalCluster = await startLocalCluster({
        mode: 'workloads',
        nodeKind: 'mixed',
        binaries: testCluster().binaries,
        nodes: 1,
      });
      const { workDir } = cluster;
      const pids = Object.values(cluster.pids);
      const traces = cluster.realNodes ?? [];
      try {
        expect(cluster.nodeKind).toBe('mixed');
        expect(cluster.nodes).toEqual(['kwok-node-1', 'node-1']);
        expect(traces).toHaveLength(1);
        const core = kubeConfig(cluster.kubeconfigPath).makeApiClient(k8s.CoreV1Api);
        const namespace = 'default';
        const create = (body: k8s.V1Pod): Promise<k8s.V1Pod> =>
          core.createNamespacedPod({ namespace, body });
        const read = (name: string): Promise<k8s.V1Pod> =>
          core.readNamespacedPod({ namespace, name });
        const run = (args: readonly string[]) =>
          kubectl(args, { kubeconfig: cluster.kubeconfigPath });

        await create(pod('fails', { command: ['false'] }));
        await create(pod('sleeps', { command: ['sleep', '3600'] }));
        await create(
          pod('says', {
            image: 'alpine',
            command: ['sh', '-c', 'echo hello from a real container; sleep 3600'],
          }),
        );
        await create(pod('web', { image: 'nginx:1.7.9' }));
        // Not in the registry, but explicitly for the real node: the pull really fails.
        await create(
          pod(
            'nowhere',
            { image: 'thisisnonexistingimage' },
            { nodeSelector: { 'planwright.dev/node-kind': 'real' } },
          ),
        );
        // Not in the registry: a real package's image, which kwok runs.
        await create(pod('database', { image: 'mysql:5.7' }));

        const failed = await waitFor(
          'pod fails Failed',
          async () =>
            (await read('fails')).status?.phase === 'Failed' ? read('fails') : undefined,
          STEP,
        );
        expect(failed.spec?.nodeName).toBe('node-1');
        expect(failed.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
          exitCode: 1,
          reason: 'Error',
        });

        const pullFailure = await waitFor(
          'pod nowhere waiting on its image',
          async () => {
            const reason = (await read('nowhere')).status?.containerStatuses?.[0]?.state?.waiting
              ?.reason;
            return reason === 'ImagePullBackOff' || reason === 'ErrImagePull' ? reason : undefined;
          },
          STEP,
        );
        expect(['ImagePullBackOff', 'ErrImagePull']).toContain(pullFailure);
        await waitFor(
          'pod nowhere in ImagePullBackOff',
          async () =>
            (await read('nowhere')).status?.containerStatuses?.[0]?.state?.waiting?.reason ===
            'ImagePullBackOff',
          STEP,
        );

        for (const name of ['sleeps', 'says', 'web']) {
          const running = await waitFor(
            `pod ${name} Running and ready`,
            async () => {
              const p = await read(name);
              return p.status?.phase === 'Running' && p.status.containerStatuses?.[0]?.ready
                ? p
                : undefined;
            },
            STEP,
          );
          expect(running.spec?.nodeName).toBe('node-1');
          expect(running.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
        }

        const database = await waitFor(
          'pod database Running on a kwok node',
          async () => {
            const p = await read('database');
            return p.status?.phase === 'Running' ? p : undefined;
          },
          STEP,
        );
        expect(database.spec?.nodeName).toBe('kwok-node-1');

        const logs = await waitFor(
          'logs of pod says',
          async () => {
            const res = await run(['logs', 'says']);
            return res.stdout.includes('hello from a real container') ? res : undefined;
          },
          STEP,
        );
        expect(logs.code).toBe(0);

        const exec = await run([
          'exec',
          'sleeps',
          '--',
          'sh',
          '-c',
          'echo $((6 * 7)); cat /etc/hostname',
        ]);
        expect(exec).toMatchObject({ code: 0 });
        expect(exec.stdout.split('\n')).toEqual(['42', 'sleeps', '']);

        // Pod to pod over the bridge: the nginx stand-in serves port 80.
        const web = await read('web');
        const page = await run([
          'exec',
          'sleeps',
          '--',
          'wget',
          '-qO-',
          `http://${web.status?.podIP ?? ''}/`,
        ]);
        expect(page.stdout).toContain('Welcome to nginx');

        // Nothing beyond the node: no default route out of a pod.
        const routes = await run(['exec', 'sleeps', '--', 'ip', 'route']);
        expect(routes.stdout).not.toContain('default');
      } finally {
        await cluster.stop();
      }
      for (const pid of pids) expect(isAlive(pid)).toBe(false);
      for (const t of traces) {
        expect(findLeftovers(t)).toEqual({
          containers: [],
          processes: [],
          mounts: [],
          bridge: false,
          serviceRoute: false,
          logLinks: [],
        });
      }
      expect(existsSync(workDir)).toBe(false);
    },
    8 * READY_TIMEOUT_MS,
  );
});
