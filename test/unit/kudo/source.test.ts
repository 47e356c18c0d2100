// OperatorVersion lookup for admission: the shared cache answers; a miss costs one live GET.
import { describe, expect, it } from '@jest/globals';
import type { OperatorVersion } from '../../../src/kudo/api/index.ts';
import {
  CachedOperatorVersionSource,
  type OperatorVersionSource,
} from '../../../src/kudo/admission/index.ts';
import { operatorVersion } from './fixtures.ts';

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
