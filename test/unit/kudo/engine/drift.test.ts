// The drift keeper's baselines belong to an Instance: an Instance deleted without a cleanup
// pass (no finalizer: all its objects are garbage-collected) has them dropped when it leaves
// the cache, not left for eviction.
import { describe, expect, it } from '@jest/globals';
import type { ApplyObject } from '../../../../src/kube/apply.ts';
import { DriftKeeper, type DriftCheckInput } from '../../../../src/kudo/engine/drift.ts';
import type { Target } from '../../../../src/kudo/engine/targets.ts';
import { entryOf } from '../../../../src/kudo/inventory/index.ts';

const configMap = (name: string): ApplyObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns' },
  data: { k: 'v' },
});

/** A report-mode check of `names` where every object was deleted since it was applied. */
const checkDeleted = (keeper: DriftKeeper, names: string[]): Promise<string[]> =>
  keeper
    .check({
      instance: { metadata: { name: 'any', namespace: 'ns' } },
      mode: 'report',
      entries: names.map((n) => entryOf(configMap(n))),
      target: {} as Target,
      live: () => undefined,
      sink: { event: () => undefined },
      signal: new AbortController().signal,
    } satisfies DriftCheckInput)
    .then((findings) => findings.map((f) => f.entry.name));

describe('DriftKeeper', () => {
  const applied = (keeper: DriftKeeper, owner: string, name: string): void =>
    keeper.applied(owner, {
      entry: entryOf(configMap(name)),
      desired: configMap(name),
      live: configMap(name),
    });

  it('forgetInstance drops the baselines of that Instance only', async () => {
    const keeper = new DriftKeeper();
    applied(keeper, 'ns/a', 'a-0');
    applied(keeper, 'ns/a', 'a-1');
    applied(keeper, 'ns/b', 'b-0');
    expect(await checkDeleted(keeper, ['a-0', 'a-1', 'b-0'])).toEqual(['a-0', 'a-1', 'b-0']);

    keeper.forgetInstance('ns/a');
    expect(await checkDeleted(keeper, ['a-0', 'a-1', 'b-0'])).toEqual(['b-0']);
  });

  it('a baseline applied again by another Instance belongs to that one', async () => {
    const keeper = new DriftKeeper();
    applied(keeper, 'ns/a', 'shared');
    applied(keeper, 'ns/b', 'shared');
    keeper.forgetInstance('ns/a');
    expect(await checkDeleted(keeper, ['shared'])).toEqual(['shared']);
    keeper.forgetInstance('ns/b');
    expect(await checkDeleted(keeper, ['shared'])).toEqual([]);
  });
});
