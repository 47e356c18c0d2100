// The pure parts of sharding: which shard a key belongs to (rendezvous over the shard names)
// and which live member runs which shard (balanced, sticky, the same from any replica).
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { assignShards } from '../../../../src/runtime/sharding/assignment.ts';
import {
  isShardName,
  rendezvous,
  shardNames,
  shardOf,
} from '../../../../src/runtime/sharding/rendezvous.ts';

const counts = (assignment: ReadonlyMap<string, string>): Map<string, number> => {
  const out = new Map<string, number>();
  for (const member of assignment.values()) out.set(member, (out.get(member) ?? 0) + 1);
  return out;
};

const memberSets = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/), {
  minLength: 1,
  maxLength: 9,
});

describe('shardOf', () => {
  it('is one shard of the count, the same on every call, "0" for one shard', () => {
    expect(shardOf('ns/a', 1)).toBe('0');
    for (const key of ['ns/a', 'ns/b', 'other/zookeeper']) {
      const shard = shardOf(key, 12);
      expect(isShardName(shard, 12)).toBe(true);
      expect(shardOf(key, 12)).toBe(shard);
    }
    expect(() => shardOf('ns/a', 0)).toThrow(RangeError);
  });

  // The keys are fixed, so are their shards: the margins hold or fail for good.
  it('spreads keys evenly: 2,400 keys over 12 shards within 20 % of 200 each', () => {
    const per = new Map<string, number>();
    for (let i = 0; i < 2_400; i++) {
      const s = shardOf(`namespace-${i % 7}/instance-${i}`, 12);
      per.set(s, (per.get(s) ?? 0) + 1);
    }
    expect([...per.keys()].sort()).toEqual(shardNames(12).sort());
    for (const n of per.values()) {
      expect(n).toBeGreaterThan(160);
      expect(n).toBeLessThan(240);
    }
  });

  it('growing the count moves only keys to the new shards; shrinking only those of removed shards', () => {
    const keys = Array.from({ length: 1_200 }, (_, i) => `ns/i-${i}`);
    for (const key of keys) {
      const at6 = shardOf(key, 6);
      const at9 = shardOf(key, 9);
      if (at6 !== at9) expect(Number(at9)).toBeGreaterThanOrEqual(6);
    }
    const moved = keys.filter((k) => shardOf(k, 6) !== shardOf(k, 9)).length;
    // A third of the keys belong to the 3 new shards of 9.
    expect(moved / keys.length).toBeGreaterThan(0.28);
    expect(moved / keys.length).toBeLessThan(0.39);
  });

  it('names shards by decimal number below the count; anything else is not a shard', () => {
    expect(isShardName('0', 1)).toBe(true);
    expect(isShardName('11', 12)).toBe(true);
    for (const bad of [undefined, '', '12', '-1', '01', 'a', '1.0', ' 1']) {
      expect(isShardName(bad, 12)).toBe(false);
    }
  });

  it('rendezvous does not depend on the candidates’ order', () => {
    fc.assert(
      fc.property(memberSets, fc.string(), (members, key) => {
        const reversed = [...members].reverse();
        expect(rendezvous(key, members)).toBe(rendezvous(key, reversed));
      }),
    );
    expect(rendezvous('k', [])).toBeUndefined();
  });
});

describe('assignShards', () => {
  const shards = shardNames(12);

  it('gives every shard to a member, each member ⌊S/R⌋ or ⌈S/R⌉, whatever the holders', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 24 }),
        memberSets,
        fc.array(fc.tuple(fc.nat(30), fc.nat(12))),
        (shardCount, members, held) => {
          const names = shardNames(shardCount);
          const holders = new Map(
            held.map(([s, m]) => [String(s), members[m % members.length] ?? 'gone']),
          );
          const assignment = assignShards({ shards: names, members, holders });
          expect([...assignment.keys()].sort()).toEqual([...names].sort());
          const floor = Math.floor(shardCount / members.length);
          for (const member of members) {
            const n = counts(assignment).get(member) ?? 0;
            expect(n === floor || n === floor + 1).toBe(true);
          }
        },
      ),
    );
  });

  it('is the same from any replica: member and holder order do not matter', () => {
    fc.assert(
      fc.property(memberSets, fc.array(fc.tuple(fc.nat(11), fc.nat(8))), (members, held) => {
        const entries = held.map(
          ([s, m]) => [String(s), members[m % members.length] ?? ''] as const,
        );
        const a = assignShards({ shards, members, holders: new Map(entries) });
        const b = assignShards({
          shards: [...shards].reverse(),
          members: [...members].reverse(),
          holders: new Map([...new Map(entries)].reverse()),
        });
        expect([...b].sort()).toEqual([...a].sort());
      }),
    );
  });

  it('is a fixed point once the shards moved where it said', () => {
    fc.assert(
      fc.property(memberSets, (members) => {
        const first = assignShards({ shards, members, holders: new Map() });
        expect(assignShards({ shards, members, holders: first })).toEqual(first);
      }),
    );
  });

  it('when a member leaves, only its shards move', () => {
    fc.assert(
      fc.property(
        memberSets.filter((m) => m.length >= 2),
        fc.nat(),
        (members, pick) => {
          const settled = assignShards({ shards, members, holders: new Map() });
          const gone = members[pick % members.length] ?? '';
          const rest = members.filter((m) => m !== gone);
          const next = assignShards({ shards, members: rest, holders: settled });
          for (const [shard, holder] of settled) {
            if (holder !== gone) expect(next.get(shard)).toBe(holder);
          }
        },
      ),
    );
  });

  it('when a member joins, it takes its quota and nothing else moves between the others', () => {
    fc.assert(
      fc.property(
        memberSets.filter((m) => m.length < 9 && !m.includes('newcomer')),
        (members) => {
          const settled = assignShards({ shards, members, holders: new Map() });
          const next = assignShards({
            shards,
            members: [...members, 'newcomer'],
            holders: settled,
          });
          const moved = shards.filter((s) => next.get(s) !== settled.get(s));
          for (const s of moved) expect(next.get(s)).toBe('newcomer');
          expect(moved.length).toBe(counts(next).get('newcomer') ?? 0);
        },
      ),
    );
  });

  it('three members of twelve shards run four each', () => {
    const assignment = assignShards({ shards, members: ['a', 'b', 'c'], holders: new Map() });
    expect([...counts(assignment).values()]).toEqual([4, 4, 4]);
    expect(assignShards({ shards, members: [], holders: new Map() }).size).toBe(0);
  });
});
