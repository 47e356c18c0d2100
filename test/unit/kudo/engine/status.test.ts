import { describe, expect, it } from '@jest/globals';
import type { InstanceStatus, OperatorVersion, Plan } from '../../../../src/kudo/api/types.ts';
import { readinessOf } from '../../../../src/kudo/health/readiness.ts';
import {
  READY_MESSAGE,
  readyFromPlan,
  readyFromWorkloads,
  stampChangedPlans,
  statusEqual,
  syncPlanEntries,
} from '../../../../src/kudo/engine/status.ts';
import { phaseStatus } from '../../../support/kudo-objects.ts';

const ov = (plans: Record<string, Plan>): OperatorVersion => ({
  metadata: { name: 'ov' },
  spec: { plans },
});
const plan = (...phases: Array<[string, string[]]>): Plan => ({
  phases: phases.map(([name, steps]) => ({ name, steps: steps.map((s) => ({ name: s })) })),
});

describe('plan entries', () => {
  it('every plan gets a NEVER_RUN entry with its phases and steps', () => {
    const status: InstanceStatus = {};
    syncPlanEntries(
      status,
      ov({ deploy: plan(['a', ['s1', 's2']], ['b', []]), backup: {}, nameless: { phases: [{}] } }),
    );
    expect(status.planStatus).toEqual({
      deploy: {
        name: 'deploy',
        status: 'NEVER_RUN',
        phases: [phaseStatus('a', 'NEVER_RUN', ['s1', 's2']), phaseStatus('b', 'NEVER_RUN', [])],
      },
      backup: { name: 'backup', status: 'NEVER_RUN', phases: [] },
      nameless: {
        name: 'nameless',
        status: 'NEVER_RUN',
        phases: [{ name: 'phase-0', status: 'NEVER_RUN', steps: [] }],
      },
    });
  });

  it('an OV change rebuilds entries in the new order keeping statuses by name; other plans and unknown plans stay', () => {
    // The plan's own fields: kept as they are.
    const deploy = {
      name: 'deploy',
      uid: 'u1',
      status: 'COMPLETE',
      message: '',
      lastUpdatedTimestamp: '2020-01-01T00:00:00Z',
    };
    const status: InstanceStatus = {
      planStatus: {
        deploy: {
          ...deploy,
          phases: [
            {
              name: 'a',
              status: 'COMPLETE',
              message: 'm',
              steps: [
                { name: 's1', status: 'COMPLETE', message: 'x' },
                { name: 'gone', status: 'COMPLETE' },
              ],
            },
            { name: 'removed', status: 'COMPLETE', steps: [] },
          ],
        },
        old: { name: 'old', status: 'COMPLETE', phases: [] },
      },
    };
    syncPlanEntries(status, ov({ deploy: plan(['new', ['n']], ['a', ['s2', 's1']]) }));
    expect(status.planStatus?.['deploy']).toEqual({
      ...deploy,
      phases: [
        { name: 'new', status: 'NEVER_RUN', steps: [{ name: 'n', status: 'NEVER_RUN' }] },
        {
          name: 'a',
          status: 'COMPLETE',
          message: 'm',
          steps: [
            { name: 's2', status: 'NEVER_RUN' },
            { name: 's1', status: 'COMPLETE', message: 'x' },
          ],
        },
      ],
    });
    expect(status.planStatus?.['old']).toEqual({ name: 'old', status: 'COMPLETE', phases: [] });
  });

  it('is idempotent and keeps duplicate names apart', () => {
    const o = ov({ p: plan(['x', ['s', 's']], ['x', ['t']]) });
    const status: InstanceStatus = {};
    syncPlanEntries(status, o);
    status.planStatus!['p']!.phases![1]!.status = 'COMPLETE';
    status.planStatus!['p']!.phases![0]!.steps![1]!.status = 'ERROR';
    const copy = structuredClone(status);
    syncPlanEntries(status, o);
    expect(status).toEqual(copy);
  });
});

describe('change detection', () => {
  const stored: InstanceStatus = {
    planStatus: {
      deploy: {
        name: 'deploy',
        status: 'COMPLETE',
        lastUpdatedTimestamp: '2026-01-01T00:00:00Z',
        phases: [{ name: 'p', status: 'COMPLETE', steps: [{ name: 's', status: 'COMPLETE' }] }],
      },
    },
    conditions: [{ type: 'Ready', status: 'True', reason: 'ResourcesReady' }],
  };

  it('equal in any key order, with undefined members as absent; any value or array change differs', () => {
    const reordered: InstanceStatus = {
      conditions: [{ reason: 'ResourcesReady', status: 'True', type: 'Ready' }],
      planStatus: {
        deploy: {
          phases: [{ steps: [{ status: 'COMPLETE', name: 's' }], status: 'COMPLETE', name: 'p' }],
          lastUpdatedTimestamp: '2026-01-01T00:00:00Z',
          status: 'COMPLETE',
          name: 'deploy',
        },
      },
      inventory: undefined,
    };
    expect(statusEqual(stored, reordered)).toBe(true);
    expect(statusEqual(undefined, {})).toBe(true);
    const changed = structuredClone(stored);
    (changed.planStatus?.['deploy']?.phases?.[0]?.steps ?? []).push({
      name: 't',
      status: 'PENDING',
    });
    expect(statusEqual(stored, changed)).toBe(false);
    expect(statusEqual(stored, { ...stored, conditions: [] })).toBe(false);
  });

  it('stamps a plan whose tree changed, not one that only differs in its timestamp or never ran', () => {
    const now = new Date('2026-02-02T00:00:00Z');
    const same = structuredClone(stored);
    (same.planStatus ?? {})['deploy'] = {
      ...(same.planStatus?.['deploy'] ?? {}),
      lastUpdatedTimestamp: 'elsewhen',
    };
    stampChangedPlans(stored, same, now);
    expect(same.planStatus?.['deploy']?.lastUpdatedTimestamp).toBe('elsewhen');

    const moved = structuredClone(stored);
    const deploy = moved.planStatus?.['deploy'];
    if (deploy) deploy.status = 'IN_PROGRESS';
    (moved.planStatus ?? {})['backup'] = { name: 'backup', status: 'NEVER_RUN', phases: [] };
    stampChangedPlans(stored, moved, now);
    expect(moved.planStatus?.['deploy']?.lastUpdatedTimestamp).toBe(now.toISOString());
    expect(moved.planStatus?.['backup']?.lastUpdatedTimestamp).toBeUndefined();
  });
});

describe('Ready condition', () => {
  const running = { status: 'IN_PROGRESS', message: 'main: waiting' };
  it('deploy, update and upgrade decide it while they run and when they fail', () => {
    for (const p of ['deploy', 'update', 'upgrade']) {
      expect(readyFromPlan(p, running, false)).toEqual({
        status: 'Unknown',
        reason: 'PlanInProgress',
        message: `plan ${p} is IN_PROGRESS: main: waiting`,
      });
      expect(readyFromPlan(p, { status: 'FATAL_ERROR', message: 'boom' }, true)).toMatchObject({
        status: 'Unknown',
        reason: 'PlanInFatalError',
      });
      expect(readyFromPlan(p, { status: 'FATAL_ERROR' }, false)).toMatchObject({
        reason: 'PlanInFatalError',
      });
      expect(readyFromPlan(p, { status: 'COMPLETE' }, true)).toEqual({
        status: 'True',
        reason: 'ResourcesReady',
        message: READY_MESSAGE,
      });
      expect(readyFromPlan(p, { status: 'COMPLETE' }, false)).toBe('workloads');
      expect(readyFromPlan(p, { status: 'ABORTED' }, true)).toMatchObject({
        status: 'Unknown',
        reason: 'PlanAborted',
      });
    }
  });

  it('other plans leave it as it was while they run; afterwards (or with no plan) the workloads decide', () => {
    expect(readyFromPlan('backup', running, false)).toBe('keep');
    expect(readyFromPlan('backup', undefined, false)).toBe('keep');
    expect(readyFromPlan('backup', { status: 'FATAL_ERROR' }, true)).toBe('workloads');
    expect(readyFromPlan('backup', { status: 'COMPLETE' }, true)).toBe('workloads');
    expect(readyFromPlan(undefined, undefined, false)).toBe('workloads');
    expect(readyFromPlan('deploy', undefined, false)).toMatchObject({ reason: 'PlanInProgress' });
  });

  it('from workloads: all healthy is True/ResourcesReady, else False/ResourceNotReady naming each unhealthy object', () => {
    const deployment = (name: string, ready: number) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'ns', generation: 1 },
      spec: { replicas: 2 },
      status: {
        observedGeneration: 1,
        replicas: 2,
        updatedReplicas: 2,
        readyReplicas: ready,
        availableReplicas: ready,
      },
    });
    const pod = (name: string, phase: string, extra: Record<string, unknown> = {}) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'ns', ...extra },
      status: { phase, conditions: [{ type: 'Ready', status: 'True' }] },
    });
    expect(readyFromWorkloads(readinessOf([]))).toEqual({
      status: 'True',
      reason: 'ResourcesReady',
      message: READY_MESSAGE,
    });
    expect(
      readyFromWorkloads(readinessOf([deployment('ok', 2), pod('p', 'Running')])),
    ).toMatchObject({ status: 'True' });
    expect(
      readyFromWorkloads(
        readinessOf([deployment('ok', 2), deployment('web', 1), pod('p', 'Pending')]),
      ),
    ).toEqual({
      status: 'False',
      reason: 'ResourceNotReady',
      message:
        'Deployment ns/web 1/2 replicas ready, 2 updated, 1 available, Pod ns/p is not scheduled to a node yet (is a scheduler running, and does a node fit?)',
    });
    // Terminating pods and a Job's pods do not count.
    expect(
      readinessOf([
        pod('old', 'Pending', { deletionTimestamp: '2030-01-01T00:00:00Z' }),
        pod('attempt', 'Failed', {
          ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', controller: true }],
        }),
      ]).ready,
    ).toBe(true);
  });
});
