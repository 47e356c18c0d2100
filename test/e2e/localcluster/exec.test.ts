// kubectl exec into a container of the real node: the API server's pods/exec subresource
// reaches the kubelet on the node's address, which runs the command in the container through
// containerd and runc. Exit codes, stdout and stderr come back through the real streams —
// kubectl's SPDY/WebSocket client and client-node's WebSocket Exec (what the Pipe task uses)
// alike. The pod writes its own file; busybox's stat and tar read it.
import { beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { WebSocketPodExec } from '../../../src/kudo/tasks/index.ts';
import { NODE_KIND_LABEL } from '../../../src/localcluster/index.ts';
import { createTestNamespace, kubeConfig, kubectl } from '../../support/cluster.ts';
import { requireRealNode } from '../../support/real-node.ts';
import { waitFor } from '../../support/wait.ts';

describe('exec into a container of the real node', () => {
  const kc = kubeConfig();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  let namespace = '';

  beforeAll(async () => {
    requireRealNode('exec into a container');
    namespace = await createTestNamespace('exec');
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'box' },
        spec: {
          containers: [
            {
              name: 'main',
              image: 'busybox',
              command: [
                'sh',
                '-c',
                'mkdir /data && echo hello from the pod > /data/hello.txt && exec sleep 3600',
              ],
              // Ready once the file is there, so no exec races the write.
              readinessProbe: { exec: { command: ['cat', '/data/hello.txt'] }, periodSeconds: 1 },
            },
          ],
          terminationGracePeriodSeconds: 0,
        },
      },
    });
    const pod = await waitFor(
      'pod box Ready',
      async () => {
        const p = await core.readNamespacedPod({ namespace, name: 'box' });
        return p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
          ? p
          : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 250 },
    );
    const node = await core.readNode({ name: pod.spec?.nodeName ?? '' });
    expect(node.metadata?.labels?.[NODE_KIND_LABEL]).toBe('real');
  });

  it('kubectl exec runs the command in the container', async () => {
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
    expect(missing.code).toBe(1);
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
    expect(tar.stdout.includes('hello from the pod\n')).toBe(true);
    const failed = await exec.run({ ...base, command: ['stat', '/data/missing'] });
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toMatch(/No such file or directory/);
  });
});
