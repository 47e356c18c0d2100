// The Instance admission table: every scheduling and denial rule, KUDO's own
// instance_admission_test situations first (adapted where Planwright deliberately differs),
// then ours: validation, immutability, abort, deletion, missing objects.
import {
  CLEANUP_FINALIZER,
  type Instance,
  type OperatorVersion,
} from '../../../../src/kudo/api/index.ts';
import type { DecisionInput } from '../../../../src/kudo/admission/index.ts';
import {
  complete,
  deleted,
  edit,
  idle,
  inProgress,
  instance,
  operatorVersion,
  ov,
  ov2,
  scheduled,
  typedOv,
  uninstalling,
  withPlanStatus,
} from '../fixtures.ts';

export interface Case {
  readonly name: string;
  readonly input: DecisionInput;
}

const alice = { username: 'alice', groups: ['system:authenticated'] };
export const CONTROLLER = 'system:serviceaccount:planwright-system:planwright';
const controller = { username: CONTROLLER, groups: ['system:serviceaccounts'] };

/** An Instance as stored: with the cleanup finalizer the webhook added at CREATE. */
const stored = (i: Instance): Instance =>
  i.metadata.finalizers === undefined
    ? { ...i, metadata: { ...i.metadata, finalizers: [CLEANUP_FINALIZER] } }
    : i;

/**
 * An UPDATE of an Instance created through the webhook: both sides carry the cleanup finalizer
 * (unless a case sets finalizers itself), as they do when the OperatorVersion has a cleanup plan.
 */
function update(
  old: Instance,
  next: Instance,
  ovs: { ov?: OperatorVersion | undefined; old?: OperatorVersion | undefined } = {},
  user: DecisionInput['user'] = alice,
): DecisionInput {
  return rawUpdate(stored(old), stored(next), ovs, user);
}

/** An UPDATE with both Instances exactly as given. */
function rawUpdate(
  old: Instance,
  next: Instance,
  ovs: { ov?: OperatorVersion | undefined; old?: OperatorVersion | undefined } = {},
  user: DecisionInput['user'] = alice,
): DecisionInput {
  const current = 'ov' in ovs ? ovs.ov : ov;
  return {
    operation: 'UPDATE',
    instance: next,
    oldInstance: old,
    operatorVersion: current,
    oldOperatorVersion: 'old' in ovs ? ovs.old : current,
    user,
    dryRun: false,
  };
}

function create(next: Instance, current: OperatorVersion | null = ov): DecisionInput {
  return {
    operation: 'CREATE',
    instance: next,
    operatorVersion: current ?? undefined,
    user: alice,
    dryRun: false,
  };
}

const upgraded = edit(idle, (i) => (i.spec!.operatorVersion = { name: 'foo-operator-2.0' }));
const ovNoFoo = operatorVersion(
  'foo-operator-2.0',
  ['deploy', 'update', 'cleanup'],
  [
    { name: 'other-foo', trigger: 'deploy' },
    { name: 'bar', trigger: 'update' },
  ],
);
const ovNoUpgrade = operatorVersion('foo-operator-2.0', ['deploy', 'update'], [{ name: 'foo' }]);
const ovDeployOnly = operatorVersion('foo-operator-2.0', ['deploy'], [{ name: 'foo' }]);
const ovNoPlans = operatorVersion('foo-operator-2.0', ['backup'], []);
const ovOtherOperator = operatorVersion('bar-operator-1.0', ['deploy'], [], { operator: 'bar' });
const ovBadTrigger = operatorVersion(
  'foo-operator',
  ['deploy', 'update'],
  [{ name: 'foo', trigger: 'fake' }],
);

const typed = (
  parameters: Record<string, string>,
  extra: Partial<Instance['spec']> = {},
): Instance => instance({ spec: { operatorVersion: { name: 'typed' }, parameters, ...extra } });
const typedIdle = typed({ PASSWORD: 'secret' });
const typedRunning = withPlanStatus(
  typed({ PASSWORD: 'secret' }, { planExecution: { planName: 'deploy', uid: 'uid-0' } }),
  'IN_PROGRESS',
);
const immutableV1 = operatorVersion(
  'imm-1',
  ['deploy', 'update', 'upgrade'],
  [{ name: 'CLUSTER', default: 'zk' }],
);
const immutableV2 = operatorVersion(
  'imm-2',
  ['deploy', 'update', 'upgrade'],
  [
    { name: 'CLUSTER', default: 'zk', immutable: true },
    { name: 'ZONE', default: 'a', immutable: true },
  ],
);
const imm = (name: string, parameters: Record<string, string>): Instance =>
  instance({ spec: { operatorVersion: { name }, parameters } });

const abortRequested = edit(inProgress, (i) => {
  i.spec!.planExecution = {
    planName: 'deploy',
    uid: 'uid-0',
    abort: true,
    abortRequestedBy: 'alice',
    abortRequestedAt: '2026-11-21T10:30:00Z',
  };
});

export const CASES: readonly Case[] = [
  // ---- KUDO's instance_admission_test (TestValidateUpdate) -----------------------------
  { name: 'no change is a no-op', input: update(idle, idle) },
  {
    name: 'an update that drops the cleanup finalizer gets it back (a repeated server-side apply)',
    input: rawUpdate(
      edit(idle, (i) => (i.metadata.finalizers = ['example.com/other', CLEANUP_FINALIZER])),
      edit(idle, (i) => (i.metadata.finalizers = ['example.com/other'])),
    ),
  },
  {
    name: 'an upgrade to an OperatorVersion with a cleanup plan puts the cleanup finalizer on',
    input: rawUpdate(
      edit(idle, (i) => (i.spec!.operatorVersion = { name: 'plain' })),
      idle,
      { old: operatorVersion('plain', ['deploy'], [{ name: 'foo' }]) },
    ),
  },
  {
    name: 'an Instance of an OperatorVersion without a cleanup plan gets no finalizer on update',
    input: rawUpdate(idle, idle, { ov: operatorVersion('plain', ['deploy'], [{ name: 'foo' }]) }),
  },
  {
    name: 'a label change while a plan runs schedules nothing',
    input: update(
      inProgress,
      edit(inProgress, (i) => (i.metadata.labels = { label: 'label2' })),
    ),
  },
  {
    name: 'requesting a plan directly on an idle Instance schedules it',
    input: update(idle, scheduled),
  },
  {
    name: 're-triggering the running plan directly (new uid) restarts it',
    input: update(
      inProgress,
      edit(inProgress, (i) => (i.spec!.planExecution = { planName: 'deploy', uid: 'foo' })),
    ),
  },
  {
    name: 're-triggering with the uid removed restarts the plan',
    input: update(
      inProgress,
      edit(inProgress, (i) => (i.spec!.planExecution = { planName: 'deploy' })),
    ),
  },
  {
    name: 'requesting a different plan while one runs is denied',
    input: update(
      inProgress,
      edit(inProgress, (i) => (i.spec!.planExecution = { planName: 'update' })),
    ),
  },
  {
    name: 'the controller schedules cleanup on a deleted Instance, overriding the running plan',
    input: update(
      deleted,
      edit(deleted, (i) => (i.spec!.planExecution = { planName: 'cleanup' })),
      {},
      controller,
    ),
  },
  {
    name: 'a user cannot schedule cleanup on a deleted Instance',
    input: update(
      deleted,
      edit(deleted, (i) => (i.spec!.planExecution = { planName: 'cleanup' })),
    ),
  },
  {
    name: 'cleanup cannot be overridden by another plan',
    input: update(
      uninstalling,
      edit(uninstalling, (i) => (i.spec!.planExecution = { planName: 'deploy' })),
    ),
  },
  {
    name: 'cleanup cannot be cleared',
    input: update(
      uninstalling,
      edit(uninstalling, (i) => (i.spec!.planExecution = {})),
    ),
  },
  {
    name: 'a terminal plan stays recorded on a metadata change',
    input: update(
      complete,
      edit(complete, (i) => (i.metadata.annotations = { a: 'b' })),
    ),
  },
  {
    name: 'a user cannot schedule cleanup directly',
    input: update(
      idle,
      edit(idle, (i) => (i.spec!.planExecution = { planName: 'cleanup' })),
    ),
  },
  {
    name: 'the controller cannot schedule cleanup on an Instance not being deleted',
    input: update(
      idle,
      edit(idle, (i) => (i.spec!.planExecution = { planName: 'cleanup' })),
      {},
      controller,
    ),
  },
  {
    name: 'parameter changes on a deleted Instance are denied',
    input: update(
      deleted,
      edit(deleted, (i) => (i.spec!.parameters = { foo: 'newFoo' })),
    ),
  },
  {
    name: 'upgrades of a deleted Instance are denied',
    input: update(
      deleted,
      edit(deleted, (i) => (i.spec!.operatorVersion = { name: 'foo-operator-2.0' })),
      { ov: ov2, old: ov },
    ),
  },
  {
    name: 'clearing the running plan is denied',
    input: update(
      inProgress,
      edit(inProgress, (i) => (i.spec!.planExecution = {})),
    ),
  },
  {
    name: 'an upgrade of an idle Instance schedules upgrade',
    input: update(idle, upgraded, { ov: ov2, old: ov }),
  },
  {
    name: 'an upgrade falls back to update when there is no upgrade plan',
    input: update(idle, upgraded, { ov: ovNoUpgrade, old: ov }),
  },
  {
    name: 'an upgrade falls back to deploy when there is neither upgrade nor update',
    input: update(idle, upgraded, { ov: ovDeployOnly, old: ov }),
  },
  {
    name: 'an upgrade while a plan runs is denied',
    input: update(
      inProgress,
      edit(inProgress, (i) => (i.spec!.operatorVersion = { name: 'foo-operator-2.0' })),
      { ov: ov2, old: ov },
    ),
  },
  {
    name: 'an upgrade together with a directly requested plan is denied',
    input: update(
      idle,
      edit(upgraded, (i) => (i.spec!.planExecution = { planName: 'deploy' })),
      { ov: ov2, old: ov },
    ),
  },
  {
    name: 'a parameter change on an idle Instance schedules its trigger',
    input: update(
      idle,
      edit(idle, (i) => (i.spec!.parameters = { foo: 'newFoo' })),
    ),
  },
  {
    name: 'several parameters triggering the same plan schedule it once',
    input: update(
      idle,
      edit(idle, (i) => (i.spec!.parameters = { foo: 'newFoo', 'other-foo': 'x' })),
    ),
  },
  {
    name: 'a parameter change triggering the running plan restarts it',
    input: update(
      inProgress,
      edit(inProgress, (i) => (i.spec!.parameters = { foo: 'newFoo' })),
    ),
  },
  {
    name: 'a parameter change triggering a different plan while one runs is denied',
    input: update(
      inProgress,
      edit(inProgress, (i) => (i.spec!.parameters = { foo: 'foo', bar: 'newBar' })),
    ),
  },
  {
    name: 'a change scheduled but not yet started by the controller blocks a different plan',
    input: update(
      scheduled,
      edit(scheduled, (i) => (i.spec!.parameters = { foo: 'foo', bar: 'newBar' })),
    ),
  },
  {
    name: 'parameters triggering different plans at once are denied',
    input: update(
      idle,
      edit(idle, (i) => (i.spec!.parameters = { foo: 'newFoo', bar: 'newBar' })),
    ),
  },
  {
    name: 'an unknown parameter is denied (KUDO let it pass and scheduled nothing)',
    input: update(
      idle,
      edit(idle, (i) => (i.spec!.parameters!['bazz'] = 'newBazz')),
    ),
  },
  {
    name: 'a parameter change together with an upgrade runs the upgrade plan, with a warning (KUDO denied)',
    input: update(
      idle,
      edit(upgraded, (i) => (i.spec!.parameters = { foo: 'newFoo' })),
      { ov: ov2, old: ov },
    ),
  },
  {
    name: 'an upgrade may remove a parameter the new OperatorVersion no longer has',
    input: update(
      idle,
      edit(upgraded, (i) => (i.spec!.parameters = {})),
      { ov: ovNoFoo, old: ov },
    ),
  },
  {
    name: 'a parameter change together with a directly requested plan is denied',
    input: update(
      idle,
      edit(scheduled, (i) => (i.spec!.parameters = { foo: 'newFoo' })),
    ),
  },
  // ---- KUDO's Test_triggeredPlan ------------------------------------------------------
  {
    name: 'a parameter without trigger schedules update',
    input: update(typedIdle, typed({ PASSWORD: 'secret', SIZE: '5' }), { ov: typedOv }),
  },
  {
    name: 'a parameter without trigger schedules deploy when there is no update plan',
    input: update(
      idle,
      edit(idle, (i) => (i.spec!.parameters = { foo: 'foo', added: 'y' })),
      {
        ov: operatorVersion('foo-operator', ['deploy'], [{ name: 'foo' }, { name: 'added' }]),
      },
    ),
  },
  {
    name: 'a parameter with an explicit trigger schedules that plan',
    input: update(typedIdle, typed({ PASSWORD: 'secret', BACKUP_TARGET: 'gcs' }), { ov: typedOv }),
  },
  {
    name: 'a parameter triggering a plan the OperatorVersion lacks is denied as a package fault',
    input: update(
      idle,
      edit(idle, (i) => (i.spec!.parameters = { foo: 'newFoo' })),
      { ov: ovBadTrigger },
    ),
  },
  // ---- CREATE ---------------------------------------------------------------------------
  { name: 'create schedules deploy', input: create(idle) },
  {
    name: 'create of an OperatorVersion without a cleanup plan adds no finalizer',
    input: create(idle, operatorVersion('foo-operator', ['deploy', 'update'], [{ name: 'foo' }])),
  },
  {
    name: 'create appends the cleanup finalizer to the finalizers the Instance has',
    input: create(edit(idle, (i) => (i.metadata.finalizers = ['example.com/other']))),
  },
  {
    name: 'create of an Instance that has the cleanup finalizer adds it once',
    input: create(edit(idle, (i) => (i.metadata.finalizers = ['kudo.dev.instance.cleanup']))),
  },
  { name: 'a dry-run create is decided the same way', input: { ...create(idle), dryRun: true } },
  { name: 'create without the OperatorVersion is denied', input: create(idle, null) },
  {
    name: 'create without spec.operatorVersion.name is denied',
    input: create(edit(idle, (i) => (i.spec!.operatorVersion = {}))),
  },
  {
    name: 'create of an OperatorVersion without deploy is denied',
    input: create(idle, operatorVersion('foo-operator', ['update'], [{ name: 'foo' }])),
  },
  {
    name: 'create ignores a requested plan other than deploy, with a warning',
    input: create(edit(idle, (i) => (i.spec!.planExecution = { planName: 'update', uid: 'mine' }))),
  },
  { name: 'create without a required parameter is denied', input: create(typed({}), typedOv) },
  {
    name: 'create with typed values that parse is allowed',
    input: create(
      typed({
        PASSWORD: 'p',
        SIZE: '-7',
        RATIO: '1e3',
        ENABLED: 'False',
        LIST: '- x\n- y',
        MAP: 'k: v',
        MODE: 'safe',
      }),
      typedOv,
    ),
  },
  {
    name: 'create with values of the wrong type, outside the enum, or unknown is denied with a cause each',
    input: create(
      typed({
        PASSWORD: 'p',
        SIZE: '3.5',
        RATIO: 'half',
        ENABLED: 'yes',
        LIST: 'k: v',
        MAP: '[a',
        MODE: 'turbo',
        COLOUR: 'red',
      }),
      typedOv,
    ),
  },
  // ---- immutability -------------------------------------------------------------------------
  {
    name: 'changing an immutable parameter is denied',
    input: update(typedIdle, typed({ PASSWORD: 'secret', CLUSTER: 'other' }), { ov: typedOv }),
  },
  {
    name: 'removing an immutable parameter that would change its value is denied',
    input: update(typed({ PASSWORD: 'secret', CLUSTER: 'mine' }), typedIdle, { ov: typedOv }),
  },
  {
    name: 'setting an immutable parameter to the value it had by default is allowed',
    input: update(typedIdle, typed({ PASSWORD: 'secret', CLUSTER: 'zk' }), { ov: typedOv }),
  },
  {
    name: 'an invalid value of a parameter not changed by an update is not reported',
    input: update(
      typed({ PASSWORD: 'secret', SIZE: 'many' }),
      typed({ PASSWORD: 'secret', SIZE: 'many', MODE: 'safe' }),
      { ov: typedOv },
    ),
  },
  {
    name: 'an upgrade making a parameter immutable, or adding one, needs explicit values',
    input: update(imm('imm-1', {}), imm('imm-2', {}), { ov: immutableV2, old: immutableV1 }),
  },
  {
    name: 'an upgrade making a parameter immutable is allowed with explicit values',
    input: update(imm('imm-1', {}), imm('imm-2', { CLUSTER: 'zk', ZONE: 'b' }), {
      ov: immutableV2,
      old: immutableV1,
    }),
  },
  // ---- abort ------------------------------------------------------------------------------
  {
    name: 'abort while a plan runs is accepted and records who and when',
    input: update(
      inProgress,
      edit(inProgress, (i) => (i.spec!.planExecution!.abort = true)),
    ),
  },
  {
    name: 'abort when no plan runs is denied',
    input: update(
      complete,
      edit(complete, (i) => (i.spec!.planExecution!.abort = true)),
    ),
  },
  {
    name: 'abort when no plan was ever scheduled is denied',
    input: update(
      idle,
      edit(idle, (i) => (i.spec!.planExecution = { abort: true })),
    ),
  },
  {
    name: 'abort together with another change is denied',
    input: update(
      inProgress,
      edit(inProgress, (i) => {
        i.spec!.planExecution!.abort = true;
        i.spec!.parameters = { foo: 'newFoo' };
      }),
    ),
  },
  {
    name: 'the cleanup plan cannot be aborted',
    input: update(
      uninstalling,
      edit(uninstalling, (i) => (i.spec!.planExecution!.abort = true)),
    ),
  },
  {
    name: 'an accepted abort cannot be withdrawn while the plan runs',
    input: update(
      abortRequested,
      edit(abortRequested, (i) => (i.spec!.planExecution!.abort = false)),
    ),
  },
  {
    name: 'a different plan is still denied while an abort awaits the controller',
    input: update(
      abortRequested,
      edit(abortRequested, (i) => (i.spec!.parameters = { foo: 'foo', bar: 'b' })),
    ),
  },
  {
    name: 'after the plan is ABORTED a different plan is scheduled and the abort fields go',
    input: update(
      withPlanStatus(abortRequested, 'ABORTED'),
      edit(
        withPlanStatus(abortRequested, 'ABORTED'),
        (i) => (i.spec!.parameters = { foo: 'foo', bar: 'b' }),
      ),
    ),
  },
  // ---- terminal states and records -------------------------------------------------------
  {
    name: 'after COMPLETE a change scheduling a different plan passes',
    input: update(
      complete,
      edit(complete, (i) => (i.spec!.parameters = { foo: 'foo', bar: 'b' })),
    ),
  },
  {
    name: 'after FATAL_ERROR an upgrade passes',
    input: update(
      withPlanStatus(scheduled, 'FATAL_ERROR'),
      edit(
        withPlanStatus(scheduled, 'FATAL_ERROR'),
        (i) => (i.spec!.operatorVersion = { name: 'foo-operator-2.0' }),
      ),
      { ov: ov2, old: ov },
    ),
  },
  {
    name: 'a COMPLETE status of an older run (other uid) does not end the scheduled one',
    input: update(
      withPlanStatus(scheduled, 'COMPLETE', 'uid-older'),
      edit(
        withPlanStatus(scheduled, 'COMPLETE', 'uid-older'),
        (i) => (i.spec!.parameters = { foo: 'foo', bar: 'b' }),
      ),
    ),
  },
  {
    name: 'a write without planExecution (replace, server-side apply) keeps the stored record',
    input: update(
      inProgress,
      edit(inProgress, (i) => delete i.spec!.planExecution),
    ),
  },
  {
    name: 'a write without planExecution that changes a parameter schedules its plan',
    input: update(
      complete,
      edit(complete, (i) => {
        delete i.spec!.planExecution;
        i.spec!.parameters = { foo: 'foo', bar: 'b' };
      }),
    ),
  },
  {
    name: 'clearing planExecution when nothing runs is allowed',
    input: update(
      complete,
      edit(complete, (i) => (i.spec!.planExecution = {})),
    ),
  },
  {
    name: 'requesting a plan the OperatorVersion lacks is denied',
    input: update(
      idle,
      edit(idle, (i) => (i.spec!.planExecution = { planName: 'backup' })),
    ),
  },
  // ---- missing or mismatched OperatorVersions ---------------------------------------------
  {
    name: 'a metadata change passes even when the OperatorVersion is gone',
    input: update(
      complete,
      edit(complete, (i) => (i.metadata.labels = { a: 'b' })),
      { ov: undefined, old: undefined },
    ),
  },
  {
    name: 'a parameter change is denied when the OperatorVersion is gone',
    input: update(
      complete,
      edit(complete, (i) => (i.spec!.parameters = { foo: 'x' })),
      { ov: undefined, old: undefined },
    ),
  },
  {
    name: 'removing the finalizer of a deleted Instance passes',
    input: update(
      deleted,
      edit(deleted, (i) => (i.metadata.finalizers = [])),
      {},
      controller,
    ),
  },
  {
    name: 'an upgrade to another operator is denied',
    input: update(
      idle,
      edit(idle, (i) => (i.spec!.operatorVersion = { name: 'bar-operator-1.0' })),
      { ov: ovOtherOperator, old: ov },
    ),
  },
  {
    name: 'an upgrade to an OperatorVersion without upgrade, update or deploy is denied',
    input: update(idle, upgraded, { ov: ovNoPlans, old: ov }),
  },
  {
    name: 'an upgrade whose old OperatorVersion is gone passes with a warning',
    input: update(idle, upgraded, { ov: ov2, old: undefined }),
  },
  {
    name: 'a running plan of a typed OperatorVersion blocks a backup trigger',
    input: update(
      typedRunning,
      edit(typedRunning, (i) => (i.spec!.parameters!['BACKUP_TARGET'] = 'gcs')),
      { ov: typedOv },
    ),
  },
];
