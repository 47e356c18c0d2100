// kubectl exec into a simulated pod: the API server's pods/exec subresource reaches kwok's
// kubelet server on loopback (every fake node names it), which runs the request as a local
// command where the pod's Exec object says (test/support/simulated-exec.ts). Exit codes,
// stdout and stderr come back through the real streams — kubectl's SPDY/WebSocket client and
// client-node's WebSocket Exec (what the Pipe task uses) alike.
import { beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { WebSocketPodExec } from '../../../src/kudo/tasks/index.ts';
import { createTestNamespace, kubeConfig, kubectl } from '../../support/cluster.ts';
import { simulatePodFiles } from '../../support/simulated-exec.ts';
import { waitFor } from '../../support/wait.ts';

describe('exec into simulated pods', () => {
  const kc = kubeConfig();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  let namespace = '';

  beforeAll(async () => {
    namespace = await createTestNamespace('exec');
    await simulatePodFiles(namespace, 'box', { '/data/hello.txt': 'hello from the pod\n' });
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'box' },
        spec: {
          containers: [{ name: 'main', image: 'busybox' }],
          terminationGracePeriodSeconds: 0,
        },
      },
    });
    await waitFor('pod box Running', async () => {
      const pod = await core.readNamespacedPod({ namespace, name: 'box' });
      return pod.status?.phase === 'Running';
    });
  }, 60_000);

  it('kubectl exec runs the command against the pod’s files', async () => {
    const ok = await kubectl([
      'exec',
      '-n',
      namespace,
      'box',
      '--',
      'stat',
      '-c',
      '%s',
      '/data/hello.txt',
    ]);
    expect(ok).toMatchObject({ code: 0, stdout: '19\n' });
    const missing = await kubectl(['exec', '-n', namespace, 'box', '--', 'stat', '/data/missing']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/No such file or directory/);
  });

  it('the pods/exec WebSocket returns stdout bytes and exit codes', async () => {
    const exec = new WebSocketPodExec(kc);
    const base = {
      namespace,
      pod: 'box',
      container: 'main',
      maxStdoutBytes: 1 << 20,
      timeoutMs: 30_000,
      signal: new AbortController().signal,
    };
    const tar = await exec.run({ ...base, command: ['tar', 'cf', '-', '/data/hello.txt'] });
    expect(tar.exitCode).toBe(0);
    // A tar stream: the member name without the leading "/" in the first header.
    expect(tar.stdout.subarray(0, 14).toString()).toBe('data/hello.txt');
    expect(tar.stdout.length % 512).toBe(0);
    const failed = await exec.run({ ...base, command: ['stat', '/data/missing'] });
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toMatch(/No such file or directory/);
  });
});
