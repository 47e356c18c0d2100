// The KudoOperator task's pure parts: KUDO's child naming, the desired child Instance, the
// merge patch (add or overwrite, never remove), and the child's progress — a failed child
// plan fails the parent, naming the child and the plan.
import { describe, expect, it } from '@jest/globals';
import type { Instance } from '../../../../src/kudo/api/types.ts';
import {
  childPatch,
  childProgress,
  childTarget,
  desiredChild,
} from '../../../../src/kudo/tasks/kudo-operator/child.ts';

const parent: Instance = {
  metadata: { name: 'web', namespace: 'apps', uid: 'parent-uid' },
};

describe('the child Instance', () => {
  it('is named <parent>-<package> unless instanceName says otherwise; its OV has KUDO’s name', () => {
    expect(childTarget({ package: 'redis', operatorVersion: '0.2.0' }, parent)).toEqual({
      name: 'web-redis',
      namespace: 'apps',
      operatorVersion: 'redis-0.2.0',
      package: 'redis',
    });
    expect(
      childTarget(
        { package: 'zookeeper', operatorVersion: '0.3.3', appVersion: '3.6.2', instanceName: 'zk' },
        parent,
      ),
    ).toEqual({
      name: 'zk',
      namespace: 'apps',
      operatorVersion: 'zookeeper-3.6.2-0.3.3',
      package: 'zookeeper',
    });
  });

  it('carries the operator label and a plain owner reference to the parent', () => {
    const target = childTarget({ package: 'redis', operatorVersion: '0.2.0' }, parent);
    expect(desiredChild(target, parent, { A: '1' })).toEqual({
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'Instance',
      metadata: {
        name: 'web-redis',
        namespace: 'apps',
        labels: { 'kudo.dev/operator': 'redis' },
        ownerReferences: [
          { apiVersion: 'kudo.dev/v1beta1', kind: 'Instance', name: 'web', uid: 'parent-uid' },
        ],
      },
      spec: { operatorVersion: { name: 'redis-0.2.0' }, parameters: { A: '1' } },
    });
  });

  it('is patched with new or changed values only, never removing keys; unchanged = no patch', () => {
    const target = childTarget({ package: 'redis', operatorVersion: '0.2.0' }, parent);
    const live: Instance = {
      metadata: { name: 'web-redis' },
      spec: { operatorVersion: { name: 'redis-0.2.0' }, parameters: { A: '1', KEEP: 'x' } },
    };
    expect(childPatch(live, target, { A: '1' })).toBeUndefined();
    expect(childPatch(live, target, {})).toBeUndefined();
    expect(childPatch(live, target, { A: '2', B: '3' })).toEqual({
      spec: { parameters: { A: '2', B: '3' } },
    });
    const upgraded = childTarget({ package: 'redis', operatorVersion: '0.3.0' }, parent);
    expect(childPatch(live, upgraded, { A: '1' })).toEqual({
      spec: { operatorVersion: { name: 'redis-0.3.0' } },
    });
  });
});

describe('the child’s progress', () => {
  const child = (
    planExecution: { planName?: string; uid?: string } | undefined,
    planStatus: Record<string, { uid?: string; status?: string; message?: string }> = {},
  ): Instance => ({
    metadata: { name: 'web-redis', namespace: 'apps' },
    spec: { ...(planExecution ? { planExecution } : {}) },
    status: { planStatus },
  });

  interface ProgressCase {
    readonly what: string;
    readonly planExecution: { planName?: string; uid?: string } | undefined;
    readonly planStatus: Record<string, { uid?: string; status?: string; message?: string }>;
    readonly expected: unknown;
  }
  const deploy = { planName: 'deploy', uid: 'u1' };
  it.each<ProgressCase>([
    {
      what: 'done when its scheduled plan is COMPLETE',
      planExecution: deploy,
      planStatus: { deploy: { uid: 'u1', status: 'COMPLETE' } },
      expected: { state: 'done' },
    },
    {
      what: 'done when nothing is scheduled',
      planExecution: undefined,
      planStatus: {},
      expected: { state: 'done' },
    },
    {
      what: 'waiting while the scheduled run has not started, even if an older run is COMPLETE',
      planExecution: { planName: 'update', uid: 'u2' },
      planStatus: { update: { uid: 'u1', status: 'COMPLETE' } },
      expected: {
        state: 'waiting',
        message: 'child Instance apps/web-redis: plan update is PENDING',
      },
    },
    {
      what: 'waiting while the scheduled run is IN_PROGRESS',
      planExecution: deploy,
      planStatus: { deploy: { uid: 'u1', status: 'IN_PROGRESS', message: 'main: pods starting' } },
      expected: {
        state: 'waiting',
        message: 'child Instance apps/web-redis: plan deploy is IN_PROGRESS (main: pods starting)',
      },
    },
    {
      what: 'failed on FATAL_ERROR, naming the child and its plan',
      planExecution: deploy,
      planStatus: { deploy: { uid: 'u1', status: 'FATAL_ERROR', message: 'main: job failed' } },
      expected: {
        state: 'failed',
        message:
          'child Instance apps/web-redis: plan deploy ended FATAL_ERROR: main: job failed; see `kubectl kudo plan status --instance web-redis`',
      },
    },
    {
      what: 'failed on ABORTED',
      planExecution: deploy,
      planStatus: { deploy: { uid: 'u1', status: 'ABORTED' } },
      expected: expect.objectContaining({ state: 'failed' }),
    },
  ])('is $what', ({ planExecution, planStatus, expected }) => {
    expect(childProgress(child(planExecution, planStatus))).toEqual(expected);
  });
});
