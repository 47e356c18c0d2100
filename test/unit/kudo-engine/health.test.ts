import { describe, expect, it } from '@jest/globals';
import { checkHealth } from '../../../src/kudo/health/index.ts';

const state = (o: Record<string, unknown>): string => checkHealth(o).state;

describe('checkHealth', () => {
  it('Deployment needs an observed, current status with all replicas ready', () => {
    const base = {
      kind: 'Deployment',
      metadata: { name: 'd', generation: 2 },
      spec: { replicas: 2 },
    };
    expect(state(base)).toBe('waiting');
    const ready = { updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 };
    expect(state({ ...base, status: { observedGeneration: 1, ...ready } })).toBe('waiting');
    expect(state({ ...base, status: { observedGeneration: 2, ...ready } })).toBe('healthy');
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
    expect(
      state({
        kind: 'Widget',
        metadata: { name: 'w' },
        status: { conditions: [{ type: 'Ready', status: 'False' }] },
      }),
    ).toBe('waiting');
    expect(
      state({
        kind: 'Widget',
        metadata: { name: 'w' },
        status: { conditions: [{ type: 'Stalled', status: 'True' }] },
      }),
    ).toBe('failed');
    expect(
      state({
        kind: 'ConfigMap',
        metadata: { name: 'c', deletionTimestamp: '2030-01-01T00:00:00Z' },
      }),
    ).toBe('waiting');
  });

  it('CRD Established; NamesAccepted=False fails; PVC Bound; Namespace Active; Pod phases', () => {
    expect(
      state({
        kind: 'CustomResourceDefinition',
        metadata: { name: 'c' },
        status: { conditions: [{ type: 'Established', status: 'True' }] },
      }),
    ).toBe('healthy');
    expect(
      state({
        kind: 'CustomResourceDefinition',
        metadata: { name: 'c' },
        status: { conditions: [{ type: 'NamesAccepted', status: 'False' }] },
      }),
    ).toBe('failed');
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
