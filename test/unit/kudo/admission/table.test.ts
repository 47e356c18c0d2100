// Every scheduling and denial rule of the Instance admission webhook, as a table: the
// situations of KUDO's own instance_admission_test plus Planwright's rules (validation,
// immutability, abort, deletion, missing OperatorVersions). Each case asserts the exact patch
// and warnings, or the exact message and causes.
import { describe, expect, it } from '@jest/globals';
import { decide, type DecisionDeps } from '../../../../src/kudo/admission/index.ts';
import { ParameterValidator } from '../../../../src/kudo/params/index.ts';
import { CASES, CONTROLLER } from './cases.ts';
import { EXPECTED } from './expected.ts';

function deps(): DecisionDeps {
  let n = 0;
  return {
    validator: new ParameterValidator({ maxCachedOperatorVersions: 8 }),
    newUid: () => `uid-${++n}`,
    now: () => new Date('2026-11-21T10:45:00.123Z'),
    controllerUsers: new Set([CONTROLLER]),
  };
}

describe('Instance admission decision', () => {
  it('has an expectation for every case and a case for every expectation', () => {
    expect(CASES.map((c) => c.name).sort()).toEqual(Object.keys(EXPECTED).sort());
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', (name, c) => {
    expect(decide(c.input, deps())).toEqual(EXPECTED[name]);
  });

  it('never changes its inputs', () => {
    for (const c of CASES) {
      const before = structuredClone(c.input);
      decide(c.input, deps());
      expect(c.input).toEqual(before);
    }
  });

  it('counts: at least KUDO breadth, with both outcomes', () => {
    const kinds = Object.values(EXPECTED).map((d) => d.kind);
    expect(kinds.filter((k) => k === 'deny').length).toBeGreaterThanOrEqual(30);
    expect(kinds.filter((k) => k === 'allow').length).toBeGreaterThanOrEqual(30);
  });

  it('every denial has at least one field cause and names the Instance', () => {
    for (const [name, d] of Object.entries(EXPECTED)) {
      if (d.kind !== 'deny') continue;
      expect([name, d.causes.length > 0]).toEqual([name, true]);
      expect([name, d.message.startsWith('Instance test/test')]).toEqual([name, true]);
    }
  });
});
