import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import {
  ApiError,
  type KubeClient,
  type RequestOptions,
  type WatchOptions,
} from '../../../src/kube/index.ts';
import { JitteredBackoff } from '../../../src/runtime/backoff.ts';
import { Cache } from '../../../src/runtime/cache.ts';
import { OWNER_UID_INDEX } from '../../../src/runtime/store.ts';
import type { KubeObject } from '../../../src/runtime/types.ts';
import { Watcher, type WatcherEvent } from '../../../src/runtime/watcher.ts';

const logger = pino({ level: 'silent' });

function obj(name: string, rv: string, owner?: string): KubeObject {
  return {
    metadata: {
      name,
      namespace: 'ns',
      resourceVersion: rv,
      ownerReferences: owner ? [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: owner }] : undefined,
    },
  };
}

type Step =
  | { list: KubeObject[]; rv: string }
  | { listError: ApiError }
  | { watch: { type: string; object: unknown }[]; end?: 'close' }
  | { watchError: Error };

/** A scripted apiserver: each list/watch call consumes the next matching step. */
class FakeClient {
  readonly calls: string[] = [];
  readonly watchRvs: (string | undefined)[] = [];
  readonly cluster = 'fake';
  constructor(
    private readonly steps: Step[],
    private readonly onExhausted: () => void,
  ) {}

  request<T>(options: RequestOptions): Promise<T> {
    const step = this.steps.shift();
    this.calls.push('list');
    if (!step) {
      this.onExhausted();
      return Promise.reject(new Error('exhausted'));
    }
    if ('listError' in step) return Promise.reject(step.listError);
    if (!('list' in step)) throw new Error(`expected a list step at ${options.path}`);
    return Promise.resolve({
      kind: 'ThingList',
      apiVersion: 'v1',
      metadata: { resourceVersion: step.rv },
      items: step.list,
    } as T);
  }

  watch(options: WatchOptions): Promise<void> {
    this.calls.push('watch');
    this.watchRvs.push(options.query?.resourceVersion as string | undefined);
    const step = this.steps.shift();
    if (!step) {
      this.onExhausted();
      return Promise.resolve();
    }
    if ('watchError' in step) return Promise.reject(step.watchError);
    if (!('watch' in step)) throw new Error('expected a watch step');
    try {
      for (const e of step.watch) options.onEvent(e);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return Promise.resolve();
  }
}

const fastBackoff = (): JitteredBackoff => new JitteredBackoff({ initialMs: 1, maxMs: 5 });

async function runScript(
  steps: Step[],
): Promise<{ events: WatcherEvent<KubeObject>[]; client: FakeClient }> {
  const ac = new AbortController();
  const client = new FakeClient(steps, () => ac.abort());
  const events: WatcherEvent<KubeObject>[] = [];
  const watcher = new Watcher<KubeObject>({
    client: client as unknown as KubeClient,
    path: '/api/v1/things',
    logger,
    backoff: fastBackoff(),
    onEvent: (e) => events.push(e),
  });
  await watcher.run(ac.signal);
  return { events, client };
}

describe('Watcher', () => {
  it('lists, watches from the list resourceVersion, follows bookmarks and re-watches without relisting', async () => {
    const { events, client } = await runScript([
      { list: [obj('a', '1')], rv: '10' },
      {
        watch: [
          { type: 'ADDED', object: obj('b', '11') },
          { type: 'BOOKMARK', object: { metadata: { resourceVersion: '15' } } },
        ],
      },
      { watch: [{ type: 'DELETED', object: obj('a', '16') }] },
    ]);
    expect(client.calls).toEqual(['list', 'watch', 'watch', 'watch']);
    expect(client.watchRvs).toEqual(['10', '15', '16']);
    expect(events.map((e) => e.type)).toEqual(['relisted', 'upsert', 'delete']);
    const first = events[0];
    // List items get apiVersion/kind filled in.
    expect(first?.type === 'relisted' && first.items[0]?.kind).toBe('Thing');
  });

  it('relists on 410 Gone, whether as a status code or a watch ERROR event', async () => {
    const gone = new ApiError(410, 'Expired', 'too old resource version', 'WATCH', '/x');
    const { events, client } = await runScript([
      { list: [], rv: '1' },
      { watchError: gone },
      { list: [obj('a', '5')], rv: '5' },
      {
        watch: [
          {
            type: 'ERROR',
            object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' },
          },
        ],
      },
      { list: [obj('a', '9')], rv: '9' },
    ]);
    expect(client.calls).toEqual(['list', 'watch', 'list', 'watch', 'list', 'watch']);
    expect(events.filter((e) => e.type === 'relisted')).toHaveLength(3);
  });

  it('keeps going after other errors (network, 500, 429 with Retry-After) without relisting', async () => {
    const tooMany = new ApiError(429, 'TooManyRequests', 'slow down', 'WATCH', '/x', 0.01);
    const { client } = await runScript([
      { list: [], rv: '1' },
      { watchError: new Error('ECONNRESET') },
      { watchError: new ApiError(500, 'InternalError', 'boom', 'WATCH', '/x') },
      { watchError: tooMany },
      { watch: [] },
    ]);
    expect(client.calls).toEqual(['list', 'watch', 'watch', 'watch', 'watch', 'watch']);
    expect(client.watchRvs).toEqual(['1', '1', '1', '1', '1']);
  });

  it('retries a failing list with backoff', async () => {
    const { client } = await runScript([
      { listError: new ApiError(503, 'ServiceUnavailable', 'starting', 'GET', '/x') },
      { list: [], rv: '3' },
      { watch: [] },
    ]);
    expect(client.calls.slice(0, 3)).toEqual(['list', 'list', 'watch']);
  });
});

describe('Cache', () => {
  it('swaps in a relist atomically and reports adds, updates and deletions that happened in the gap', async () => {
    const ac = new AbortController();
    const gone = new ApiError(410, 'Expired', 'too old', 'WATCH', '/x');
    let seenDuringSwap: string[] = [];
    const client = new FakeClient(
      [
        { list: [obj('a', '1', 'u1'), obj('b', '1', 'u1'), obj('c', '1')], rv: '1' },
        { watchError: gone },
        { list: [obj('a', '1', 'u1'), obj('b', '7', 'u2'), obj('d', '8')], rv: '9' },
      ],
      () => ac.abort(),
    );
    const cache: Cache = new Cache({
      client: client as unknown as KubeClient,
      mapping: { group: '', version: 'v1', kind: 'Thing', plural: 'things', namespaced: true },
      logger,
    });
    const log: string[] = [];
    cache.subscribe({
      onAdd: (o) => log.push(`add ${o.metadata?.name}`),
      onUpdate: (_old, o) => log.push(`update ${o.metadata?.name}`),
      onDelete: (o) => {
        log.push(`delete ${o.metadata?.name}`);
        // Handlers run after the swap: the store is already complete.
        seenDuringSwap = cache.list().map((x) => x.metadata?.name ?? '') ?? [];
      },
    });
    cache.start(ac.signal);
    await cache.synced;
    await new Promise((resolve) => ac.signal.addEventListener('abort', resolve)); // script played
    await cache.stop();
    expect(log).toEqual(['add a', 'add b', 'add c', 'update b', 'add d', 'delete c']);
    expect(seenDuringSwap.sort()).toEqual(['a', 'b', 'd']);
    expect(cache.byIndex(OWNER_UID_INDEX, 'u1').map((o) => o.metadata?.name)).toEqual(['a']);
    expect(cache.byIndex(OWNER_UID_INDEX, 'u2').map((o) => o.metadata?.name)).toEqual(['b']);
    cache.addIndex('by-rv', (o) => [o.metadata?.resourceVersion ?? '']);
    expect(cache.byIndex('by-rv', '1').map((o) => o.metadata?.name)).toEqual(['a']);
    expect(cache.list('ns')).toHaveLength(3);
  });

  it('replays current objects to a late subscriber, and rejects synced when stopped before syncing', async () => {
    const ac = new AbortController();
    const client = new FakeClient([{ list: [obj('a', '1')], rv: '1' }], () => ac.abort());
    const cache = new Cache({
      client: client as unknown as KubeClient,
      mapping: { group: '', version: 'v1', kind: 'Thing', plural: 'things', namespaced: true },
      logger,
    });
    cache.start(ac.signal);
    await cache.synced;
    await cache.stop();
    const late: string[] = [];
    cache.subscribe({ onAdd: (o) => late.push(o.metadata?.name ?? '') });
    expect(late).toEqual(['a']);

    const never = new Cache({
      client: new FakeClient([], () => undefined) as unknown as KubeClient,
      mapping: { group: '', version: 'v1', kind: 'Thing', plural: 'things', namespaced: true },
      logger,
    });
    never.start();
    await never.stop();
    await expect(never.synced).rejects.toThrow(/stopped before it synced/);
  });
});
