// The Warning Event text for an OperatorVersion package verify finds errors in: how many, the
// first few with their fields, how many more, and the way to see them all; none for warnings.
import { describe, expect, it } from '@jest/globals';
import { verifyEventMessage } from '../../../../src/kudo/controller/index.ts';
import { Findings } from '../../../../src/kudo/verify/index.ts';

describe('verifyEventMessage', () => {
  it('names the first five errors with their fields and counts the rest', () => {
    const findings = new Findings();
    for (let i = 0; i < 7; i++) findings.error(`problem ${i}`, `spec.parameters[${i}]`);
    findings.warning('only a warning', 'spec.templates[x]');
    expect(verifyEventMessage(findings.result())).toBe(
      'package verify found 7 errors: spec.parameters[0]: problem 0; spec.parameters[1]: problem 1; spec.parameters[2]: problem 2; spec.parameters[3]: problem 3; spec.parameters[4]: problem 4; and 2 more. Admitted as KUDO admits it: a plan they affect fails when it runs (kubectl kudo package verify <folder> lists them all).',
    );
  });

  it('has nothing to say about warnings alone', () => {
    const findings = new Findings();
    findings.warning('parameter "foo" defined but not used.', 'spec.parameters[0]');
    expect(verifyEventMessage(findings.result())).toBeUndefined();
  });
});
