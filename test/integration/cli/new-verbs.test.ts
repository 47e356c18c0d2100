// The verbs KUDO 0.19 had and Planwright added: `package new`, `package add …` and `test`, as
// users run them — the built kubectl-kudo as a child process, the package it generates
// installed into the real apiserver, and `test` running the real kuttl against it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { KubeClient } from '../../../src/kube/index.ts';
import type { OperatorVersion } from '../../../src/kudo/api/types.ts';
import { createTestNamespace, kubeConfig, testCluster } from '../../support/cluster.ts';
import { installKudoCrds } from '../../support/kudo.ts';
import { waitFor } from '../../support/wait.ts';
import { ensureKuttl } from '../../conformance/kuttl/build.ts';
import { ensureBuiltCli, KUBECTL_KUDO, runBuilt, type CliResult } from './built-cli.ts';

const DEPLOYMENT_TEMPLATE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Name }}-cm
data:
  replicas: "{{ .Params.replicas }}"
`;

describe('kubectl kudo package new / package add / test', () => {
  let work: string;
  let ns: string;
  let client: KubeClient;
  let kuttl: string;

  const kudo = (
    args: string[],
    options: { cwd?: string; path?: string } = {},
  ): Promise<CliResult> =>
    runBuilt(KUBECTL_KUDO, args, {
      env: {
        KUBECONFIG: testCluster().kubeconfigPath,
        HOME: work,
        ...(options.path ? { PATH: options.path } : {}),
      },
      cwd: options.cwd ?? work,
      timeoutMs: 300_000,
    });

  beforeAll(async () => {
    [, , kuttl] = await Promise.all([installKudoCrds(), ensureBuiltCli(), ensureKuttl()]);
    work = await mkdtemp(join(tmpdir(), 'cli-new-verbs-'));
    ns = await createTestNamespace('cli-new');
    client = new KubeClient(kubeConfig());
    // Freshly installed CRDs answer 429 "storage is (re)initializing" for a moment.
    for (const plural of ['operators', 'operatorversions', 'instances']) {
      await waitFor(
        `${plural} served`,
        () => client.request({ path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/${plural}` }),
        { timeoutMs: 120_000 },
      );
    }
  }, 900_000);

  afterAll(async () => {
    client?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('package new writes the operator KUDO wrote, and refuses to overwrite it', async () => {
    const result = await kudo(['package', 'new', 'demo']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('Operator created.');
    const operator: unknown = parse(
      await readFile(join(work, 'operator', 'operator.yaml'), 'utf8'),
    );
    expect(operator).toMatchObject({
      apiVersion: 'kudo.dev/v1beta1',
      name: 'demo',
      operatorVersion: '0.1.0',
      maintainers: [{ name: 'My Name', email: 'MyEmail@invalid' }],
      tasks: [{ name: 'deploy', kind: 'Apply', spec: {} }],
    });
    expect(await readFile(join(work, 'operator', 'params.yaml'), 'utf8')).toBe(
      'apiVersion: kudo.dev/v1beta1\nparameters: []\n',
    );
    const again = await kudo(['package', 'new', 'demo']);
    expect(again).toMatchObject({ code: 255, stderr: 'Error: folder "operator" already exists\n' });
  }, 300_000);

  it('package add builds a package that installs into the cluster', async () => {
    for (const args of [
      ['package', 'add', 'maintainer', 'Jane Doe', 'jane@example.com'],
      ['package', 'add', 'parameter', '--name', 'replicas', '--default', '3'],
      ['package', 'add', 'task', '--name', 'config', '--resource', 'config.yaml'],
      ['package', 'add', 'plan', '--name', 'reconfigure', '--task', 'config'],
    ]) {
      expect(await kudo(args)).toMatchObject({ code: 0, stderr: '' });
    }
    const folder = join(work, 'operator');
    // KUDO touched the template files a task names; the author fills them in.
    expect(await readFile(join(folder, 'templates', 'config.yaml'), 'utf8')).toBe('');
    await writeFile(join(folder, 'templates', 'config.yaml'), DEPLOYMENT_TEMPLATE);
    // The generated deploy task has no resources (as KUDO's): point it at the template.
    const operatorFile = join(folder, 'operator.yaml');
    const text = await readFile(operatorFile, 'utf8');
    await writeFile(
      operatorFile,
      text.replace(
        '- kind: Apply\n  name: deploy\n  spec: {}',
        '- kind: Apply\n  name: deploy\n  spec:\n    resources:\n    - config.yaml',
      ),
    );
    expect(await kudo(['package', 'verify', 'operator'])).toMatchObject({ code: 0 });

    const duplicate = await kudo(['package', 'add', 'task', '--name', 'config']);
    expect(duplicate).toMatchObject({ code: 255, stderr: 'Error: task name must be unique\n' });
    const undefinedTask = await kudo(['package', 'add', 'plan', '--name', 'x', '--task', 'nope']);
    expect(undefinedTask.code).toBe(255);
    expect(undefinedTask.stderr).toContain('task nope is not defined');

    const install = await kudo(['install', './operator', '--skip-instance', '--namespace', ns]);
    expect(install).toMatchObject({ code: 0, stderr: '' });
    const ov = await client.request<OperatorVersion>({
      path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/operatorversions/demo-0.1.0-0.1.0`,
    });
    expect(Object.keys(ov.spec?.plans ?? {}).sort()).toEqual(['deploy', 'reconfigure']);
    expect(ov.spec?.parameters).toEqual([
      expect.objectContaining({ name: 'replicas', default: '3' }),
    ]);
    expect(ov.spec?.tasks?.map((t) => t.name)).toEqual(['deploy', 'config']);
  }, 300_000);

  it('diagnostics collect writes the bundle, with inventory state and no secret in clear', async () => {
    const secretValue = 'hunter2-do-not-leak';
    const core = `/api/v1/namespaces/${ns}`;
    await client.request({
      method: 'POST',
      path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances`,
      body: {
        apiVersion: 'kudo.dev/v1beta1',
        kind: 'Instance',
        metadata: { name: 'diag', labels: { 'kudo.dev/operator': 'demo' } },
        spec: { operatorVersion: { name: 'demo-0.1.0-0.1.0' } },
      },
    });
    await client.request({
      method: 'POST',
      path: `${core}/secrets`,
      body: { metadata: { name: 'diag-secret' }, stringData: { password: secretValue } },
    });
    await client.request({
      method: 'POST',
      path: `${core}/configmaps`,
      body: { metadata: { name: 'diag-cm' }, data: { a: '1' } },
    });
    await client.request({
      method: 'POST',
      path: `${core}/events`,
      body: {
        metadata: { name: 'diag.event' },
        involvedObject: { kind: 'Instance', name: 'diag', namespace: ns },
        reason: 'PlanStarted',
        message: 'deploy started for the diagnostics test',
        type: 'Normal',
      },
    });
    // The operator's objects KUDO's bundle lists (by the kudo.dev/operator label).
    const labels = { 'kudo.dev/operator': 'demo' };
    await client.request({
      method: 'POST',
      path: `${core}/pods`,
      body: {
        metadata: { name: 'diag-pod', labels },
        spec: { containers: [{ name: 'main', image: 'registry.invalid/none:1' }] },
      },
    });
    await client.request({
      method: 'POST',
      path: `${core}/services`,
      body: { metadata: { name: 'diag-svc', labels }, spec: { ports: [{ port: 80 }] } },
    });
    const entry = (kind: string, name: string): Record<string, string> => ({
      group: '',
      version: 'v1',
      kind,
      namespace: ns,
      name,
      task: 'deploy',
    });
    await client.request({
      method: 'PATCH',
      path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances/diag/status`,
      contentType: 'application/merge-patch+json',
      body: {
        status: {
          planStatus: { deploy: { name: 'deploy', status: 'IN_PROGRESS', phases: [] } },
          inventory: [
            entry('Secret', 'diag-secret'),
            entry('ConfigMap', 'diag-cm'),
            entry('ConfigMap', 'diag-gone'),
          ],
        },
      },
    });
    const out = join(work, 'bundle');
    const result = await kudo([
      'diagnostics',
      'collect',
      '--instance',
      'diag',
      '--namespace',
      ns,
      '-O',
      out,
      '--log-since',
      '1h',
    ]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const instDir = join(out, 'operator_demo', 'instance_diag');
    const read = (file: string): Promise<string> => readFile(join(instDir, file), 'utf8');
    expect(parse(await read('diag.yaml'))).toMatchObject({ metadata: { name: 'diag' } });
    expect(existsSync(join(out, 'operator_demo', 'demo.yaml'))).toBe(true);
    expect(
      existsSync(
        join(out, 'operator_demo', 'operatorversion_demo-0.1.0-0.1.0', 'demo-0.1.0-0.1.0.yaml'),
      ),
    ).toBe(true);
    expect(parse(await read('inventory.yaml'))).toEqual([
      { object: `Secret ${ns}/diag-secret`, state: 'present', task: 'deploy' },
      { object: `ConfigMap ${ns}/diag-cm`, state: 'present', task: 'deploy' },
      {
        object: `ConfigMap ${ns}/diag-gone`,
        state: 'missing (drift: deleted outside Planwright)',
        task: 'deploy',
      },
    ]);
    const secret = parse(await read('objects/secret_diag-secret.yaml')) as { data: unknown };
    expect(secret.data).toEqual({ password: `<redacted: ${secretValue.length} bytes>` });
    expect(parse(await read('pod_diag-pod/diag-pod.yaml'))).toMatchObject({
      metadata: { name: 'diag-pod' },
    });
    // Its container's log in KUDO's name: gzip'ed, or the reason it could not be read.
    expect(
      ['main.log.gz', 'main.log.err'].some((f) => existsSync(join(instDir, 'pod_diag-pod', f))),
    ).toBe(true);
    expect(
      (
        parse(await read('servicelist.yaml')) as { items: Array<{ metadata: { name: string } }> }
      ).items.map((i) => i.metadata.name),
    ).toEqual(['diag-svc']);
    expect(existsSync(join(instDir, 'deploymentlist.yaml'))).toBe(false);
    expect(await read('events.yaml')).toContain('deploy started for the diagnostics test');
    expect(await read('plan-status.txt')).toContain('Plan deploy');
    // Nowhere in the bundle is the secret in clear, nor base64-encoded.
    const leaks: string[] = [];
    for (const file of await readdir(out, { recursive: true })) {
      const path = join(out, file);
      if (!(await stat(path)).isFile()) continue;
      // Logs are gzip'ed as in KUDO's bundle: searched uncompressed.
      const bytes = await readFile(path);
      const text = (file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
      if (
        text.includes(secretValue) ||
        text.includes(Buffer.from(secretValue).toString('base64'))
      ) {
        leaks.push(file);
      }
    }
    expect(leaks).toEqual([]);

    const again = await kudo(['diagnostics', 'collect', '--instance', 'diag', '-n', ns, '-O', out]);
    expect(again).toMatchObject({
      code: 255,
      stderr: `Error: target directory ${out} already exists\n`,
    });

    const missing = await kudo(['diagnostics', 'collect', '--namespace', ns, '-O', out]);
    expect(missing).toMatchObject({
      code: 255,
      stderr: 'Error: required flag(s) "instance" not set\n',
    });
  });

  it('test runs kubectl-kuttl from PATH with the arguments and passes its exit code on', async () => {
    const suite = join(work, 'suite');
    const step = async (file: string, text: string): Promise<void> => {
      await mkdir(dirname(join(suite, file)), { recursive: true });
      await writeFile(join(suite, file), text);
    };
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\ndata:\n  a: "1"\n';
    await step('passes/00-create.yaml', cm);
    await step('passes/00-assert.yaml', cm);
    await step('fails/00-create.yaml', cm);
    await step('fails/00-assert.yaml', cm.replace('"1"', '"2"'));
    // kuttl first waits for ServiceAccount default/default, which nothing makes in a bare
    // control plane; and its namespaces would stay Terminating there (no namespace
    // controller), hence --skip-delete.
    await client
      .request({
        method: 'POST',
        path: '/api/v1/namespaces/default/serviceaccounts',
        body: { metadata: { name: 'default' } },
      })
      .catch((err: unknown) => {
        if ((err as { statusCode?: number }).statusCode !== 409) throw err;
      });
    const path = `${dirname(kuttl)}:${process.env['PATH'] ?? ''}`;
    const run = (name: string, timeout: string): Promise<CliResult> =>
      kudo(['test', suite, '--test', name, '--timeout', timeout, '--skip-delete'], { path });
    const passed = await run('passes', '30');
    expect({ code: passed.code, out: passed.stdout + passed.stderr }).toMatchObject({
      code: 0,
      out: expect.stringContaining('--- PASS'),
    });

    const failed = await run('fails', '5');
    expect(failed.code).not.toBe(0);
    expect(failed.code).not.toBe(null);
    expect(failed.stderr).toContain('Error: kuttl test failed with exit code');
  }, 300_000);

  it('test says how to get kuttl when it is not on PATH', async () => {
    const empty = join(work, 'empty-bin');
    await mkdir(empty, { recursive: true });
    expect(existsSync(join(empty, 'kubectl-kuttl'))).toBe(false);
    const result = await kudo(['test', '.'], { path: empty });
    expect(result.code).toBe(255);
    expect(result.stderr).toMatch(/^Error: kubectl-kuttl is not on PATH: .*krew install kuttl/);
  });
});
