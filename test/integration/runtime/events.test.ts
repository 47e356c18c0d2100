// EventRecorder.recordOnce on the real apiserver: an occurrence recorded twice (a pass re-run
// after a crash, or by the next manager) is one Event; the second POST is answered 409
// AlreadyExists and counts as recorded, without a warning.
import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { ApiError, KubeClient, type RequestOptions } from '../../../src/kube/index.ts';
import { EventRecorder, onceName } from '../../../src/runtime/events.ts';
import { createTestNamespace, kubeConfig } from '../../support/cluster.ts';

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

/** A logger that keeps the lines of warnings and worse in `lines`. */
function warnLogger(lines: string[]): Logger {
  return pino(
    { level: 'warn' },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
}

describe('EventRecorder.recordOnce', () => {
  it('records one Event per id; a second recording is answered 409 and counts as recorded', async () => {
    const client = new KubeClient(kubeConfig());
    const namespace = await createTestNamespace('events-once');
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
});
