// Shared fixtures for the Instance admission tests: KUDO's own test OperatorVersion (foo/
// other-foo trigger deploy, bar triggers update), a typed one, and Instances in every state.
import type { Instance, OperatorVersion, Parameter } from '../../../src/kudo/api/index.ts';

export function operatorVersion(
  name: string,
  plans: readonly string[],
  parameters: Parameter[],
  extra: { operator?: string; uid?: string; resourceVersion?: string } = {},
): OperatorVersion {
  return {
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'OperatorVersion',
    metadata: {
      name,
      namespace: 'test',
      uid: extra.uid ?? `${name}-uid`,
      resourceVersion: extra.resourceVersion ?? '1',
    },
    spec: {
      operator: { name: extra.operator ?? 'foo', kind: 'Operator' },
      version: '1.0',
      plans: Object.fromEntries(plans.map((p) => [p, {}])),
      parameters,
    },
  };
}

const kudoParameters: Parameter[] = [
  { name: 'foo', trigger: 'deploy' },
  { name: 'other-foo', trigger: 'deploy' },
  { name: 'bar', trigger: 'update' },
];

/** KUDO's instance_admission_test OperatorVersion. */
export const ov = operatorVersion('foo-operator', ['deploy', 'update', 'cleanup'], kudoParameters);
/** The upgrade target: an upgrade plan and one parameter more. */
export const ov2 = operatorVersion(
  'foo-operator-2.0',
  ['deploy', 'update', 'upgrade', 'cleanup'],
  [...kudoParameters, { name: 'added', default: 'x' }],
);

export const typedOv = operatorVersion(
  'typed',
  ['deploy', 'update', 'backup'],
  [
    { name: 'SIZE', 'value-type': 'integer', default: '3' },
    { name: 'RATIO', 'value-type': 'number', default: '0.5' },
    { name: 'ENABLED', 'value-type': 'boolean', default: 'true' },
    { name: 'LIST', 'value-type': 'array', default: '[a, b]' },
    { name: 'MAP', 'value-type': 'map', default: '{a: 1}' },
    { name: 'MODE', enum: ['fast', 'safe'], default: 'fast' },
    { name: 'PASSWORD', required: true },
    { name: 'CLUSTER', immutable: true, default: 'zk' },
    { name: 'BACKUP_TARGET', trigger: 'backup', default: 's3' },
  ],
);

export function instance(
  overrides: {
    spec?: Instance['spec'];
    status?: Instance['status'];
    metadata?: Partial<Instance['metadata']>;
  } = {},
): Instance {
  return {
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'Instance',
    metadata: { name: 'test', namespace: 'test', ...overrides.metadata },
    spec: overrides.spec ?? {
      operatorVersion: { name: 'foo-operator' },
      parameters: { foo: 'foo' },
    },
    ...(overrides.status ? { status: overrides.status } : {}),
  };
}

export const idle = instance();

/** deploy scheduled (uid-0) and not reported by the controller yet. */
export const scheduled = instance({
  spec: {
    operatorVersion: { name: 'foo-operator' },
    parameters: { foo: 'foo' },
    planExecution: { planName: 'deploy', uid: 'uid-0' },
  },
});

/** deploy uid-0 IN_PROGRESS at phase "main", step "app". */
export const inProgress: Instance = {
  ...scheduled,
  status: {
    planStatus: {
      deploy: {
        name: 'deploy',
        uid: 'uid-0',
        status: 'IN_PROGRESS',
        startedAt: '2026-11-21T10:00:00Z',
        lastUpdatedTimestamp: '2026-11-21T10:01:00Z',
        phases: [
          { name: 'infra', status: 'COMPLETE', steps: [{ name: 'config', status: 'COMPLETE' }] },
          {
            name: 'main',
            status: 'IN_PROGRESS',
            steps: [
              { name: 'app', status: 'IN_PROGRESS' },
              { name: 'check', status: 'PENDING' },
            ],
          },
        ],
      },
    },
  },
};

export function withPlanStatus(base: Instance, status: string, uid = 'uid-0'): Instance {
  const planName = base.spec?.planExecution?.planName ?? 'deploy';
  return {
    ...base,
    status: { planStatus: { [planName]: { name: planName, uid, status } } },
  };
}

export const complete = withPlanStatus(scheduled, 'COMPLETE');

export const deleted: Instance = {
  ...inProgress,
  metadata: {
    ...inProgress.metadata,
    deletionTimestamp: '2026-11-21T11:00:00Z',
    finalizers: ['kudo.dev.instance.cleanup'],
  },
};

export const uninstalling: Instance = {
  ...deleted,
  spec: { ...deleted.spec, planExecution: { planName: 'cleanup', uid: 'uid-c' } },
  status: { planStatus: { cleanup: { name: 'cleanup', uid: 'uid-c', status: 'IN_PROGRESS' } } },
};

/** A deep copy with changes applied to spec. */
export function edit(base: Instance, change: (i: Instance) => void): Instance {
  const copy = structuredClone(base);
  change(copy);
  return copy;
}
