// The validating webhook's final guard for Instances: it admits exactly what the mutating
// webhook produced (every allowed case of the admission table, with its patch applied), gives
// the same denial as the mutating webhook when a change reaches it unscheduled, and refuses
// what a later mutating webhook or a client editing spec.planExecution makes of a change.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { decide, finalGuard, type DecisionDeps } from '../../../../src/kudo/admission/index.ts';
import type { DecisionInput } from '../../../../src/kudo/admission/index.ts';
import type { Instance } from '../../../../src/kudo/api/index.ts';
import type { JsonPatchOperation } from '../../../../src/server/index.ts';
import { ParameterValidator } from '../../../../src/kudo/params/index.ts';
import { CASES, CONTROLLER } from './cases.ts';
import { edit, idle, inProgress, ov, scheduled } from '../fixtures.ts';

function deps(): DecisionDeps {
  let n = 0;
  return {
    validator: new ParameterValidator({ maxCachedOperatorVersions: 8 }),
    newUid: () => `uid-new-${++n}`,
    now: () => new Date('2026-11-21T10:45:00.123Z'),
    controllerUsers: new Set([CONTROLLER]),
  };
}

/** The mutating webhook's patch applied (decide only emits `add` of object members). */
function applied(instance: Instance, patch: readonly JsonPatchOperation[]): Instance {
  const out = structuredClone(instance) as unknown as Record<string, unknown>;
  for (const op of patch) {
    if (op.op !== 'add') throw new Error(`unexpected patch op ${op.op}`);
    const keys = op.path.split('/').slice(1);
    let at = out;
    for (const key of keys.slice(0, -1)) {
      at[key] ??= {};
      at = at[key] as Record<string, unknown>;
    }
    at[keys[keys.length - 1]!] = structuredClone(op.value);
  }
  return out as unknown as Instance;
}

const alice = { username: 'alice', groups: [] };

function update(old: Instance, next: Instance): DecisionInput {
  return {
    operation: 'UPDATE',
    instance: next,
    oldInstance: old,
    operatorVersion: ov,
    oldOperatorVersion: ov,
    user: alice,
    dryRun: false,
  };
}

describe('Instance final guard (validating webhook)', () => {
  const allowed = CASES.filter((c) => decide(c.input, deps()).kind === 'allow');
  const denied = CASES.filter((c) => decide(c.input, deps()).kind === 'deny');

  it('covers both outcomes of the admission table', () => {
    expect(allowed.length).toBeGreaterThanOrEqual(30);
    expect(denied.length).toBeGreaterThanOrEqual(30);
  });

  it.each(allowed.map((c) => [c.name, c] as const))(
    'admits what the mutating webhook made of: %s',
    (_name, c) => {
      const decision = decide(c.input, deps());
      if (decision.kind !== 'allow') throw new Error('allowed case');
      const stored = applied(c.input.instance, decision.patch);
      expect(finalGuard({ ...c.input, instance: stored }, deps())).toEqual({
        kind: 'allow',
        patch: [],
        warnings: [],
      });
    },
  );

  it.each(denied.map((c) => [c.name, c] as const))(
    'refuses what the mutating webhook refuses: %s',
    (_name, c) => {
      const mutating = decide(c.input, deps());
      const guard = finalGuard(c.input, deps());
      // A request the mutating webhook refuses never reaches the guard; when it does (the
      // mutating webhook was bypassed) and spec.planExecution was not edited, the denial is
      // the very same.
      const recordEdited = !isDeepStrictEqual(
        c.input.instance.spec?.planExecution,
        c.input.oldInstance?.spec?.planExecution,
      );
      if (!recordEdited) {
        expect(guard).toEqual(mutating);
        return;
      }
      // With an edited record (a plan request plus another change) the guard may name the
      // record instead; it admits only a record of exactly the run the changes schedule.
      if (guard.kind === 'allow') {
        const old = c.input.oldInstance!;
        const changesOnly = edit(c.input.instance, (i) => {
          if (old.spec?.planExecution) i.spec!.planExecution = old.spec.planExecution;
          else delete i.spec!.planExecution;
        });
        const scheduledByChanges = decide({ ...c.input, instance: changesOnly }, deps());
        expect(scheduledByChanges).toMatchObject({
          kind: 'allow',
          scheduled: { planName: c.input.instance.spec?.planExecution?.planName },
        });
        expect(c.input.instance.spec?.planExecution?.uid).not.toBe(old.spec?.planExecution?.uid);
      }
    },
  );

  it('refuses a parameter another mutating webhook changed while a plan runs, with the running-plan causes', () => {
    // The user only added a label: Planwright's mutating webhook scheduled nothing. A later
    // mutating webhook then changed `bar` (trigger: update) while deploy runs.
    const stored = edit(inProgress, (i) => {
      i.metadata.labels = { team: 'a' };
      i.spec!.parameters = { ...i.spec!.parameters, bar: 'injected' };
    });
    const guard = finalGuard(update(inProgress, stored), deps());
    const direct = decide(
      update(
        inProgress,
        edit(inProgress, (i) => (i.spec!.parameters!['bar'] = 'injected')),
      ),
      deps(),
    );
    expect(guard).toEqual(direct);
    expect(guard.kind).toBe('deny');
    if (guard.kind !== 'deny') return;
    expect(guard.causes).toEqual([
      expect.objectContaining({
        field: 'spec.parameters.bar',
        reason: 'FieldValueForbidden',
        message: expect.stringContaining(
          'this change would schedule plan "update" while plan "deploy" (IN_PROGRESS, phase "main", step "app"',
        ),
      }),
    ]);
  });

  it('refuses a record that another webhook switched to a different plan after scheduling', () => {
    // bar → update was scheduled on an idle Instance; a later webhook renamed the plan.
    const stored = edit(scheduled, (i) => {
      i.status = { planStatus: { deploy: { name: 'deploy', uid: 'uid-0', status: 'COMPLETE' } } };
      i.spec!.parameters!['bar'] = 'b';
      i.spec!.planExecution = { planName: 'deploy', uid: 'uid-7' };
    });
    const old = edit(stored, (i) => {
      delete i.spec!.parameters!['bar'];
      i.spec!.planExecution = { planName: 'deploy', uid: 'uid-0' };
    });
    const guard = finalGuard(update(old, stored), deps());
    expect(guard).toMatchObject({
      kind: 'deny',
      causes: [
        {
          field: 'spec.planExecution.planName',
          reason: 'FieldValueInvalid',
          message: expect.stringContaining(
            'this change schedules plan "update" as a new run, but spec.planExecution records plan "deploy" (run uid-7)',
          ),
        },
      ],
    });
  });

  it('refuses a parameter change whose record still names the previous run', () => {
    const old = edit(scheduled, (i) => {
      i.status = { planStatus: { deploy: { name: 'deploy', uid: 'uid-0', status: 'COMPLETE' } } };
    });
    const stored = edit(old, (i) => (i.spec!.parameters!['bar'] = 'b'));
    const guard = finalGuard(update(old, stored), deps());
    expect(guard.kind).toBe('deny');
    if (guard.kind === 'deny') {
      expect(guard.message).toContain('the run that was already recorded');
      expect(guard.message).toContain('another mutating webhook');
    }
  });

  it('refuses a direct plan request that bypassed the mutating webhook while another plan runs', () => {
    const stored = edit(inProgress, (i) => {
      i.spec!.planExecution = { planName: 'update', uid: 'forged' };
    });
    const guard = finalGuard(update(inProgress, stored), deps());
    expect(guard).toMatchObject({
      kind: 'deny',
      causes: [{ field: 'spec.planExecution.planName', reason: 'FieldValueForbidden' }],
    });
  });

  it('admits a direct plan request recorded as a new run when nothing runs', () => {
    const old = edit(scheduled, (i) => {
      i.status = { planStatus: { deploy: { name: 'deploy', uid: 'uid-0', status: 'COMPLETE' } } };
    });
    const stored = edit(old, (i) => (i.spec!.planExecution = { planName: 'update', uid: 'u-1' }));
    expect(finalGuard(update(old, stored), deps()).kind).toBe('allow');
  });

  it('refuses dropping spec.planExecution (the mutating webhook would have put it back)', () => {
    const stored = edit(inProgress, (i) => delete i.spec!.planExecution);
    expect(finalGuard(update(inProgress, stored), deps())).toMatchObject({
      kind: 'deny',
      causes: [{ field: 'spec.planExecution', reason: 'FieldValueRequired' }],
    });
  });

  it('refuses a create that records no deploy run, and admits one that does', () => {
    const create = (i: Instance): DecisionInput => ({
      operation: 'CREATE',
      instance: i,
      operatorVersion: ov,
      user: alice,
      dryRun: false,
    });
    expect(finalGuard(create(idle), deps())).toMatchObject({
      kind: 'deny',
      message: expect.stringContaining('a new Instance must start with plan "deploy"'),
    });
    const other = edit(idle, (i) => (i.spec!.planExecution = { planName: 'update', uid: 'x' }));
    expect(finalGuard(create(other), deps()).kind).toBe('deny');
    const good = edit(idle, (i) => (i.spec!.planExecution = { planName: 'deploy', uid: 'x' }));
    expect(finalGuard(create(good), deps()).kind).toBe('allow');
  });

  it('admits metadata-only changes and changes while being deleted that only the controller makes', () => {
    const labelled = edit(inProgress, (i) => (i.metadata.labels = { a: 'b' }));
    expect(finalGuard(update(inProgress, labelled), deps()).kind).toBe('allow');
  });
});
