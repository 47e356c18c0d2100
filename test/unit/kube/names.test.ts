// namespacedName is how every log line, message and owner annotation names an object.
import { describe, expect, it } from '@jest/globals';
import { namespacedName } from '../../../src/kube/names.ts';

describe('namespacedName', () => {
  it('joins namespace and name; an absent part reads as empty, never "undefined"', () => {
    expect(namespacedName({ namespace: 'ns1', name: 'zk' })).toBe('ns1/zk');
    expect(namespacedName({ name: 'zk' })).toBe('/zk');
    expect(namespacedName({ namespace: 'ns1' })).toBe('ns1/');
    expect(namespacedName(undefined)).toBe('/');
  });
});
