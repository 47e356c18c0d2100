// runningPlan reads status as stored, which anyone with status rights may have written: null
// or non-object phase/step entries are skipped, never dereferenced (admission reads old
// objects through it; a crash there is a 500 for every write of that Instance).
import { describe, expect, it } from '@jest/globals';
import { runningPlan, type Instance } from '../../../../src/kudo/api/index.ts';

const instance = (steps: unknown[]): Instance =>
  ({
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'Instance',
    metadata: { name: 'i', namespace: 'ns' },
    spec: { planExecution: { planName: 'deploy', uid: 'run-1' } },
    status: {
      planStatus: {
        deploy: {
          uid: 'run-1',
          status: 'IN_PROGRESS',
          phases: [null, { name: 'p', status: 'IN_PROGRESS', steps }],
        },
      },
    },
  }) as unknown as Instance;

describe('runningPlan', () => {
  it('skips null and non-object phases and steps', () => {
    expect(runningPlan(instance([null, 7, { name: 's', status: 'IN_PROGRESS' }]))).toMatchObject({
      planName: 'deploy',
      uid: 'run-1',
      status: 'IN_PROGRESS',
      phase: 'p',
      step: 's',
    });
  });

  it('names no step when every entry is malformed', () => {
    const plan = runningPlan(instance([null, 'x']));
    expect(plan).toMatchObject({ phase: 'p', status: 'IN_PROGRESS' });
    expect(plan?.step).toBeUndefined();
  });
});
