import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadCases } from '../../conformance/kuttl/discover.ts';
import { subsetMismatch } from '../../conformance/kuttl/match.ts';
import { repositoryRoot } from '../../../src/localcluster/paths.ts';

describe('subsetMismatch (kuttl partial match)', () => {
  it('accepts extra fields in the actual object', () => {
    expect(
      subsetMismatch({ a: 1, b: { c: 'x' } }, { a: 1, b: { c: 'x', d: 2 }, e: 3 }),
    ).toBeUndefined();
  });

  it('names the path and both values of the first difference', () => {
    expect(
      subsetMismatch(
        { status: { planStatus: { deploy: { status: 'COMPLETE' } } } },
        {
          status: { planStatus: { deploy: { status: 'IN_PROGRESS' } } },
        },
      ),
    ).toBe('status.planStatus.deploy.status: expected "COMPLETE", got "IN_PROGRESS"');
    expect(subsetMismatch({ spec: { replicas: 3 } }, { spec: {} })).toBe(
      'spec.replicas: expected 3, got nothing',
    );
  });

  it('matches lists element-wise and requires equal length', () => {
    expect(subsetMismatch({ l: [{ n: 'a' }] }, { l: [{ n: 'a', x: 1 }] })).toBeUndefined();
    expect(subsetMismatch({ l: [{ n: 'a' }] }, { l: [{ n: 'a' }, { n: 'b' }] })).toBe(
      'l: expected 1 items, got 2',
    );
    expect(subsetMismatch({ l: [{ n: 'a' }, { n: 'b' }] }, { l: [{ n: 'a' }, { n: 'c' }] })).toBe(
      'l[1].n: expected "b", got "c"',
    );
  });

  it('does not equate a string with a number', () => {
    expect(subsetMismatch({ v: '1' }, { v: 1 })).toBe('v: expected "1", got 1');
  });
});

describe("loadCases on KUDO's own cases", () => {
  const root = join(repositoryRoot(), '..', 'shared', 'kudo-cases', 'integration');

  it('groups files into numbered steps with apply, assert and errors', () => {
    expect(existsSync(root)).toBe(true);
    const cases = loadCases(root);
    const update = cases.find((c) => c.name === 'update-parameters');
    expect(update?.steps.map((s) => s.index)).toEqual([0, 1, 2]);
    expect(update?.steps[1]?.apply.map((f) => f.split('/').pop())).toEqual(['01-update.yaml']);
    expect(update?.steps[1]?.assert?.endsWith('01-assert.yaml')).toBe(true);
    for (const c of cases) expect(c.steps.length).toBeGreaterThan(0);
  });
});
