// The deterministic Event names of EventRecorder.recordOnce.
import { describe, expect, it } from '@jest/globals';
import { onceName } from '../../../src/runtime/events.ts';
import { isNewRun, planEventId } from '../../../src/kudo/engine/plan-events.ts';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

describe('onceName', () => {
  it('is the same for the same occurrence and differs for another', () => {
    const a = onceName('web', ['uid-1', 'PlanFinished', planEventId('deploy', 'r1', 'COMPLETE')]);
    expect(a).toBe(
      onceName('web', ['uid-1', 'PlanFinished', planEventId('deploy', 'r1', 'COMPLETE')]),
    );
    expect(a).toMatch(/^web\.[0-9a-f]{16}$/);
    for (const other of [
      onceName('web', ['uid-2', 'PlanFinished', planEventId('deploy', 'r1', 'COMPLETE')]),
      onceName('web', ['uid-1', 'PlanStarted', planEventId('deploy', 'r1', 'COMPLETE')]),
      onceName('web', ['uid-1', 'PlanFinished', planEventId('deploy', 'r2', 'COMPLETE')]),
      onceName('web', ['uid-1', 'PlanFinished', planEventId('deploy', 'r1', 'FATAL_ERROR')]),
    ])
      expect(other).not.toBe(a);
  });

  it('stays a valid DNS subdomain for the longest object names', () => {
    const long = `${'a'.repeat(230)}.b-c.${'d'.repeat(16)}`;
    const name = onceName(long, ['u']);
    expect(name.length).toBeLessThanOrEqual(253);
    expect(name).toMatch(DNS_SUBDOMAIN);
    // A cut that would end on '.' or '-' drops them.
    const cut = onceName(`${'a'.repeat(235)}-.x`, ['u']);
    expect(cut).toMatch(DNS_SUBDOMAIN);
  });
});

describe('isNewRun', () => {
  it('is true for another run or none yet, false for the same run', () => {
    expect(isNewRun(undefined, 'r1')).toBe(true);
    expect(isNewRun({ name: 'deploy', uid: 'r0', status: 'COMPLETE' }, 'r1')).toBe(true);
    expect(isNewRun({ name: 'deploy', uid: 'r1', status: 'NEVER_RUN' }, 'r1')).toBe(true);
    expect(isNewRun({ name: 'deploy', uid: 'r1', status: 'IN_PROGRESS' }, 'r1')).toBe(false);
    expect(isNewRun({ name: 'deploy', uid: 'r1', status: 'COMPLETE' }, 'r1')).toBe(false);
  });
});
