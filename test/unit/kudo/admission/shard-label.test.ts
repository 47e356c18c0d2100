// The shard label the Instance webhook writes: on CREATE the shard the Instance's key (its
// parent's, for a child) hashes to, whatever the request said; on UPDATE the stored one, unless
// it names no shard of this installation and no live replica holds it. Checked by applying
// the returned JSON patch to the object (the label key's "/" must be escaped).
import { describe, expect, it } from '@jest/globals';
import { applyPatch } from 'rfc6902';
import { shardLabelPatch } from '../../../../src/kudo/admission/shard-label.ts';
import { SHARD_LABEL, type Instance } from '../../../../src/kudo/api/index.ts';
import { shardNames, shardOf, type ShardView } from '../../../../src/runtime/index.ts';

const SHARDS = 12;

/** A replica's view: 12 shards; `held` are the shards (of any count) a live replica holds. */
function view(held: readonly string[] = []): ShardView {
  return {
    shards: shardNames(SHARDS),
    runs: () => false,
    isHeld: (shard) => held.includes(shard),
    onChange: () => () => undefined,
  };
}

function instance(name: string, labels?: Record<string, string>, parent?: string): Instance {
  return {
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'Instance',
    metadata: {
      name,
      namespace: 'team',
      ...(labels ? { labels } : {}),
      ...(parent
        ? {
            ownerReferences: [
              { apiVersion: 'kudo.dev/v1beta1', kind: 'Instance', name: parent, uid: 'p-uid' },
            ],
          }
        : {}),
    },
    spec: { operatorVersion: { name: 'ov' } },
  };
}

/** The labels `object` ends with once the webhook's patch is applied. */
function admitted(object: Instance, old?: Instance, held?: readonly string[]): unknown {
  const copy = structuredClone(object);
  const result = applyPatch(copy, shardLabelPatch(object, old, { shards: view(held) }));
  expect(result.every((r) => r === null)).toBe(true);
  return copy.metadata.labels;
}

describe('shard label on admission', () => {
  const own = shardOf('team/zk', SHARDS);

  it('CREATE labels the Instance with the shard of its key, whatever the request said', () => {
    expect(admitted(instance('zk'))).toEqual({ [SHARD_LABEL]: own });
    const wrong = String((Number(own) + 1) % SHARDS);
    expect(admitted(instance('zk', { app: 'x', [SHARD_LABEL]: wrong }))).toEqual({
      app: 'x',
      [SHARD_LABEL]: own,
    });
  });

  it('CREATE of a child (owner reference to an Instance) labels it with its parent’s shard', () => {
    const parents = Array.from({ length: 20 }, (_, i) => `parent-${i}`);
    for (const parent of parents) {
      expect(admitted(instance(`${parent}-child`, undefined, parent))).toEqual({
        [SHARD_LABEL]: shardOf(`team/${parent}`, SHARDS),
      });
    }
    // Not the child's own key (for some of them the two differ).
    expect(
      parents.some((p) => shardOf(`team/${p}-child`, SHARDS) !== shardOf(`team/${p}`, SHARDS)),
    ).toBe(true);
  });

  it('UPDATE keeps the stored shard: a removed or changed label is put back', () => {
    const stored = instance('zk', { [SHARD_LABEL]: '3' });
    expect(admitted(instance('zk', { other: 'y' }), stored)).toEqual({
      other: 'y',
      [SHARD_LABEL]: '3',
    });
    expect(admitted(instance('zk'), stored)).toEqual({ [SHARD_LABEL]: '3' });
    expect(admitted(instance('zk', { [SHARD_LABEL]: '5' }), stored)).toEqual({
      [SHARD_LABEL]: '3',
    });
    expect(
      shardLabelPatch(instance('zk', { [SHARD_LABEL]: '3' }), stored, { shards: view() }),
    ).toEqual([]);
  });

  it('UPDATE labels an Instance stored without a shard, or with one beyond the count that nobody holds', () => {
    expect(admitted(instance('zk'), instance('zk'))).toEqual({ [SHARD_LABEL]: own });
    const beyond = instance('zk', { [SHARD_LABEL]: '17' });
    expect(admitted(instance('zk', { [SHARD_LABEL]: '17' }), beyond)).toEqual({
      [SHARD_LABEL]: own,
    });
    expect(
      admitted(
        instance('zk', { [SHARD_LABEL]: 'junk' }),
        instance('zk', { [SHARD_LABEL]: 'junk' }),
      ),
    ).toEqual({
      [SHARD_LABEL]: own,
    });
  });

  it('UPDATE keeps a shard beyond the count while a live replica (started with a larger count) holds it', () => {
    const beyond = instance('zk', { [SHARD_LABEL]: '17' });
    expect(admitted(instance('zk'), beyond, ['17'])).toEqual({ [SHARD_LABEL]: '17' });
  });
});
