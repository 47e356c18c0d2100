// EventRecorder.recordOnce on the real apiserver: an occurrence recorded twice (a pass re-run
// after a crash, or by the next manager) is one Event; the second POST is answered 409
// AlreadyExists and counts as recorded, without a warning. Aborting the caller's signal ends
// a POST stalled on a wedged path at once (not recorded; the re-run records the same name).
import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { ApiError, KubeClient, type RequestOptions } from '../../../src/kube/index.ts';
import { EventRecorder, onceName } from '../../../src/runtime/events.ts';
import { createTestNamespace, kubeConfig, mintUser, testCluster } from '../../support/cluster.ts';
import { FreezableProxy } from '../../support/freezable-proxy.ts';
import { waitFor } from '../../support/wait.ts';

interface EventList {
  items: {
    metadata: { name: string };
    reason: string;
    message: string;
    count: number;
    involvedObject: { uid: string };
    source: { component: string };
  }[];
}

/** A client that remembers the status code of every failed request it passes on. */
function observed(client: KubeClient, failures: number[]): KubeClient {
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop !== 'request') return Reflect.get(target, prop, receiver) as unknown;
      return async (options: RequestOptions): Promise<unknown> => {
        try {
          return await target.request(options);
        } catch (err) {
          failures.push(err instanceof ApiError ? err.statusCode : -1);
          throw err;
        }
      };
    },
  });
}

/** A logger that keeps the lines of warnings and worse (or of `level` and worse) in `lines`. */
function warnLogger(lines: string[], level = 'warn'): Logger {
  return pino(
    { level },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
}

/** ConfigMap `x` in a new namespace: the object the Events are about. */
async function configMapX(
  client: KubeClient,
  prefix: string,
): Promise<{
  namespace: string;
  created: { metadata: { uid: string } };
  obj: {
    apiVersion: string;
    kind: string;
    metadata: { name: string; namespace: string; uid: string };
  };
}> {
  const namespace = await createTestNamespace(prefix);
  const created = await client.request<{ metadata: { uid: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/configmaps`,
    body: { metadata: { name: 'x' } },
  });
  const obj = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', namespace, uid: created.metadata.uid },
  };
  return { namespace, created, obj };
}

describe('EventRecorder.recordOnce', () => {
  it('records one Event per id; a second recording is answered 409 and counts as recorded', async () => {
    const client = new KubeClient(kubeConfig());
    const { namespace, created, obj } = await configMapX(client, 'events-once');
    const failures: number[] = [];
    const warnings: string[] = [];
    const logger = warnLogger(warnings);
    const recorder = (): EventRecorder =>
      new EventRecorder({ client: observed(client, failures), component: 'planwright', logger });

    // Two recorders: the second stands for the next manager, which remembers nothing.
    await recorder().recordOnce(obj, 'Normal', 'PlanFinished', 'done', 'run-1/COMPLETE');
    expect(failures).toEqual([]);
    await recorder().recordOnce(obj, 'Normal', 'PlanFinished', 'done', 'run-1/COMPLETE');
    expect(failures).toEqual([409]);
    expect(warnings).toEqual([]);
    // Another occurrence (another run) is another Event.
    await recorder()
      .forComponent('instance-controller')
      .recordOnce(obj, 'Normal', 'PlanFinished', 'done', 'run-2/COMPLETE');

    const events = await client.request<EventList>({
      path: `/api/v1/namespaces/${namespace}/events`,
    });
    expect(
      events.items
        .map((e) => [
          e.metadata.name,
          e.reason,
          e.message,
          e.count,
          e.involvedObject.uid,
          e.source.component,
        ])
        .sort(),
    ).toEqual(
      [
        [
          onceName('x', [created.metadata.uid, 'PlanFinished', 'run-1/COMPLETE']),
          'PlanFinished',
          'done',
          1,
          created.metadata.uid,
          'planwright',
        ],
        [
          onceName('x', [created.metadata.uid, 'PlanFinished', 'run-2/COMPLETE']),
          'PlanFinished',
          'done',
          1,
          created.metadata.uid,
          'instance-controller',
        ],
      ].sort(),
    );
  });

  it('logs a failed POST other than 409 and resolves (Events are best-effort)', async () => {
    const client = new KubeClient(kubeConfig());
    const failures: number[] = [];
    const warnings: string[] = [];
    const logger = warnLogger(warnings);
    const recorder = new EventRecorder({
      client: observed(client, failures),
      component: 'planwright',
      logger,
    });
    // A namespace that does not exist: the apiserver answers 404.
    const obj = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', namespace: 'no-such-namespace-for-events', uid: 'u' },
    };
    await expect(
      recorder.recordOnce(obj, 'Normal', 'PlanFinished', 'done', 'run-1/COMPLETE'),
    ).resolves.toBeUndefined();
    expect(failures).toEqual([404]);
    expect(warnings.join('')).toContain('could not record event');
  });

  it('ends a POST stalled on a wedged path when the signal aborts: not recorded, no warning; the re-run records it', async () => {
    const direct = new KubeClient(kubeConfig());
    const { namespace, created, obj } = await configMapX(direct, 'events-abort');
    const cluster = testCluster();
    const server = new URL(cluster.server);
    const proxy = new FreezableProxy({ host: server.hostname, port: Number(server.port) });
    const proxyPort = await proxy.listen();
    const viaProxy = new KubeClient(
      kubeConfig(
        (await mintUser('events-abort-test', ['system:masters'], `https://127.0.0.1:${proxyPort}`))
          .kubeconfigPath,
      ),
    );
    try {
      // A kept-alive connection through the proxy, then the path wedges under it.
      await viaProxy.request({ path: `/api/v1/namespaces/${namespace}/configmaps/x` });
      expect(proxy.openConnections).toBe(1);
      proxy.freeze();
      const lines: string[] = [];
      const recorder = new EventRecorder({
        client: viaProxy,
        component: 'instance-controller',
        logger: warnLogger(lines, 'debug'),
      });
      const reconcile = new AbortController();
      const recording = recorder.recordOnce(
        obj,
        'Normal',
        'PlanStarted',
        'Execution of plan deploy started',
        'run-1/STARTED',
        reconcile.signal,
      );
      reconcile.abort(new Error('shutdown deadline passed'));
      // Without the signal this would wait for the POST's own 10 s timeout and log a warning.
      await expect(recording).resolves.toBeUndefined();
      await recorder.flush();
      expect(lines.filter((l) => (JSON.parse(l) as { level: number }).level >= 40)).toEqual([]);
      expect(lines.join('')).toContain('event not recorded: the reconcile was aborted');
      // The client gave the stalled connection up (nothing of the POST reached the apiserver).
      await waitFor('the stalled connection to close', () => proxy.openConnections === 0);
      proxy.thaw();
      const name = onceName('x', [created.metadata.uid, 'PlanStarted', 'run-1/STARTED']);
      await expect(
        direct.request({ path: `/api/v1/namespaces/${namespace}/events/${name}` }),
      ).rejects.toMatchObject({ statusCode: 404 });

      // The pass run again (here: the next manager, a direct path) records the same name once.
      await new EventRecorder({
        client: direct,
        component: 'instance-controller',
        logger: warnLogger(lines),
      }).recordOnce(
        obj,
        'Normal',
        'PlanStarted',
        'Execution of plan deploy started',
        'run-1/STARTED',
      );
      const stored = await direct.request<{ reason: string; count: number }>({
        path: `/api/v1/namespaces/${namespace}/events/${name}`,
      });
      expect([stored.reason, stored.count]).toEqual(['PlanStarted', 1]);
    } finally {
      viaProxy.close();
      await proxy.close();
    }
  });
});
