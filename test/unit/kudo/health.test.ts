import { describe, expect, it } from '@jest/globals';
import { checkHealth } from '../../../src/kudo/health/index.ts';

const state = (o: Record<string, unknown>): string => checkHealth(o).state;
/** An object of `kind` whose status holds the one condition `type`=`status`. */
const withCondition = (kind: string, type: string, status: string): Record<string, unknown> => ({
  kind,
  metadata: { name: 'x' },
  status: { conditions: [{ type, status }] },
});

describe('checkHealth', () => {
  it('Deployment needs an observed, current status with all replicas ready', () => {
    const base = {
      kind: 'Deployment',
      metadata: { name: 'd', generation: 2 },
      spec: { replicas: 2 },
    };
    expect(state(base)).toBe('waiting');
    const ready = { replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 };
    expect(state({ ...base, status: { observedGeneration: 1, ...ready } })).toBe('waiting');
    expect(state({ ...base, status: { observedGeneration: 2, ...ready } })).toBe('healthy');
    // An old ReplicaSet's pods still running: not done.
    expect(
      checkHealth({ ...base, status: { observedGeneration: 2, ...ready, replicas: 3 } }),
    ).toEqual({
      state: 'waiting',
      reason: '2/2 replicas ready, 2 updated, 2 available, 1 replicas of an older revision remain',
    });
    expect(
      state({
        ...base,
        status: {
          observedGeneration: 2,
          conditions: [
            { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' },
          ],
        },
      }),
    ).toBe('failed');
  });

  it('ReplicaSet needs every replica ready and available', () => {
    const rs = (ready: number) => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'r', generation: 1 },
      spec: { replicas: 2 },
      status: { observedGeneration: 1, readyReplicas: ready, availableReplicas: ready },
    });
    expect(state(rs(2))).toBe('healthy');
    expect(state(rs(1))).toBe('waiting');
    expect(state({ ...rs(0), spec: { replicas: 0 } })).toBe('healthy');
  });

  it('a kind of the same name in another group follows the generic rules', () => {
    expect(
      state({ apiVersion: 'example.com/v1', kind: 'Deployment', metadata: { name: 'd' } }),
    ).toBe('healthy');
    expect(state({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } })).toBe(
      'waiting',
    );
  });

  it('Job failure reports the Job’s reason and message; FailureTarget counts as failed', () => {
    const failedJob = (type: string) => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      status: {
        failed: 1,
        conditions: [
          {
            type,
            status: 'True',
            reason: 'BackoffLimitExceeded',
            message: 'Job has reached the specified backoff limit',
          },
        ],
      },
    });
    expect(checkHealth(failedJob('Failed'))).toEqual({
      state: 'failed',
      reason: 'BackoffLimitExceeded: Job has reached the specified backoff limit',
    });
    expect(checkHealth(failedJob('FailureTarget')).state).toBe('failed');
    expect(checkHealth({ kind: 'Job', metadata: { name: 'j' }, status: { active: 1 } })).toEqual({
      state: 'waiting',
      reason: 'has not completed yet (1 active, 0 succeeded, 0 failed pods)',
    });
  });

  it('StatefulSet partitioned rollout is done when the pods above the partition are updated', () => {
    const sts = {
      kind: 'StatefulSet',
      metadata: { name: 's', generation: 2 },
      spec: {
        replicas: 3,
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } },
      },
    };
    const st = {
      observedGeneration: 2,
      readyReplicas: 3,
      currentRevision: 'a',
      updateRevision: 'b',
    };
    expect(state({ ...sts, status: { ...st, updatedReplicas: 1 } })).toBe('healthy');
    expect(state({ ...sts, status: { ...st, updatedReplicas: 0 } })).toBe('waiting');
  });

  it('Job: Complete done, Failed failed, else waiting', () => {
    const job = (conditions: unknown[]) => ({
      kind: 'Job',
      metadata: { name: 'j' },
      status: { conditions },
    });
    expect(state(job([{ type: 'Complete', status: 'True' }]))).toBe('healthy');
    expect(state(job([{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }]))).toBe(
      'failed',
    );
    expect(state(job([]))).toBe('waiting');
  });

  it('Service needs a cluster IP; ExternalName is done', () => {
    expect(
      state({ kind: 'Service', metadata: { name: 's' }, spec: { clusterIP: '10.0.0.1' } }),
    ).toBe('healthy');
    expect(state({ kind: 'Service', metadata: { name: 's' }, spec: {} })).toBe('waiting');
    expect(
      state({ kind: 'Service', metadata: { name: 's' }, spec: { type: 'ExternalName' } }),
    ).toBe('healthy');
  });

  it('StatefulSet with OnDelete is done; otherwise revisions must match', () => {
    expect(
      state({
        kind: 'StatefulSet',
        metadata: { name: 's' },
        spec: { updateStrategy: { type: 'OnDelete' } },
      }),
    ).toBe('healthy');
    const sts = {
      kind: 'StatefulSet',
      metadata: { name: 's', generation: 1 },
      spec: { replicas: 1 },
    };
    const st = {
      observedGeneration: 1,
      readyReplicas: 1,
      updatedReplicas: 1,
      currentRevision: 'a',
    };
    expect(state({ ...sts, status: { ...st, updateRevision: 'b' } })).toBe('waiting');
    expect(state({ ...sts, status: { ...st, updateRevision: 'a' } })).toBe('healthy');
  });

  it('unknown kinds: Ready condition decides, else done; Stalled fails; deleting waits', () => {
    expect(state({ kind: 'Widget', metadata: { name: 'w' } })).toBe('healthy');
    expect(state(withCondition('Widget', 'Ready', 'False'))).toBe('waiting');
    expect(state(withCondition('Widget', 'Stalled', 'True'))).toBe('failed');
    expect(
      state({
        kind: 'ConfigMap',
        metadata: { name: 'c', deletionTimestamp: '2030-01-01T00:00:00Z' },
      }),
    ).toBe('waiting');
  });

  it('CRD Established; NamesAccepted=False fails; PVC Bound; Namespace Active; Pod phases', () => {
    expect(state(withCondition('CustomResourceDefinition', 'Established', 'True'))).toBe('healthy');
    expect(state(withCondition('CustomResourceDefinition', 'NamesAccepted', 'False'))).toBe(
      'failed',
    );
    expect(
      state({
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'p' },
        status: { phase: 'Pending' },
      }),
    ).toBe('waiting');
    expect(state({ kind: 'Namespace', metadata: { name: 'n' }, status: { phase: 'Active' } })).toBe(
      'healthy',
    );
    expect(state({ kind: 'Pod', metadata: { name: 'p' }, status: { phase: 'Failed' } })).toBe(
      'failed',
    );
    expect(
      state({
        kind: 'Pod',
        metadata: { name: 'p' },
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
      }),
    ).toBe('healthy');
  });

  it('a pod that is not ready says which container waits for what (the image it cannot pull)', () => {
    expect(
      checkHealth({
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: { nodeName: 'node-1' },
        status: {
          phase: 'Pending',
          initContainerStatuses: [
            { name: 'setup', state: { terminated: { exitCode: 0, reason: 'Completed' } } },
          ],
          containerStatuses: [
            { name: 'sidecar', ready: true, state: { running: {} } },
            {
              name: 'app',
              ready: false,
              state: {
                waiting: {
                  reason: 'ImagePullBackOff',
                  message: 'Back-off pulling image "nowhere/app:1"',
                },
              },
            },
          ],
        },
      }),
    ).toEqual({
      state: 'waiting',
      reason:
        'is Pending and not Ready: container app is waiting: ImagePullBackOff: Back-off pulling image "nowhere/app:1"',
    });
  });

  it('child Instance: its scheduled run must be COMPLETE', () => {
    const child = (status: string, uid = 'u') => ({
      kind: 'Instance',
      metadata: { name: 'i' },
      spec: { planExecution: { planName: 'deploy', uid: 'u' } },
      status: { planStatus: { deploy: { uid, status } } },
    });
    expect(state(child('COMPLETE'))).toBe('healthy');
    expect(state(child('COMPLETE', 'old'))).toBe('waiting');
    expect(state(child('FATAL_ERROR'))).toBe('failed');
  });
});
