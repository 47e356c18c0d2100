import { describe, expect, it } from '@jest/globals';
import { BoundedMap } from '../../../src/runtime/bounded-map.ts';

describe('BoundedMap', () => {
  it('holds at most capacity keys, forgetting the oldest-written first', () => {
    const m = new BoundedMap<string, number>(2);
    m.set('a', 1).set('b', 2).set('c', 3);
    expect(m.size).toBe(2);
    expect(m.has('a')).toBe(false);
    expect([...m]).toEqual([
      ['b', 2],
      ['c', 3],
    ]);
  });

  it('counts a set of an existing key as the newest write; a get does not refresh', () => {
    const m = new BoundedMap<string, number>(2);
    m.set('a', 1).set('b', 2);
    m.set('a', 10); // a is now newest: b goes next
    expect(m.get('b')).toBe(2); // read only, b stays oldest
    m.set('c', 3);
    expect([...m.keys()]).toEqual(['a', 'c']);
    expect(m.get('a')).toBe(10);
  });

  it('re-setting a key when full evicts nothing', () => {
    const evicted: string[] = [];
    const m = new BoundedMap<string, number>(2, (k) => evicted.push(k));
    m.set('a', 1).set('b', 2).set('b', 3);
    expect(evicted).toEqual([]);
    expect(m.size).toBe(2);
  });

  it('calls onEvict with each key and value forgotten to make room, not on delete or clear', () => {
    const evicted: [string, number][] = [];
    const m = new BoundedMap<string, number>(2, (k, v) => evicted.push([k, v]));
    m.set('a', 1).set('b', 2);
    expect(m.delete('a')).toBe(true);
    expect(m.delete('a')).toBe(false);
    m.set('c', 3);
    expect(evicted).toEqual([]);
    m.set('d', 4);
    expect(evicted).toEqual([['b', 2]]);
    m.clear();
    expect(m.size).toBe(0);
    expect(evicted).toEqual([['b', 2]]);
  });

  it('refuses a capacity that is not a positive integer, naming it', () => {
    expect(() => new BoundedMap(0)).toThrow(/capacity must be an integer ≥ 1, got 0/);
    expect(() => new BoundedMap(1.5)).toThrow(RangeError);
    expect(() => new BoundedMap(Number.NaN)).toThrow(RangeError);
  });
});
