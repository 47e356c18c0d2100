// plan status / plan history output, byte for byte as KUDO's CLI (treeprint) printed it.
import { describe, expect, it } from '@jest/globals';
import type { Instance, OperatorVersion } from '../../../src/kudo/api/types.ts';
import {
  lastExecutedPlan,
  renderPlanHistory,
  renderPlanStatus,
} from '../../../src/cli/plan-view.ts';
import { renderTree } from '../../../src/cli/output/tree.ts';

const ov: OperatorVersion = {
  metadata: { name: 'op-1.0', namespace: 'ns' },
  spec: {
    plans: {
      other: {
        strategy: 'serial',
        phases: [{ name: 'p', strategy: 'serial', steps: [{ name: 's' }] }],
      },
      deploy: {
        strategy: 'serial',
        phases: [{ name: 'main', strategy: 'parallel', steps: [{ name: 'everything' }] }],
      },
      bare: { phases: [{ name: 'q', steps: [] }] },
    },
  },
};

function instance(planStatus: NonNullable<Instance['status']>['planStatus']): Instance {
  return {
    metadata: { name: 'inst', namespace: 'ns' },
    spec: { operatorVersion: { name: 'op-1.0' } },
    status: { planStatus },
  };
}

const neverRun = {
  deploy: { name: 'deploy', status: 'NEVER_RUN', phases: [] },
  other: { name: 'other', status: 'NEVER_RUN', phases: [] },
};

describe('plan status', () => {
  it('draws the active plan from status and the others from the OperatorVersion', () => {
    const text = renderPlanStatus(
      instance({
        ...neverRun,
        deploy: {
          name: 'deploy',
          status: 'COMPLETE',
          lastUpdatedTimestamp: '2021-05-01T10:00:00Z',
          phases: [
            {
              name: 'main',
              status: 'COMPLETE',
              steps: [{ name: 'everything', status: 'COMPLETE' }],
            },
          ],
        },
      }),
      ov,
      'ns',
    );
    expect(text).toBe(
      [
        'Plan(s) for "inst" in namespace "ns":',
        '.',
        '└── inst (Operator-Version: "op-1.0" Active-Plan: "deploy")',
        '    ├── Plan bare ( strategy) [NOT ACTIVE]',
        '    │\u00a0\u00a0 └── Phase q ( strategy) [NOT ACTIVE]',
        '    ├── Plan deploy (serial strategy) [COMPLETE], last updated 2021-05-01 10:00:00',
        '    │\u00a0\u00a0 └── Phase main (parallel strategy) [COMPLETE]',
        '    │\u00a0\u00a0     └── Step everything [COMPLETE]',
        '    └── Plan other (serial strategy) [NOT ACTIVE]',
        '        └── Phase p (serial strategy) [NOT ACTIVE]',
        '            └── Step s [NOT ACTIVE]',
        '',
        '',
      ].join('\n'),
    );
  });

  it('adds messages in parentheses', () => {
    const text = renderPlanStatus(
      instance({
        deploy: {
          name: 'deploy',
          status: 'FATAL_ERROR',
          message: 'boom',
          phases: [
            {
              name: 'main',
              status: 'FATAL_ERROR',
              steps: [{ name: 'everything', status: 'FATAL_ERROR', message: 'template x: line 3' }],
            },
          ],
        },
      }),
      ov,
      'ns',
    );
    expect(text).toContain('Plan deploy (serial strategy) [FATAL_ERROR] (boom)\n');
    expect(text).toContain('Step everything [FATAL_ERROR] (template x: line 3)\n');
  });

  it('says so when no plan ever ran', () => {
    expect(renderPlanStatus(instance(neverRun), ov, 'ns')).toBe(
      'No plan ever run for instance - nothing to show for instance inst\n',
    );
    expect(renderPlanStatus(instance(undefined), ov, 'ns')).toBe(
      'No plan ever run for instance - nothing to show for instance inst\n',
    );
  });

  it('picks the running plan, else the one updated last', () => {
    const done = { status: 'COMPLETE', lastUpdatedTimestamp: '2021-05-01T10:00:00Z' };
    const later = { status: 'FATAL_ERROR', lastUpdatedTimestamp: '2021-05-02T10:00:00Z' };
    expect(lastExecutedPlan(instance({ deploy: done, other: later }))?.name).toBe('other');
    expect(
      lastExecutedPlan(instance({ deploy: { status: 'IN_PROGRESS' }, other: later }))?.name,
    ).toBe('deploy');
    expect(lastExecutedPlan(instance({ deploy: { status: 'ERROR' }, other: later }))?.name).toBe(
      'deploy',
    );
  });
});

describe('plan history', () => {
  it('lists every plan by name with its last run, running or never-run state', () => {
    expect(
      renderPlanHistory(
        instance({
          upgrade: { name: 'upgrade', status: 'NEVER_RUN' },
          deploy: {
            name: 'deploy',
            status: 'COMPLETE',
            lastUpdatedTimestamp: '2021-05-01T10:00:00Z',
          },
          update: { name: 'update', status: 'IN_PROGRESS' },
          custom: { name: 'custom' },
        }),
      ),
    ).toBe(
      [
        '.',
        '├── custom (never run)',
        '├── deploy (last finished run at 2021-05-01T10:00:00 (COMPLETE))',
        '├── update (is running)',
        '└── upgrade (NEVER_RUN)',
        '',
        '',
      ].join('\n'),
    );
  });
});

describe('tree', () => {
  it('prints an empty tree as a lone dot', () => {
    expect(renderTree([])).toBe('.\n');
  });
});
