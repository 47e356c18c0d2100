// The drift keeper's baselines belong to an Instance: an Instance deleted without a cleanup
// pass (no finalizer: all its objects are garbage-collected) has them dropped when it leaves
// the cache, not left for eviction.
import { describe, expect, it } from '@jest/globals';
import { ServerSideApply, type ApplyObject } from '../../../../src/kube/apply.ts';
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

describe('DriftKeeper memory', () => {
  const cm = (name: string, data: Record<string, string>): ApplyObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'ns', labels: { app: name } },
    data,
  });
  const apply = (keeper: DriftKeeper, owner: string, obj: ApplyObject): void =>
    keeper.applied(owner, { entry: entryOf(obj), desired: obj, live: structuredClone(obj) });

  it('objects of one structure share one shape; it goes with its last baseline', () => {
    const keeper = new DriftKeeper();
    for (let i = 0; i < 50; i++) apply(keeper, `ns/i${i}`, cm(`c${i}`, { v: `value ${i}` }));
    apply(keeper, 'ns/other', cm('wide', { v: 'x', w: 'y' }));
    expect(keeper.size).toBe(51);
    expect(keeper.shapeCount).toBe(2);
    // Applied again with the same structure: still one use of the shape.
    apply(keeper, 'ns/i0', cm('c0', { v: 'again' }));
    expect(keeper.shapeCount).toBe(2);
    keeper.forgetInstance('ns/other');
    expect(keeper.shapeCount).toBe(1);
    for (let i = 0; i < 50; i++) keeper.forgetInstance(`ns/i${i}`);
    expect(keeper.size).toBe(0);
    expect(keeper.shapeCount).toBe(0);
  });

  it('an evicted baseline releases its shape and its owner', async () => {
    const keeper = new DriftKeeper(undefined, 2);
    apply(keeper, 'ns/a', cm('a', { only: 'a' }));
    apply(keeper, 'ns/b', cm('b', { v: 'b' }));
    apply(keeper, 'ns/c', cm('c', { v: 'c' }));
    expect(keeper.size).toBe(2);
    expect(keeper.shapeCount).toBe(1);
    const check = await keeper.check({
      instance: { metadata: { name: 'any', namespace: 'ns' } },
      mode: 'report',
      entries: ['a', 'b', 'c'].map((n) => entryOf(cm(n, {}))),
      target: {} as Target,
      live: () => undefined,
      sink: { event: () => undefined },
      signal: new AbortController().signal,
    });
    expect(check.map((f) => f.entry.name)).toEqual(['b', 'c']);
  });

  it('correct re-applies the object as it was applied, and then sees it in sync', async () => {
    const keeper = new DriftKeeper();
    const applied: ApplyObject = {
      ...cm('c', { v: 'mine', w: '2' }),
      metadata: {
        name: 'c',
        namespace: 'ns',
        labels: { app: 'c', 'planwright.dev/instance-uid': 'u-i' },
        annotations: { 'kudo.dev/plan': 'deploy' },
      },
    };
    apply(keeper, 'ns/i', applied);
    const edited = { ...structuredClone(applied), data: { v: 'theirs', w: '2' } };
    const sent: ApplyObject[] = [];
    // A ServerSideApply whose apply records what it is sent (the ResourceManager re-applies
    // through it).
    const ssa = Object.assign(Object.create(ServerSideApply.prototype) as ServerSideApply, {
      apply: (obj: ApplyObject): Promise<ApplyObject> => {
        sent.push(obj);
        return Promise.resolve({
          ...structuredClone(obj),
          metadata: { ...obj.metadata, resourceVersion: '9' },
        });
      },
    });
    const target = { ssa } as unknown as Target;
    const events: string[] = [];
    const input = (live: ApplyObject): DriftCheckInput => ({
      instance: { metadata: { name: 'i', namespace: 'ns', uid: 'u-i' } },
      mode: 'correct',
      entries: [entryOf(applied)],
      target,
      live: () => live,
      sink: { event: (_type, reason, message) => events.push(`${reason}: ${message}`) },
      signal: new AbortController().signal,
    });
    const findings = await keeper.check(input(edited));
    expect(findings.map((f) => [f.fields, f.corrected])).toEqual([[['data.v'], true]]);
    expect(sent).toEqual([applied]);
    expect(events).toEqual([
      expect.stringMatching(
        /^DriftCorrected: ConfigMap ns\/c was changed outside a plan \(data\.v\)/,
      ),
    ]);
    expect(await keeper.check(input(sent[0] as ApplyObject))).toEqual([]);
    expect(keeper.shapeCount).toBe(1);
    // Taken over since (no longer carrying this Instance's uid): reported, never re-applied.
    const taken = structuredClone(edited);
    taken.metadata = { ...taken.metadata, labels: { app: 'c' } };
    events.length = 0;
    const left = await keeper.check(input(taken));
    expect(left.map((f) => f.corrected)).toEqual([false]);
    expect(sent).toHaveLength(1);
    expect(events).toEqual([
      expect.stringMatching(
        /^DriftNotCorrected: ConfigMap ns\/c differs from what Planwright applied \(.*\) and no longer carries the owner reference or planwright.dev\/instance-uid label of Instance ns\/i/,
      ),
    ]);
  });
});
