// Our kudo.dev CRDs install and become Established on the real apiserver, and real KUDO
// packages' Operator / OperatorVersion objects and KUDO's own test-case objects are accepted
// (structural schemas do not prune or reject what packages carry).
import { beforeAll, describe, expect, it } from '@jest/globals';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { loadPackage } from '../../../src/kudo/package/index.ts';
import { createTestNamespace, kubectl } from '../../support/cluster.ts';
import { installKudoCrds, KUDO_PACKAGES, readYamlObjects } from '../../support/kudo.ts';
import { KUDO_CASES_DIR } from '../../support/shared.ts';

describe('kudo.dev CRDs on the real apiserver', () => {
  let namespace: string;

  beforeAll(async () => {
    await installKudoCrds();
    namespace = await createTestNamespace('kudo-crds');
  });

  it('installs idempotently (a second apply changes nothing)', async () => {
    await installKudoCrds();
    const res = await kubectl([
      'get',
      'crd',
      '-l',
      'app.kubernetes.io/part-of=planwright',
      '-o',
      'name',
    ]);
    expect(res.stdout.split('\n').filter(Boolean).sort()).toEqual([
      'customresourcedefinition.apiextensions.k8s.io/instances.kudo.dev',
      'customresourcedefinition.apiextensions.k8s.io/operators.kudo.dev',
      'customresourcedefinition.apiextensions.k8s.io/operatorversions.kudo.dev',
    ]);
  });

  it.each(['cowsay', 'first-operator', 'mysql', 'redis', 'zookeeper'])(
    'package %s: Operator and OperatorVersion are stored unpruned',
    async (name) => {
      const pkg = await loadPackage(join(KUDO_PACKAGES, name), { namespace });
      const input = stringify(pkg.operator) + '---\n' + stringify(pkg.operatorVersion);
      const res = await kubectl(['create', '-f', '-'], { input });
      expect(res.stderr).toBe('');
      const stored = await kubectl([
        'get',
        'operatorversion',
        pkg.operatorVersion.metadata.name!,
        '-n',
        namespace,
        '-o',
        'json',
      ]);
      const spec = (JSON.parse(stored.stdout) as { spec: unknown }).spec;
      // Everything the package carries survives the structural schema (nothing pruned).
      expect(spec).toEqual(JSON.parse(JSON.stringify(pkg.operatorVersion.spec)));
    },
  );

  it("accepts KUDO's test-case objects and shows the printer columns", async () => {
    const dir = join(KUDO_CASES_DIR, 'integration/instance-controller-upgrade');
    const objects = await readYamlObjects(join(dir, '00-setup.yaml'));
    const input = objects.map((o) => stringify(o)).join('---\n');
    const res = await kubectl(['create', '-n', namespace, '-f', '-'], { input });
    expect(res.stderr).toBe('');
    // status is a subresource: the status written through /status sticks, and the columns show it.
    const patch = JSON.stringify({
      status: { planExecution: { planName: 'deploy', uid: 'u1', status: 'IN_PROGRESS' } },
    });
    const patched = await kubectl([
      'patch',
      'instance',
      'icto-upgrade',
      '-n',
      namespace,
      '--subresource=status',
      '--type=merge',
      '-p',
      patch,
    ]);
    expect(patched.stderr).toBe('');
    await kubectl([
      'patch',
      'instance',
      'icto-upgrade',
      '-n',
      namespace,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { planExecution: { planName: 'deploy', uid: 'u1' } } }),
    ]);
    const table = await kubectl(['get', 'instance', 'icto-upgrade', '-n', namespace]);
    const [header, row] = table.stdout.trim().split('\n');
    expect(header?.split(/\s{2,}/)).toEqual(['NAME', 'OPERATOR VERSION', 'PLAN', 'STATUS', 'AGE']);
    expect(row?.split(/\s+/).slice(0, 4)).toEqual([
      'icto-upgrade',
      'icto-upgrade',
      'deploy',
      'IN_PROGRESS',
    ]);
    // -o wide adds the shard label the webhook writes (docs/replicas.md).
    await kubectl(['label', 'instance', 'icto-upgrade', '-n', namespace, 'planwright.dev/shard=7']);
    const wide = await kubectl(['get', 'instance', 'icto-upgrade', '-n', namespace, '-o', 'wide']);
    const [wideHeader, wideRow] = wide.stdout.trim().split('\n');
    expect(wideHeader?.split(/\s{2,}/)).toEqual([
      'NAME',
      'OPERATOR VERSION',
      'PLAN',
      'STATUS',
      'AGE',
      'SHARD',
    ]);
    expect(wideRow?.split(/\s+/).at(-1)).toBe('7');
    for (const file of (await readdir(join(KUDO_CASES_DIR, 'manifests'))).sort()) {
      const docs = await readYamlObjects(join(KUDO_CASES_DIR, 'manifests', file));
      const r = await kubectl(['create', '-n', namespace, '--dry-run=server', '-f', '-'], {
        // The manifests name namespace "default"; this test runs in its own.
        input: docs
          .map((o) => {
            delete (o['metadata'] as Record<string, unknown>)['namespace'];
            return stringify(o);
          })
          .join('---\n'),
      });
      expect([file, r.stderr]).toEqual([file, '']);
    }
  });

  it('rejects what the schema forbids, naming the field', async () => {
    const res = await kubectl(['create', '-n', namespace, '-f', '-'], {
      input: stringify({
        apiVersion: 'kudo.dev/v1beta1',
        kind: 'OperatorVersion',
        metadata: { name: 'bad' },
        spec: { parameters: [{ name: 'X', 'value-type': 'float' }] },
      }),
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('spec.parameters[0].value-type: Unsupported value: "float"');
  });
});
