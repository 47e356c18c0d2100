// OperatorVersion lookup for admission: the shared cache answers; a miss costs one live GET.
import { describe, expect, it } from '@jest/globals';
import type { OperatorVersion } from '../../../../src/kudo/api/index.ts';
import { ApiError, type KubeClient } from '../../../../src/kube/index.ts';
import {
  CachedOperatorVersionSource,
  LiveOperatorVersionSource,
  OperatorVersionLookupError,
  type OperatorVersionSource,
} from '../../../../src/kudo/admission/index.ts';
import { operatorVersion } from '../fixtures.ts';

function countingLive(
  answer: OperatorVersion | undefined,
): OperatorVersionSource & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    get: (namespace, name) => {
      calls.push(`${namespace}/${name}`);
      return Promise.resolve(answer);
    },
  };
}

describe('CachedOperatorVersionSource', () => {
  const cached = operatorVersion('in-cache', ['deploy'], []);
  const cache = new Map([['test/in-cache', cached]]);

  it('answers from the cache without a live GET', async () => {
    const live = countingLive(undefined);
    const source = new CachedOperatorVersionSource({ cache, live });
    expect(await source.get('test', 'in-cache')).toBe(cached);
    expect(live.calls).toEqual([]);
  });

  it('asks the live source once on a miss, and reports absence as undefined', async () => {
    const fresh = operatorVersion('fresh', ['deploy'], []);
    const live = countingLive(fresh);
    const source = new CachedOperatorVersionSource({ cache, live });
    expect(await source.get('test', 'fresh')).toBe(fresh);
    expect(live.calls).toEqual(['test/fresh']);
    const none = new CachedOperatorVersionSource({ cache, live: countingLive(undefined) });
    expect(await none.get('test', 'gone')).toBeUndefined();
  });
});

describe('LiveOperatorVersionSource', () => {
  function client(
    fail: Error | undefined,
    answer?: OperatorVersion,
  ): KubeClient & { paths: string[] } {
    const paths: string[] = [];
    const fake = {
      paths,
      request: (options: { path: string }) => {
        paths.push(options.path);
        return fail ? Promise.reject(fail) : Promise.resolve(answer);
      },
    };
    return fake as unknown as KubeClient & { paths: string[] };
  }

  it('GETs the namespaced object', async () => {
    const ov = operatorVersion('zk-1', ['deploy'], []);
    const c = client(undefined, ov);
    const source = new LiveOperatorVersionSource({ client: c, timeoutMs: 1_000 });
    expect(await source.get('team a', 'zk-1')).toBe(ov);
    expect(c.paths).toEqual(['/apis/kudo.dev/v1beta1/namespaces/team%20a/operatorversions/zk-1']);
  });

  it('answers undefined for 404 and a lookup error naming the object otherwise', async () => {
    const notFound = new ApiError(404, 'NotFound', 'not found', 'GET', '/x');
    expect(
      await new LiveOperatorVersionSource({ client: client(notFound), timeoutMs: 1_000 }).get(
        'ns',
        'a',
      ),
    ).toBeUndefined();
    const down = new ApiError(503, 'ServiceUnavailable', 'etcd down', 'GET', '/x');
    const failing = new LiveOperatorVersionSource({ client: client(down), timeoutMs: 1_000 });
    await expect(failing.get('ns', 'a')).rejects.toThrow(OperatorVersionLookupError);
    await expect(failing.get('ns', 'a')).rejects.toThrow(
      'could not read OperatorVersion ns/a: GET /x: 503 ServiceUnavailable: etcd down; the change was not admitted, try again',
    );
  });
});
