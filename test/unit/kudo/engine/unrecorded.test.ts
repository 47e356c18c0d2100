// When a new run must look for objects applied without their record (nothingUnrecorded), the
// kinds it looks at (templateKinds) and the task a found object is recorded for (taskOf).
import { describe, expect, it } from '@jest/globals';
import type { Instance, OperatorVersion } from '../../../../src/kudo/api/types.ts';
import {
  nothingUnrecorded,
  taskOf,
  templateKinds,
} from '../../../../src/kudo/engine/unrecorded.ts';

const instance = (generation: number, planExecution?: Record<string, unknown>): Instance => ({
  metadata: { name: 'a', namespace: 'ns', uid: 'u', generation },
  spec: { planExecution: { planName: 'deploy', uid: 'now' } },
  ...(planExecution ? { status: { planExecution } } : {}),
});

describe('nothingUnrecorded', () => {
  it.each<[string, Instance, boolean]>([
    ['generation 1: no run but the current one was ever scheduled', instance(1), true],
    ['nothing recorded at generation 2', instance(2), false],
    [
      'the run recorded finished at the generation before',
      instance(3, { planName: 'deploy', uid: 'x', status: 'COMPLETE', observedGeneration: 2 }),
      true,
    ],
    [
      'a finished run recorded two generations back (a run in between may never have been recorded)',
      instance(4, { planName: 'deploy', uid: 'x', status: 'COMPLETE', observedGeneration: 2 }),
      false,
    ],
    [
      'the recorded run unfinished (it may have applied more after its last write)',
      instance(3, { planName: 'deploy', uid: 'x', status: 'IN_PROGRESS', observedGeneration: 2 }),
      false,
    ],
    [
      'a finished run without a recorded generation (an older controller wrote it)',
      instance(3, { planName: 'deploy', uid: 'x', status: 'COMPLETE' }),
      false,
    ],
  ])('%s', (_, i, expected) => {
    expect(nothingUnrecorded(i)).toBe(expected);
  });
});

const ov = (
  templates: Record<string, string>,
  tasks: NonNullable<OperatorVersion['spec']>['tasks'],
  steps: Array<{ name: string; tasks: string[] }>,
): OperatorVersion => ({
  metadata: { name: 'ov' },
  spec: {
    templates,
    tasks,
    plans: { deploy: { phases: [{ name: 'p', steps }] } },
  },
});

describe('templateKinds', () => {
  it('reads literal top-level apiVersion/kind per document, conditional ones too, skips expressions and nested kinds', () => {
    const kinds = templateKinds(
      ov(
        {
          'a.yaml': [
            'apiVersion: v1',
            'kind: ConfigMap',
            'metadata: {name: x}',
            '---',
            '{{ if .Params.SVC }}',
            'kind: "Service"',
            'apiVersion: v1 # core',
            'spec:',
            '  ports: []',
            '{{ end }}',
            '---',
            'apiVersion: rbac.authorization.k8s.io/v1',
            'kind: RoleBinding',
            'roleRef:',
            '  kind: Role',
            '---',
            'apiVersion: {{ .Params.API }}',
            'kind: Thing',
          ].join('\n'),
          'b.yaml': 'apiVersion: apps/v1\nkind: Deployment\n',
        },
        [],
        [],
      ),
    );
    expect(kinds.map((k) => `${k.group}/${k.version}/${k.kind}`).sort()).toEqual([
      '/v1/ConfigMap',
      '/v1/Service',
      'apps/v1/Deployment',
      'rbac.authorization.k8s.io/v1/RoleBinding',
    ]);
  });
});

describe('taskOf', () => {
  const object = (kind: string, step: string) => ({
    apiVersion: 'v1',
    kind,
    metadata: {
      name: 'x',
      annotations: { 'kudo.dev/plan': 'deploy', 'kudo.dev/phase': 'p', 'kudo.dev/step': step },
    },
  });
  const version = ov(
    {
      'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\n',
      'svc.yaml': 'apiVersion: v1\nkind: Service\n',
      'other-cm.yaml': 'apiVersion: v1\nkind: ConfigMap\n',
    },
    [
      { name: 'cms', kind: 'Apply', spec: { resources: ['cm.yaml'] } },
      { name: 'svc', kind: 'Apply', spec: { resources: ['svc.yaml'] } },
      { name: 'more', kind: 'Apply', spec: { resources: ['other-cm.yaml'] } },
      { name: 'note', kind: 'Dummy', spec: { done: true } },
    ],
    [
      { name: 'one', tasks: ['cms', 'note'] },
      { name: 'two', tasks: ['cms', 'svc'] },
      { name: 'three', tasks: ['cms', 'more'] },
    ],
  );

  it('is the applying task of the step the annotations name', () => {
    expect(taskOf(object('ConfigMap', 'one'), version)).toBe('cms');
  });

  it('of several, the one whose templates name the kind', () => {
    expect(taskOf(object('Service', 'two'), version)).toBe('svc');
    expect(taskOf(object('ConfigMap', 'two'), version)).toBe('cms');
  });

  it('is undefined when that stays ambiguous or the step is unknown', () => {
    expect(taskOf(object('ConfigMap', 'three'), version)).toBeUndefined();
    expect(taskOf(object('ConfigMap', 'gone'), version)).toBeUndefined();
  });
});
