// Where package verify of an OperatorVersion runs: on the calling thread when every template is
// bounded with a short output at verify's placeholder values and the inputs are small, in a
// worker otherwise. Inline, the result is verify's own.
import { describe, expect, it } from '@jest/globals';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { OperatorVersion } from '../../../../../src/kudo/api/types.ts';
import {
  packageResources,
  parsePackage,
  readFolderTree,
} from '../../../../../src/kudo/package/index.ts';
import {
  Findings,
  RoutingVerifier,
  verifiesInline,
  verifyOperatorVersion,
  type VerifyResult,
  type WorkerVerifier,
} from '../../../../../src/kudo/verify/index.ts';
import { operatorVersionObject, serialPlan } from '../../../../support/kudo-objects.ts';
import { KUDO_PACKAGES_DIR } from '../../../../support/shared.ts';

function operatorVersion(
  templates: Record<string, string>,
  parameters: NonNullable<OperatorVersion['spec']>['parameters'] = [],
): OperatorVersion {
  return operatorVersionObject(
    'op-1.0',
    {
      operator: { name: 'op', kind: 'Operator' },
      version: '1.0',
      parameters,
      templates,
      tasks: [{ name: 'all', kind: 'Apply', spec: { resources: Object.keys(templates) } }],
      plans: { deploy: serialPlan([{ name: 's', tasks: ['all'] }]) },
    },
    'team-a',
  );
}

const CONFIGMAP =
  'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}\ndata:\n  v: "{{ .Params.V }}"\n';

/** A worker pool stand-in that records what it was asked to verify (and finds nothing). */
class RecordingWorkers implements WorkerVerifier {
  readonly asked: string[] = [];
  verify(ov: OperatorVersion): Promise<VerifyResult> {
    this.asked.push(ov.metadata.name ?? '');
    return Promise.resolve(new Findings().result());
  }
}

describe('RoutingVerifier', () => {
  it('verifies a package of bounded templates on the calling thread, as verify does', async () => {
    const ov = operatorVersion({ 'cm.yaml': CONFIGMAP, 'bad.yaml': '{{ if }}' }, [
      { name: 'V', default: 'x' },
      { name: 'LIST', default: '[a, b]', 'value-type': 'array' },
    ]);
    const workers = new RecordingWorkers();
    const result = await new RoutingVerifier(workers).verify(ov, undefined);
    expect(workers.asked).toEqual([]);
    expect(result).toEqual(verifyOperatorVersion(ov));
    expect(result.errors.join('\n')).toMatch(/bad\.yaml/);
  });

  it.each([
    ['a template that loops', { 'loop.yaml': '{{ range until 10 }}x{{ end }}' }, []],
    [
      'a bounded template whose output may be long',
      { 'cm.yaml': CONFIGMAP },
      [{ name: 'V', default: 'x'.repeat(20_000) }],
    ],
    [
      'a large structured default',
      { 'cm.yaml': CONFIGMAP },
      [{ name: 'M', default: `{${'k: v, '.repeat(20_000)}}`, 'value-type': 'map' }],
    ],
    ['a very large template', { 'cm.yaml': `${CONFIGMAP}#${'x'.repeat(70_000)}\n` }, []],
  ] as const)('hands %s to a worker', async (_what, templates, parameters) => {
    const ov = operatorVersion(templates, [...parameters]);
    expect(verifiesInline(ov)).toBe(false);
    const workers = new RecordingWorkers();
    await new RoutingVerifier(workers).verify(ov, undefined);
    expect(workers.asked).toEqual(['op-1.0']);
  });

  it('verifies the shared KUDO packages whose templates are all bounded inline, the rest in a worker', async () => {
    const inline: string[] = [];
    const workers: string[] = [];
    for (const name of await readdir(KUDO_PACKAGES_DIR)) {
      const dir = join(KUDO_PACKAGES_DIR, name);
      const ov = packageResources(parsePackage(await readFolderTree(dir), dir)).operatorVersion;
      (verifiesInline(ov) ? inline : workers).push(name);
    }
    // Real packages loop over their parameters (`range`) in places: both kinds are there.
    expect(inline.length).toBeGreaterThan(0);
    expect(workers.length).toBeGreaterThan(0);
    console.log(`verified inline: ${inline.join(', ')}; in a worker: ${workers.join(', ')}`);
  });
});
