import { describe, expect, it } from '@jest/globals';
import { formatKudoStatus, goJson } from '../../../../src/cli/output/kudo-status.ts';
import type { InstanceStatus } from '../../../../src/kudo/api/index.ts';

const STATUS: InstanceStatus = {
  planExecution: { planName: 'deploy', uid: 'u1', status: 'COMPLETE' },
  inventory: [{ kind: 'ConfigMap', name: 'x' }],
  conditions: [
    {
      type: 'Ready',
      status: 'True',
      reason: 'ResourcesReady',
      message: 'a <b> & c',
      lastTransitionTime: '2026-11-28T08:39:34.600Z',
      observedGeneration: 1,
    },
  ],
  planStatus: {
    update: { name: 'update', status: 'NEVER_RUN', phases: [] },
    deploy: {
      name: 'deploy',
      uid: 'u1',
      status: 'COMPLETE',
      message: '',
      startedAt: '2026-11-28T08:39:34.500Z',
      lastUpdatedTimestamp: '2026-11-28T08:39:34.612Z',
      phases: [
        {
          name: 'main',
          status: 'COMPLETE',
          message: '',
          steps: [{ name: 'config', status: 'COMPLETE', message: '', startedAt: 'x' }],
        },
      ],
    },
  },
};

describe("plan status -o as KUDO's CLI printed it", () => {
  it('writes YAML the way sigs.k8s.io/yaml did: KUDO fields only, sorted, whole seconds', () => {
    expect(formatKudoStatus(STATUS, 'yaml')).toBe(
      [
        'conditions:',
        '- lastTransitionTime: "2026-11-28T08:39:34Z"',
        '  message: a <b> & c',
        '  observedGeneration: 1',
        '  reason: ResourcesReady',
        '  status: "True"',
        '  type: Ready',
        'planStatus:',
        '  deploy:',
        '    lastUpdatedTimestamp: "2026-11-28T08:39:34Z"',
        '    name: deploy',
        '    phases:',
        '    - name: main',
        '      status: COMPLETE',
        '      steps:',
        '      - name: config',
        '        status: COMPLETE',
        '    status: COMPLETE',
        '    uid: u1',
        '  update:',
        '    name: update',
        '    status: NEVER_RUN',
        '',
        '',
      ].join('\n'),
    );
  });

  it("writes JSON in the Go structs' field order with encoding/json's escapes", () => {
    const text = formatKudoStatus(STATUS, 'json');
    expect(text.endsWith('}\n')).toBe(true);
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['planStatus', 'conditions']);
    expect(text).toContain('"message": "a \\u003cb\\u003e \\u0026 c"');
    expect(text.indexOf('"name": "deploy"')).toBeLessThan(text.indexOf('"lastUpdatedTimestamp"'));
    expect(Object.keys(parsed['planStatus'] as object)).toEqual(['deploy', 'update']);
  });

  it('prints empty containers and control characters as Go does', () => {
    expect(goJson({ a: [], b: {}, c: 'x\by\fz' })).toBe(
      '{\n  "a": [],\n  "b": {},\n  "c": "x\\u0008y\\u000cz"\n}',
    );
    expect(formatKudoStatus(undefined, 'json')).toBe('{}\n');
  });
});
