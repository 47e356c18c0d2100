// The kuttl runner itself against the real apiserver: steps apply and patch, asserts wait
// for a match, errors files must be absent, and a wrong expectation fails naming the field.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, ResourceMapper } from '../../../src/kube/index.ts';
import { loadCase } from '../../conformance/kuttl/discover.ts';
import { KuttlStepError, runCase, type ClusterAccess } from '../../conformance/kuttl/runner.ts';
import { createTestNamespace, kubeConfig } from '../../support/cluster.ts';

async function writeCase(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pw-kuttl-'));
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  return dir;
}

describe('kuttl runner', () => {
  let access: ClusterAccess;
  beforeAll(() => {
    const client = new KubeClient(kubeConfig());
    access = { client, mapper: new ResourceMapper(client) };
  });
  afterAll(() => access.client.close());

  it('applies, merge-patches and asserts step by step', async () => {
    const namespace = await createTestNamespace('kuttl');
    const dir = await writeCase({
      '00-create.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "1"\n  b: "2"\n',
      '00-assert.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "1"\n',
      '01-update.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "9"\n',
      // The patch keeps b: kuttl merges the given fields into the live object.
      '01-assert.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "9"\n  b: "2"\n',
      '01-errors.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: never\n',
    });
    await expect(
      runCase(access, loadCase(dir), { namespace, stepTimeoutMs: 10_000 }),
    ).resolves.toBeUndefined();
  });

  it('fails a step whose assert never matches, naming the field', async () => {
    const namespace = await createTestNamespace('kuttl');
    const dir = await writeCase({
      '00-create.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "1"\n',
      '00-assert.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "2"\n',
    });
    const run = runCase(access, loadCase(dir), { namespace, stepTimeoutMs: 1_000 });
    await expect(run).rejects.toBeInstanceOf(KuttlStepError);
    await expect(run).rejects.toThrow('step 0: ConfigMap c: data.a: expected "2", got "1"');
  });

  it('fails a step when an object of its errors file exists', async () => {
    const namespace = await createTestNamespace('kuttl');
    const dir = await writeCase({
      '00-create.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n',
      '00-errors.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n',
    });
    await expect(
      runCase(access, loadCase(dir), { namespace, stepTimeoutMs: 1_000 }),
    ).rejects.toThrow('ConfigMap c exists but must not');
  });
});
