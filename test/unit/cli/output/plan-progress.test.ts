// The live view of --wait: frames on a terminal, change lines otherwise.
import { describe, expect, it } from '@jest/globals';
import type { PlanStatus } from '../../../../src/kudo/api/types.ts';
import {
  formatElapsed,
  PlanProgress,
  progressChanges,
  progressFrame,
} from '../../../../src/cli/output/plan-progress.ts';
import { recordingTerminal } from '../terminal.ts';
import { phaseStatus } from '../../../support/kudo-objects.ts';

const t0 = Date.parse('2024-01-01T00:00:00Z');
const running: PlanStatus = {
  name: 'deploy',
  status: 'IN_PROGRESS',
  startedAt: '2024-01-01T00:00:00Z',
  phases: [
    {
      name: 'main',
      status: 'IN_PROGRESS',
      steps: [
        { name: 'config', status: 'COMPLETE' },
        {
          name: 'app',
          status: 'IN_PROGRESS',
          startedAt: '2024-01-01T00:00:03Z',
          message: 'waiting for Deployment ns/app',
        },
      ],
    },
  ],
};

describe('plan progress', () => {
  it('formats elapsed time', () => {
    expect(formatElapsed(7_400)).toBe('7s');
    expect(formatElapsed(125_000)).toBe('2m05s');
    expect(formatElapsed(3_720_000)).toBe('1h02m');
  });

  it('draws phases and steps with status, elapsed time and messages', () => {
    expect(progressFrame('deploy', running, t0, t0 + 12_000)).toEqual([
      'Plan deploy [IN_PROGRESS] 12s',
      '└── Phase main [IN_PROGRESS]',
      '    ├── Step config [COMPLETE]',
      '    └── Step app [IN_PROGRESS] 9s (waiting for Deployment ns/app)',
    ]);
    expect(progressFrame('deploy', undefined, t0, t0 + 2_000)).toEqual([
      'Plan deploy [PENDING] 2s (waiting for Planwright to start it)',
    ]);
  });

  it('lists only what changed between two observations', () => {
    const done: PlanStatus = {
      ...running,
      status: 'COMPLETE',
      phases: [phaseStatus('main', 'COMPLETE', ['config', 'app'])],
    };
    expect(progressChanges('deploy', running, done)).toEqual([
      'deploy: COMPLETE',
      'deploy/main: COMPLETE',
      'deploy/main/app: COMPLETE',
    ]);
    expect(progressChanges('deploy', undefined, running)).toHaveLength(4);
  });

  it('redraws in place on a terminal and never wraps lines', () => {
    const term = recordingTerminal(true, 30);
    const progress = new PlanProgress(term, 'deploy', t0);
    progress.update(undefined, t0);
    progress.update(running, t0 + 1000);
    expect(term.stdout[0]).toBe('Plan deploy [PENDING] 0s (wai\n');
    // The second frame first moves up over the one line drawn before and clears.
    expect(term.stdout[1]?.startsWith('\x1b[1F\x1b[0J')).toBe(true);
    for (const line of (term.stdout[1] ?? '').replace('\x1b[1F\x1b[0J', '').split('\n')) {
      expect([...line].length).toBeLessThanOrEqual(29);
    }
  });

  it('prints change lines with elapsed time when not on a terminal', () => {
    const term = recordingTerminal(false);
    const progress = new PlanProgress(term, 'deploy', t0);
    progress.update(undefined, t0);
    progress.update(undefined, t0 + 1000);
    progress.update(running, t0 + 2000);
    progress.update(running, t0 + 3000);
    expect(term.stdout).toEqual([
      '[0s] deploy: waiting for Planwright to start the plan\n',
      '[2s] deploy: IN_PROGRESS\n',
      '[2s] deploy/main: IN_PROGRESS\n',
      '[2s] deploy/main/config: COMPLETE\n',
      '[2s] deploy/main/app: IN_PROGRESS (waiting for Deployment ns/app)\n',
    ]);
  });
});
