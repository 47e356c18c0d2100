// Expected decisions of the admission table (cases.ts), one per case name:
// the exact JSON patch and warnings, or the exact message and causes. Reviewed by hand;
// a change of wording must show up here.
import type { Decision } from '../../../../src/kudo/admission/index.ts';

export const EXPECTED: Readonly<Record<string, Decision>> = {
  'no change is a no-op': {
    kind: 'allow',
    patch: [],
    warnings: [],
  },
  'a label change while a plan runs schedules nothing': {
    kind: 'allow',
    patch: [],
    warnings: [],
  },
  'requesting a plan directly on an idle Instance schedules it': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'deploy',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'deploy',
      uid: 'uid-1',
      reason: 'direct',
    },
  },
  're-triggering the running plan directly (new uid) restarts it': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'deploy',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [
      'plan "deploy" was IN_PROGRESS at phase "main", step "app"; it restarts from the beginning as a new run',
    ],
    scheduled: {
      planName: 'deploy',
      uid: 'uid-1',
      reason: 'direct',
    },
  },
  're-triggering with the uid removed restarts the plan': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'deploy',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [
      'plan "deploy" was IN_PROGRESS at phase "main", step "app"; it restarts from the beginning as a new run',
    ],
    scheduled: {
      planName: 'deploy',
      uid: 'uid-1',
      reason: 'direct',
    },
  },
  'requesting a different plan while one runs is denied': {
    kind: 'deny',
    message:
      'Instance test/test: cannot run plan "update" (requested in spec.planExecution.planName) now, because plan "deploy" (IN_PROGRESS, phase "main", step "app", started 2026-11-21T10:00:00Z) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again, or abort the plan first: kubectl patch instance test -n test --type merge -p \'{"spec":{"planExecution":{"abort":true}}}\'',
    causes: [
      {
        field: 'spec.planExecution.planName',
        message:
          'this change would schedule plan "update" while plan "deploy" (IN_PROGRESS, phase "main", step "app", started 2026-11-21T10:00:00Z) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again, or abort the plan first: kubectl patch instance test -n test --type merge -p \'{"spec":{"planExecution":{"abort":true}}}\'',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'the controller schedules cleanup on a deleted Instance, overriding the running plan': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'cleanup',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'cleanup',
      uid: 'uid-1',
      reason: 'cleanup',
    },
  },
  'a user cannot schedule cleanup on a deleted Instance': {
    kind: 'deny',
    message:
      'Instance test/test is being deleted: its spec can no longer change and no plan other than "cleanup" (scheduled by the controller) can run. Now: plan "deploy" (IN_PROGRESS, phase "main", step "app", started 2026-11-21T10:00:00Z). Wait for the deletion to finish (kubectl get instance test -n test -w).',
    causes: [
      {
        field: 'spec.planExecution.planName',
        message:
          'the Instance is being deleted; no plan can start now (the controller runs "cleanup")',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'cleanup cannot be overridden by another plan': {
    kind: 'deny',
    message:
      'Instance test/test is being deleted: its spec can no longer change and no plan other than "cleanup" (scheduled by the controller) can run. Now: plan "cleanup" (IN_PROGRESS). Wait for the deletion to finish (kubectl get instance test -n test -w).',
    causes: [
      {
        field: 'spec.planExecution.planName',
        message: 'plan "cleanup" runs and cannot be replaced or cleared',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'cleanup cannot be cleared': {
    kind: 'deny',
    message:
      'Instance test/test is being deleted: its spec can no longer change and no plan other than "cleanup" (scheduled by the controller) can run. Now: plan "cleanup" (IN_PROGRESS). Wait for the deletion to finish (kubectl get instance test -n test -w).',
    causes: [
      {
        field: 'spec.planExecution.planName',
        message: 'plan "cleanup" runs and cannot be replaced or cleared',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'a terminal plan stays recorded on a metadata change': {
    kind: 'allow',
    patch: [],
    warnings: [],
  },
  'a user cannot schedule cleanup directly': {
    kind: 'deny',
    message:
      'Instance test/test: plan "cleanup" is scheduled only by the Planwright controller when the Instance is deleted. To remove the Instance run: kubectl delete instance test -n test',
    causes: [
      {
        field: 'spec.planExecution.planName',
        message:
          'only the controller schedules "cleanup", on deletion; to remove the Instance run: kubectl delete instance test -n test',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'the controller cannot schedule cleanup on an Instance not being deleted': {
    kind: 'deny',
    message:
      'Instance test/test: plan "cleanup" is scheduled only by the Planwright controller when the Instance is deleted. To remove the Instance run: kubectl delete instance test -n test',
    causes: [
      {
        field: 'spec.planExecution.planName',
        message:
          'only the controller schedules "cleanup", on deletion; to remove the Instance run: kubectl delete instance test -n test',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'parameter changes on a deleted Instance are denied': {
    kind: 'deny',
    message:
      'Instance test/test is being deleted: its spec can no longer change and no plan other than "cleanup" (scheduled by the controller) can run. Now: plan "deploy" (IN_PROGRESS, phase "main", step "app", started 2026-11-21T10:00:00Z). Wait for the deletion to finish (kubectl get instance test -n test -w).',
    causes: [
      {
        field: 'spec.parameters.foo',
        message: 'the Instance is being deleted; its spec can no longer change',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'upgrades of a deleted Instance are denied': {
    kind: 'deny',
    message:
      'Instance test/test is being deleted: its spec can no longer change and no plan other than "cleanup" (scheduled by the controller) can run. Now: plan "deploy" (IN_PROGRESS, phase "main", step "app", started 2026-11-21T10:00:00Z). Wait for the deletion to finish (kubectl get instance test -n test -w).',
    causes: [
      {
        field: 'spec.operatorVersion',
        message: 'the Instance is being deleted; its spec can no longer change',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'clearing the running plan is denied': {
    kind: 'deny',
    message:
      'Instance test/test: cannot clear spec.planExecution: plan "deploy" (IN_PROGRESS, phase "main", step "app", started 2026-11-21T10:00:00Z) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again, or abort the plan first: kubectl patch instance test -n test --type merge -p \'{"spec":{"planExecution":{"abort":true}}}\'',
    causes: [
      {
        field: 'spec.planExecution.planName',
        message:
          'the scheduled plan cannot be cleared while plan "deploy" (IN_PROGRESS, phase "main", step "app", started 2026-11-21T10:00:00Z) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again, or abort the plan first: kubectl patch instance test -n test --type merge -p \'{"spec":{"planExecution":{"abort":true}}}\'',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'an upgrade of an idle Instance schedules upgrade': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'upgrade',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'upgrade',
      uid: 'uid-1',
      reason: 'upgrade',
    },
  },
  'an upgrade falls back to update when there is no upgrade plan': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'update',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'update',
      uid: 'uid-1',
      reason: 'upgrade',
    },
  },
  'an upgrade falls back to deploy when there is neither upgrade nor update': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'deploy',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'deploy',
      uid: 'uid-1',
      reason: 'upgrade',
    },
  },
  'an upgrade while a plan runs is denied': {
    kind: 'deny',
    message:
      'Instance test/test: cannot upgrade to OperatorVersion test/foo-operator-2.0 now: plan "deploy" (IN_PROGRESS, phase "main", step "app", started 2026-11-21T10:00:00Z) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again, or abort the plan first: kubectl patch instance test -n test --type merge -p \'{"spec":{"planExecution":{"abort":true}}}\'',
    causes: [
      {
        field: 'spec.operatorVersion',
        message:
          'the upgrade to test/foo-operator-2.0 cannot start while plan "deploy" (IN_PROGRESS, phase "main", step "app", started 2026-11-21T10:00:00Z) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again, or abort the plan first: kubectl patch instance test -n test --type merge -p \'{"spec":{"planExecution":{"abort":true}}}\'',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'an upgrade together with a directly requested plan is denied': {
    kind: 'deny',
    message:
      'Instance test/test: plan "deploy" was requested directly together with an upgrade (spec.operatorVersion). Make them separate changes: first one, then the other once its plan is finished.',
    causes: [
      {
        field: 'spec.planExecution.planName',
        message:
          'a directly requested plan must be the only change: make the other changes separately, once its plan is finished',
        reason: 'FieldValueForbidden',
      },
      {
        field: 'spec.operatorVersion',
        message: 'cannot be combined with a plan request',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'a parameter change on an idle Instance schedules its trigger': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'deploy',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'deploy',
      uid: 'uid-1',
      reason: 'parameters',
    },
  },
  'several parameters triggering the same plan schedule it once': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'deploy',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'deploy',
      uid: 'uid-1',
      reason: 'parameters',
    },
  },
  'a parameter change triggering the running plan restarts it': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'deploy',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [
      'plan "deploy" was IN_PROGRESS at phase "main", step "app"; it restarts from the beginning as a new run',
    ],
    scheduled: {
      planName: 'deploy',
      uid: 'uid-1',
      reason: 'parameters',
    },
  },
  'a parameter change triggering a different plan while one runs is denied': {
    kind: 'deny',
    message:
      'Instance test/test: cannot accept this change now: changing spec.parameters.bar would schedule plan "update", because plan "deploy" (IN_PROGRESS, phase "main", step "app", started 2026-11-21T10:00:00Z) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again, or abort the plan first: kubectl patch instance test -n test --type merge -p \'{"spec":{"planExecution":{"abort":true}}}\'',
    causes: [
      {
        field: 'spec.parameters.bar',
        message:
          'this change would schedule plan "update" while plan "deploy" (IN_PROGRESS, phase "main", step "app", started 2026-11-21T10:00:00Z) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again, or abort the plan first: kubectl patch instance test -n test --type merge -p \'{"spec":{"planExecution":{"abort":true}}}\'',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'a change scheduled but not yet started by the controller blocks a different plan': {
    kind: 'deny',
    message:
      'Instance test/test: cannot accept this change now: changing spec.parameters.bar would schedule plan "update", because plan "deploy" (PENDING, not started by the controller yet) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again, or abort the plan first: kubectl patch instance test -n test --type merge -p \'{"spec":{"planExecution":{"abort":true}}}\'',
    causes: [
      {
        field: 'spec.parameters.bar',
        message:
          'this change would schedule plan "update" while plan "deploy" (PENDING, not started by the controller yet) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again, or abort the plan first: kubectl patch instance test -n test --type merge -p \'{"spec":{"planExecution":{"abort":true}}}\'',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'parameters triggering different plans at once are denied': {
    kind: 'deny',
    message:
      'Instance test/test: the changed parameters trigger different plans at once (bar → "update", foo → "deploy"), and only one plan can run at a time. Change them in separate steps, one plan at a time.',
    causes: [
      {
        field: 'spec.parameters.bar',
        message: 'triggers plan "update"; other changed parameters trigger "deploy"',
        reason: 'FieldValueForbidden',
      },
      {
        field: 'spec.parameters.foo',
        message: 'triggers plan "deploy"; other changed parameters trigger "update"',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'an unknown parameter is denied (KUDO let it pass and scheduled nothing)': {
    kind: 'deny',
    message:
      'Instance test/test: parameters do not fit OperatorVersion test/foo-operator: spec.parameters.bazz: unknown parameter: OperatorVersion test/foo-operator defines foo, other-foo, bar. Fix the values and try again.',
    causes: [
      {
        field: 'spec.parameters.bazz',
        message: 'unknown parameter: OperatorVersion test/foo-operator defines foo, other-foo, bar',
        reason: 'FieldValueNotSupported',
      },
    ],
    warnings: [],
  },
  'a parameter change together with an upgrade runs the upgrade plan, with a warning (KUDO denied)':
    {
      kind: 'allow',
      patch: [
        {
          op: 'add',
          path: '/spec/planExecution',
          value: {
            planName: 'upgrade',
            uid: 'uid-1',
          },
        },
      ],
      warnings: [
        'parameters foo changed together with the upgrade: plan "upgrade" applies them; their own trigger plans do not run',
      ],
      scheduled: {
        planName: 'upgrade',
        uid: 'uid-1',
        reason: 'upgrade',
      },
    },
  'an upgrade may remove a parameter the new OperatorVersion no longer has': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'update',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [
      'parameters foo changed together with the upgrade: plan "update" applies them; their own trigger plans do not run',
    ],
    scheduled: {
      planName: 'update',
      uid: 'uid-1',
      reason: 'upgrade',
    },
  },
  'a parameter change together with a directly requested plan is denied': {
    kind: 'deny',
    message:
      'Instance test/test: plan "deploy" was requested directly together with parameter changes (foo). Make them separate changes: first one, then the other once its plan is finished.',
    causes: [
      {
        field: 'spec.planExecution.planName',
        message:
          'a directly requested plan must be the only change: make the other changes separately, once its plan is finished',
        reason: 'FieldValueForbidden',
      },
      {
        field: 'spec.parameters.foo',
        message: 'cannot be combined with a plan request',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'a parameter without trigger schedules update': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'update',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'update',
      uid: 'uid-1',
      reason: 'parameters',
    },
  },
  'a parameter without trigger schedules deploy when there is no update plan': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'deploy',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'deploy',
      uid: 'uid-1',
      reason: 'parameters',
    },
  },
  'a parameter with an explicit trigger schedules that plan': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'backup',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'backup',
      uid: 'uid-1',
      reason: 'parameters',
    },
  },
  'a parameter triggering a plan the OperatorVersion lacks is denied as a package fault': {
    kind: 'deny',
    message:
      'Instance test/test: OperatorVersion test/foo-operator makes foo trigger plan "fake", which it does not define (plans: "deploy", "update"). This is a fault in the package; report it to its maintainers.',
    causes: [
      {
        field: 'spec.parameters.foo',
        message: 'triggers plan "fake", which does not exist',
        reason: 'FieldValueInvalid',
      },
    ],
    warnings: [],
  },
  'create of an OperatorVersion without a cleanup plan adds no finalizer': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'deploy',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'deploy',
      uid: 'uid-1',
      reason: 'create',
    },
  },
  'create appends the cleanup finalizer to the finalizers the Instance has': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'deploy',
          uid: 'uid-1',
        },
      },
      {
        op: 'add',
        path: '/metadata/finalizers/-',
        value: 'kudo.dev.instance.cleanup',
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'deploy',
      uid: 'uid-1',
      reason: 'create',
    },
  },
  'create of an Instance that has the cleanup finalizer adds it once': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'deploy',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'deploy',
      uid: 'uid-1',
      reason: 'create',
    },
  },
  'an update that drops the cleanup finalizer gets it back (a repeated server-side apply)': {
    kind: 'allow',
    patch: [{ op: 'add', path: '/metadata/finalizers/-', value: 'kudo.dev.instance.cleanup' }],
    warnings: [],
  },
  'an upgrade to an OperatorVersion with a cleanup plan puts the cleanup finalizer on': {
    kind: 'allow',
    patch: [
      { op: 'add', path: '/spec/planExecution', value: { planName: 'update', uid: 'uid-1' } },
      { op: 'add', path: '/metadata/finalizers', value: ['kudo.dev.instance.cleanup'] },
    ],
    warnings: [],
    scheduled: { planName: 'update', uid: 'uid-1', reason: 'upgrade' },
  },
  'an Instance of an OperatorVersion without a cleanup plan gets no finalizer on update': {
    kind: 'allow',
    patch: [],
    warnings: [],
  },
  'create schedules deploy': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'deploy',
          uid: 'uid-1',
        },
      },
      {
        op: 'add',
        path: '/metadata/finalizers',
        value: ['kudo.dev.instance.cleanup'],
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'deploy',
      uid: 'uid-1',
      reason: 'create',
    },
  },
  'a dry-run create is decided the same way': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'deploy',
          uid: 'uid-1',
        },
      },
      {
        op: 'add',
        path: '/metadata/finalizers',
        value: ['kudo.dev.instance.cleanup'],
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'deploy',
      uid: 'uid-1',
      reason: 'create',
    },
  },
  'create without the OperatorVersion is denied': {
    kind: 'deny',
    message:
      'Instance test/test: OperatorVersion test/foo-operator does not exist. Install the operator package (its OperatorVersion) first, or correct spec.operatorVersion.',
    causes: [
      {
        field: 'spec.operatorVersion',
        message:
          'OperatorVersion test/foo-operator not found; install the operator package first or correct spec.operatorVersion',
        reason: 'FieldValueNotFound',
      },
    ],
    warnings: [],
  },
  'create without spec.operatorVersion.name is denied': {
    kind: 'deny',
    message:
      'Instance test/test: spec.operatorVersion.name is required: name the OperatorVersion this Instance runs.',
    causes: [
      {
        field: 'spec.operatorVersion.name',
        message: 'required',
        reason: 'FieldValueRequired',
      },
    ],
    warnings: [],
  },
  'create of an OperatorVersion without deploy is denied': {
    kind: 'deny',
    message:
      'Instance test/test: OperatorVersion test/foo-operator has no "deploy" plan, so an Instance of it cannot be installed (plans: "update"). Fix the package.',
    causes: [
      {
        field: 'spec.operatorVersion',
        message: 'the OperatorVersion has no "deploy" plan',
        reason: 'FieldValueInvalid',
      },
    ],
    warnings: [],
  },
  'create ignores a requested plan other than deploy, with a warning': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'deploy',
          uid: 'uid-1',
        },
      },
      {
        op: 'add',
        path: '/metadata/finalizers',
        value: ['kudo.dev.instance.cleanup'],
      },
    ],
    warnings: [
      'spec.planExecution.planName "update" was ignored: a new Instance always starts with plan "deploy"',
    ],
    scheduled: {
      planName: 'deploy',
      uid: 'uid-1',
      reason: 'create',
    },
  },
  'create without a required parameter is denied': {
    kind: 'deny',
    message:
      'Instance test/test: parameters do not fit OperatorVersion test/typed: spec.parameters.PASSWORD: required by OperatorVersion test/typed and has no default; set a value. Fix the values and try again.',
    causes: [
      {
        field: 'spec.parameters.PASSWORD',
        message: 'required by OperatorVersion test/typed and has no default; set a value',
        reason: 'FieldValueRequired',
      },
    ],
    warnings: [],
  },
  'create with typed values that parse is allowed': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'deploy',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'deploy',
      uid: 'uid-1',
      reason: 'create',
    },
  },
  'create with values of the wrong type, outside the enum, or unknown is denied with a cause each':
    {
      kind: 'deny',
      message:
        'Instance test/test: parameters do not fit OperatorVersion test/typed: spec.parameters.SIZE: "3.5" is not an integer (value-type integer); spec.parameters.RATIO: "half" is not a number (value-type number); spec.parameters.ENABLED: "yes" is not a boolean (true or false) (value-type boolean); spec.parameters.LIST: "k: v" is a map, not a YAML list (value-type array); spec.parameters.MAP: "[a" is not valid YAML: Flow sequence must end with a ] at line 1, column 3 (value-type map); spec.parameters.COLOUR: unknown parameter: OperatorVersion test/typed defines SIZE, RATIO, ENABLED, LIST, MAP, MODE, PASSWORD, CLUSTER, BACKUP_TARGET; spec.parameters.MODE: "turbo" is not allowed; choose one of: "fast", "safe". Fix the values and try again.',
      causes: [
        {
          field: 'spec.parameters.SIZE',
          message: '"3.5" is not an integer (value-type integer)',
          reason: 'FieldValueInvalid',
        },
        {
          field: 'spec.parameters.RATIO',
          message: '"half" is not a number (value-type number)',
          reason: 'FieldValueInvalid',
        },
        {
          field: 'spec.parameters.ENABLED',
          message: '"yes" is not a boolean (true or false) (value-type boolean)',
          reason: 'FieldValueInvalid',
        },
        {
          field: 'spec.parameters.LIST',
          message: '"k: v" is a map, not a YAML list (value-type array)',
          reason: 'FieldValueInvalid',
        },
        {
          field: 'spec.parameters.MAP',
          message:
            '"[a" is not valid YAML: Flow sequence must end with a ] at line 1, column 3 (value-type map)',
          reason: 'FieldValueInvalid',
        },
        {
          field: 'spec.parameters.COLOUR',
          message:
            'unknown parameter: OperatorVersion test/typed defines SIZE, RATIO, ENABLED, LIST, MAP, MODE, PASSWORD, CLUSTER, BACKUP_TARGET',
          reason: 'FieldValueNotSupported',
        },
        {
          field: 'spec.parameters.MODE',
          message: '"turbo" is not allowed; choose one of: "fast", "safe"',
          reason: 'FieldValueNotSupported',
        },
      ],
      warnings: [],
    },
  'changing an immutable parameter is denied': {
    kind: 'deny',
    message:
      'Instance test/test: parameters do not fit OperatorVersion test/typed: spec.parameters.CLUSTER: immutable: it cannot change after the Instance was created; restore the previous value. Fix the values and try again.',
    causes: [
      {
        field: 'spec.parameters.CLUSTER',
        message:
          'immutable: it cannot change after the Instance was created; restore the previous value',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'removing an immutable parameter that would change its value is denied': {
    kind: 'deny',
    message:
      'Instance test/test: parameters do not fit OperatorVersion test/typed: spec.parameters.CLUSTER: immutable: removing it would change its value to the default; restore the previous value. Fix the values and try again.',
    causes: [
      {
        field: 'spec.parameters.CLUSTER',
        message:
          'immutable: removing it would change its value to the default; restore the previous value',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'setting an immutable parameter to the value it had by default is allowed': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'update',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'update',
      uid: 'uid-1',
      reason: 'parameters',
    },
  },
  'an invalid value of a parameter not changed by an update is not reported': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'update',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'update',
      uid: 'uid-1',
      reason: 'parameters',
    },
  },
  'an upgrade making a parameter immutable, or adding one, needs explicit values': {
    kind: 'deny',
    message:
      'Instance test/test: parameters do not fit OperatorVersion test/imm-2: spec.parameters.CLUSTER: test/imm-2 makes this parameter immutable; set it explicitly in the same change (it cannot change afterwards); spec.parameters.ZONE: test/imm-2 adds this immutable parameter; set it explicitly in the same change (it cannot change afterwards). Fix the values and try again.',
    causes: [
      {
        field: 'spec.parameters.CLUSTER',
        message:
          'test/imm-2 makes this parameter immutable; set it explicitly in the same change (it cannot change afterwards)',
        reason: 'FieldValueRequired',
      },
      {
        field: 'spec.parameters.ZONE',
        message:
          'test/imm-2 adds this immutable parameter; set it explicitly in the same change (it cannot change afterwards)',
        reason: 'FieldValueRequired',
      },
    ],
    warnings: [],
  },
  'an upgrade making a parameter immutable is allowed with explicit values': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'upgrade',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [
      'parameters CLUSTER, ZONE changed together with the upgrade: plan "upgrade" applies them; their own trigger plans do not run',
    ],
    scheduled: {
      planName: 'upgrade',
      uid: 'uid-1',
      reason: 'upgrade',
    },
  },
  'abort while a plan runs is accepted and records who and when': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution/abortRequestedBy',
        value: 'alice',
      },
      {
        op: 'add',
        path: '/spec/planExecution/abortRequestedAt',
        value: '2026-11-21T10:45:00Z',
      },
    ],
    warnings: [
      'plan "deploy" will be stopped and marked ABORTED by the controller; objects it already applied stay as they are. The next change is accepted once its status is ABORTED.',
    ],
  },
  'abort when no plan runs is denied': {
    kind: 'deny',
    message:
      'Instance test/test: nothing to abort: plan "deploy" is not running (COMPLETE). Remove spec.planExecution.abort.',
    causes: [
      {
        field: 'spec.planExecution.abort',
        message: 'nothing to abort: plan "deploy" is not running (COMPLETE)',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'abort when no plan was ever scheduled is denied': {
    kind: 'deny',
    message:
      'Instance test/test: nothing to abort: no plan was scheduled. Remove spec.planExecution.abort.',
    causes: [
      {
        field: 'spec.planExecution.abort',
        message: 'nothing to abort: no plan was scheduled',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'abort together with another change is denied': {
    kind: 'deny',
    message:
      'Instance test/test: an abort must be the only change; this request also changes spec.parameters.foo. Abort first (kubectl patch instance test -n test --type merge -p \'{"spec":{"planExecution":{"abort":true}}}\'), then make the change once the plan is ABORTED.',
    causes: [
      {
        field: 'spec.planExecution.abort',
        message:
          'an abort must be the only change: abort first, then make the other changes once the plan is ABORTED',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'the cleanup plan cannot be aborted': {
    kind: 'deny',
    message:
      'Instance test/test: plan "cleanup" runs because the Instance is being deleted, and cannot be aborted: stopping it would leave objects behind. Wait for it (kubectl get instance test -n test -w).',
    causes: [
      {
        field: 'spec.planExecution.abort',
        message:
          'plan "cleanup" runs because the Instance is being deleted and cannot be aborted; wait for the deletion to finish',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'an accepted abort cannot be withdrawn while the plan runs': {
    kind: 'deny',
    message:
      'Instance test/test: the abort of plan "deploy" (IN_PROGRESS, phase "main", step "app", started 2026-11-21T10:00:00Z, abort requested by alice at 2026-11-21T10:30:00Z) was accepted and cannot be withdrawn. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again; the abort is requested and the controller will mark the plan ABORTED.',
    causes: [
      {
        field: 'spec.planExecution.abort',
        message:
          'an accepted abort cannot be withdrawn; the controller will mark plan "deploy" ABORTED',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'a different plan is still denied while an abort awaits the controller': {
    kind: 'deny',
    message:
      'Instance test/test: cannot accept this change now: changing spec.parameters.bar would schedule plan "update", because plan "deploy" (IN_PROGRESS, phase "main", step "app", started 2026-11-21T10:00:00Z, abort requested by alice at 2026-11-21T10:30:00Z) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again; the abort is requested and the controller will mark the plan ABORTED.',
    causes: [
      {
        field: 'spec.parameters.bar',
        message:
          'this change would schedule plan "update" while plan "deploy" (IN_PROGRESS, phase "main", step "app", started 2026-11-21T10:00:00Z, abort requested by alice at 2026-11-21T10:30:00Z) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again; the abort is requested and the controller will mark the plan ABORTED.',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'after the plan is ABORTED a different plan is scheduled and the abort fields go': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'update',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'update',
      uid: 'uid-1',
      reason: 'parameters',
    },
  },
  'after COMPLETE a change scheduling a different plan passes': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'update',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'update',
      uid: 'uid-1',
      reason: 'parameters',
    },
  },
  'after FATAL_ERROR an upgrade passes': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'upgrade',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'upgrade',
      uid: 'uid-1',
      reason: 'upgrade',
    },
  },
  'a COMPLETE status of an older run (other uid) does not end the scheduled one': {
    kind: 'deny',
    message:
      'Instance test/test: cannot accept this change now: changing spec.parameters.bar would schedule plan "update", because plan "deploy" (PENDING, not started by the controller yet) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again, or abort the plan first: kubectl patch instance test -n test --type merge -p \'{"spec":{"planExecution":{"abort":true}}}\'',
    causes: [
      {
        field: 'spec.parameters.bar',
        message:
          'this change would schedule plan "update" while plan "deploy" (PENDING, not started by the controller yet) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again, or abort the plan first: kubectl patch instance test -n test --type merge -p \'{"spec":{"planExecution":{"abort":true}}}\'',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
  'a write without planExecution (replace, server-side apply) keeps the stored record': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'deploy',
          uid: 'uid-0',
        },
      },
    ],
    warnings: [],
  },
  'a write without planExecution that changes a parameter schedules its plan': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'update',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [],
    scheduled: {
      planName: 'update',
      uid: 'uid-1',
      reason: 'parameters',
    },
  },
  'clearing planExecution when nothing runs is allowed': {
    kind: 'allow',
    patch: [],
    warnings: [],
  },
  'requesting a plan the OperatorVersion lacks is denied': {
    kind: 'deny',
    message:
      'Instance test/test: OperatorVersion test/foo-operator has no plan "backup"; its plans are "deploy", "update", "cleanup".',
    causes: [
      {
        field: 'spec.planExecution.planName',
        message: 'unknown plan "backup"; the plans are "deploy", "update", "cleanup"',
        reason: 'FieldValueNotSupported',
      },
    ],
    warnings: [],
  },
  'a metadata change passes even when the OperatorVersion is gone': {
    kind: 'allow',
    patch: [],
    warnings: [],
  },
  'a parameter change is denied when the OperatorVersion is gone': {
    kind: 'deny',
    message:
      'Instance test/test: OperatorVersion test/foo-operator does not exist. Install the operator package (its OperatorVersion) first, or correct spec.operatorVersion.',
    causes: [
      {
        field: 'spec.operatorVersion',
        message:
          'OperatorVersion test/foo-operator not found; install the operator package first or correct spec.operatorVersion',
        reason: 'FieldValueNotFound',
      },
    ],
    warnings: [],
  },
  'removing the finalizer of a deleted Instance passes': {
    kind: 'allow',
    patch: [],
    warnings: [],
  },
  'an upgrade to another operator is denied': {
    kind: 'deny',
    message:
      'Instance test/test: OperatorVersion test/bar-operator-1.0 belongs to operator "bar", but the Instance runs operator "foo". Upgrade to a version of "foo", or install "bar" as a new Instance.',
    causes: [
      {
        field: 'spec.operatorVersion',
        message: 'a version of operator "bar", not "foo"',
        reason: 'FieldValueInvalid',
      },
    ],
    warnings: [],
  },
  'an upgrade to an OperatorVersion without upgrade, update or deploy is denied': {
    kind: 'deny',
    message:
      'Instance test/test: OperatorVersion test/foo-operator-2.0 has none of the plans "upgrade", "update" or "deploy", so nothing can run the upgrade (plans: "backup"). Fix the package.',
    causes: [
      {
        field: 'spec.operatorVersion',
        message: 'the OperatorVersion has no upgrade, update or deploy plan',
        reason: 'FieldValueInvalid',
      },
    ],
    warnings: [],
  },
  'an upgrade whose old OperatorVersion is gone passes with a warning': {
    kind: 'allow',
    patch: [
      {
        op: 'add',
        path: '/spec/planExecution',
        value: {
          planName: 'upgrade',
          uid: 'uid-1',
        },
      },
    ],
    warnings: [
      'the previous OperatorVersion no longer exists; immutable parameters were checked against explicit values only',
    ],
    scheduled: {
      planName: 'upgrade',
      uid: 'uid-1',
      reason: 'upgrade',
    },
  },
  'a running plan of a typed OperatorVersion blocks a backup trigger': {
    kind: 'deny',
    message:
      'Instance test/test: cannot accept this change now: changing spec.parameters.BACKUP_TARGET would schedule plan "backup", because plan "deploy" (IN_PROGRESS) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again, or abort the plan first: kubectl patch instance test -n test --type merge -p \'{"spec":{"planExecution":{"abort":true}}}\'',
    causes: [
      {
        field: 'spec.parameters.BACKUP_TARGET',
        message:
          'this change would schedule plan "backup" while plan "deploy" (IN_PROGRESS) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance test -n test -w) and make the change again, or abort the plan first: kubectl patch instance test -n test --type merge -p \'{"spec":{"planExecution":{"abort":true}}}\'',
        reason: 'FieldValueForbidden',
      },
    ],
    warnings: [],
  },
};
