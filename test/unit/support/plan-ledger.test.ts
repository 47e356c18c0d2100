// What the in-cluster e2e test concludes from the watched states of an Instance and its
// ConfigMap: a plan run twice or a stale run must show, a single run must not.
import { describe, expect, it } from '@jest/globals';
import type { Instance } from '../../../src/kudo/api/index.ts';
import { repeatedRuns, valueChanges } from '../../e2e/manifests/plan-ledger.ts';

const state = (uid: string, status: string, startedAt: string, at: string): Instance => ({
  apiVersion: 'kudo.dev/v1beta1',
  kind: 'Instance',
  metadata: { name: 'i' },
  spec: {},
  status: {
    planStatus: { deploy: { uid, status, startedAt, lastUpdatedTimestamp: at } },
  },
});

describe('repeatedRuns', () => {
  it('accepts runs that each start once and stay finished', () => {
    expect(
      repeatedRuns(
        [
          state('a', 'IN_PROGRESS', 't1', 't1'),
          state('a', 'COMPLETE', 't1', 't2'),
          state('a', 'COMPLETE', 't1', 't2'),
          state('b', 'PENDING', 't3', 't3'),
          state('b', 'COMPLETE', 't3', 't4'),
        ],
        'deploy',
      ),
    ).toEqual([]);
  });

  it('names a run started twice under one uid', () => {
    expect(
      repeatedRuns(
        [state('a', 'IN_PROGRESS', 't1', 't1'), state('a', 'IN_PROGRESS', 't5', 't5')],
        'deploy',
      ),
    ).toEqual(['run a started 2 times: t1, t5']);
  });

  it('names a finished run whose status changed again', () => {
    expect(
      repeatedRuns(
        [state('a', 'COMPLETE', 't1', 't2'), state('a', 'COMPLETE', 't1', 't6')],
        'deploy',
      ),
    ).toEqual(['run a changed after COMPLETE (state 1): now COMPLETE at t6']);
  });
});

describe('valueChanges', () => {
  it('keeps each change once, so a value coming back shows twice', () => {
    expect(valueChanges(['w1', 'w1', 'w2', 'w1'])).toEqual(['w1', 'w2', 'w1']);
  });
});
