// install / update / upgrade / package / repo / search as users run them: the built
// kubectl-kudo executable as a child process against the real apiserver, Planwright's real
// webhook and controller for the test namespaces, packages from folders, archives, a loopback
// repository and an unreachable one. Flags go after positional arguments, as kuttl appends them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '../../../src/kube/index.ts';
import type { Instance, OperatorVersion } from '../../../src/kudo/api/types.ts';
import { repositoryRoot } from '../../../src/localcluster/paths.ts';
import { createTestNamespace, kubeConfig, testCluster, uniqueName } from '../../support/cluster.ts';
import { installKudoCrds } from '../../support/kudo.ts';
import { closedPort, serve } from '../../unit/kudo/package/helpers.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../support/planwright-start.ts';
import { ensureBuiltCli, runKudo, type CliResult } from './built-cli.ts';

const ROOT = repositoryRoot();
const HELLO = join(ROOT, 'examples', 'hello-config');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'packages');

describe('kubectl kudo install / update / upgrade / package / repo', () => {
  let ns: string;
  let archives: string;
  let home: string;
  let work: string;
  let client: KubeClient;
  let planwright: StartedPlanwright;

  const kudo = (
    args: string[],
    options: { namespace?: string; home?: string; cwd?: string } = {},
  ): Promise<CliResult> =>
    runKudo(args, {
      namespace: options.namespace ?? ns,
      kubeconfig: testCluster().kubeconfigPath,
      home: options.home ?? home,
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });

  const get = <T>(namespace: string, resource: string, name: string): Promise<T> =>
    client.request<T>({
      path: `/apis/kudo.dev/v1beta1/namespaces/${namespace}/${resource}/${name}`,
    });

  /** A copy of a package folder with some files replaced. */
  async function variant(
    from: string,
    name: string,
    files: Record<string, string>,
  ): Promise<string> {
    const dir = join(work, name);
    await cp(from, dir, { recursive: true });
    for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text);
    return dir;
  }

  beforeAll(async () => {
    await Promise.all([installKudoCrds(), ensureBuiltCli()]);
    ns = await createTestNamespace('cli-install');
    archives = await createTestNamespace('cli-archives');
    home = await mkdtemp(join(tmpdir(), 'pw-kudo-home-'));
    work = await mkdtemp(join(tmpdir(), 'pw-cli-work-'));
    client = new KubeClient(kubeConfig());
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [ns, archives],
    });
  }, 300_000);

  afterAll(async () => {
    await planwright?.stop();
    client?.close();
  });

  it('installs a package folder and waits for its deploy plan', async () => {
    const res = await kudo([
      'install',
      HELLO,
      '--instance',
      'hello',
      '--wait',
      '--wait-time',
      '60',
    ]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      `operator ${ns}/hello-config created`,
      `operatorversion ${ns}/hello-config-0.1.0 created`,
      `instance ${ns}/hello created`,
    ]);
    expect(lines).toContainEqual(
      expect.stringMatching(/^\[\d+s\] deploy\/main\/service: COMPLETE$/),
    );
    expect(lines.at(-1)).toBe(`instance ${ns}/hello ready`);
    const instance = await get<Instance>(ns, 'instances', 'hello');
    expect(instance.metadata.labels?.['kudo.dev/operator']).toBe('hello-config');
    expect(instance.status?.planStatus?.['deploy']?.status).toBe('COMPLETE');
  });

  it('refuses an existing instance before writing anything, and a second OperatorVersion is not created', async () => {
    const res = await kudo(['install', HELLO, '--instance', 'hello']);
    // KUDO's output: nothing was there to create, so its `already installed` line, then the error.
    expect(res).toEqual({
      code: 255,
      stdout: `operatorversion ${ns}/hello-config-0.1.0 already installed\n`,
      stderr: `Error: cannot install instance 'hello' because an instance of that name already exists in namespace ${ns}\n`,
    });
    // A version not installed yet: KUDO created its OperatorVersion before failing; nothing is.
    const newer = await variant(HELLO, 'hello-config-0.0.9', {
      'operator.yaml': (await readFile(join(HELLO, 'operator.yaml'), 'utf8')).replace(
        'operatorVersion: 0.1.0',
        'operatorVersion: 0.0.9',
      ),
    });
    const refused = await kudo(['install', newer, '--instance', 'hello']);
    expect([refused.code, refused.stdout]).toEqual([255, '']);
    await expect(get(ns, 'operatorversions', 'hello-config-0.0.9')).rejects.toThrow(/404/);
    const other = await kudo(['install', HELLO, '--instance', 'hello-2']);
    expect(other.code).toBe(0);
    expect(other.stdout).toBe(
      `operatorversion ${ns}/hello-config-0.1.0 already installed\ninstance ${ns}/hello-2 created\n`,
    );
  });

  it('update: KUDO messages for bad input, a missing instance and webhook denials; --wait follows the plan', async () => {
    expect((await kudo(['update', '--instance', 'hello'])).stderr).toBe(
      'Error: need to specify at least one parameter to override via -p otherwise there is nothing to update\n',
    );
    expect((await kudo(['update', '-p', 'a=b'])).stderr).toBe(
      'Error: --instance flag has to be provided to indicate which instance you want to update\n',
    );
    expect((await kudo(['update', '--instance', 'hello', '-p', 'foo', '-p', '=x'])).stderr).toBe(
      'Error: could not parse parameters: parameter not set: foo, parameter name can not be empty: =x\n',
    );
    const missing = await kudo(['update', '--instance', 'ghost', '-p', 'a=b']);
    expect(missing).toMatchObject({
      code: 255,
      stderr: `Error: instance ghost in namespace ${ns} does not exist in the cluster\n`,
    });
    const denied = await kudo(['update', '--instance', 'hello', '-p', 'port=http']);
    expect(denied.code).toBe(255);
    expect(denied.stderr).toMatch(
      /^Error: updating instance hello: admission webhook "instance-admission\.planwright\.dev" denied the request: .*spec\.parameters\.port: "http" is not an integer/,
    );

    const res = await kudo(['update', '--instance', 'hello', '-p', 'message=bonjour', '--wait']);
    expect(res.code).toBe(0);
    expect(res.stdout.split('\n')[0]).toBe('Instance hello was updated.');
    expect(res.stdout).toContain(`plan update of instance ${ns}/hello is COMPLETE\n`);
    const cm = await client.request<{ data: Record<string, string> }>({
      path: `/api/v1/namespaces/${ns}/configmaps/hello-greeting`,
    });
    expect(cm.data['message']).toBe('bonjour');
  });

  it('upgrade: refuses the same version, then moves the instance to a newer one', async () => {
    const same = await kudo(['upgrade', HELLO, '--instance', 'hello']);
    expect(same.stderr).toBe(
      'Error: upgraded version 0.1.0 is the same or smaller as current version 0.1.0 -> not upgrading\n',
    );
    const operatorYaml = (await readFile(join(HELLO, 'operator.yaml'), 'utf8')).replace(
      'operatorVersion: 0.1.0',
      'operatorVersion: 0.2.0',
    );
    const next = await variant(HELLO, 'hello-config-0.2.0', { 'operator.yaml': operatorYaml });
    const res = await kudo(['upgrade', next, '--instance', 'hello', '-p', 'message=v2', '--wait']);
    // The Instance webhook's warning, which kubectl kudo prints as kubectl does.
    expect(res.stderr).toBe(
      'Warning: parameters message changed together with the upgrade: plan "update" applies them; their own trigger plans do not run\n',
    );
    expect(res.stdout).toContain(`operatorversion ${ns}/hello-config-0.2.0 created\n`);
    expect(res.stdout).toContain(`instance ${ns}/hello updated\n`);
    const instance = await get<Instance>(ns, 'instances', 'hello');
    expect(instance.spec?.operatorVersion?.name).toBe('hello-config-0.2.0');
    expect(instance.spec?.parameters?.['message']).toBe('v2');
    const ghost = await kudo(['upgrade', next, '--instance', 'ghost']);
    expect(ghost.stderr).toBe(
      `Error: instance ghost in namespace ${ns} does not exist in the cluster\n`,
    );
  });

  it('--in-cluster installs the newest OperatorVersion already in the namespace', async () => {
    const res = await kudo(['install', 'hello-config', '--in-cluster', '--instance', 'again']);
    expect(res.stderr).toBe('');
    expect(res.stdout).toBe(
      `operatorversion ${ns}/hello-config-0.2.0 already installed\ninstance ${ns}/again created\n`,
    );
    const instance = await get<Instance>(ns, 'instances', 'again');
    expect(instance.spec?.operatorVersion?.name).toBe('hello-config-0.2.0');
    const none = await kudo(['install', 'nothing-here', '--in-cluster']);
    expect(none.stderr).toBe(
      `Error: failed to resolve operator package for: nothing-here: no OperatorVersion of operator nothing-here is installed in namespace ${ns}\n`,
    );
    expect((await kudo(['install', 'x', '--in-cluster', '--skip-instance'])).stderr).toBe(
      'Error: --in-cluster cannot be used with --skip-instance or --repo\n',
    );
  });

  it('--create-namespace renders the package namespace manifest with the CLI parameters', async () => {
    const operatorYaml = `${await readFile(join(HELLO, 'operator.yaml'), 'utf8')}namespaceManifest: ns.yaml\n`;
    const withNs = await variant(HELLO, 'with-namespace', {
      'operator.yaml': operatorYaml,
      'templates/ns.yaml':
        'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ignored\n  labels:\n    team: {{ .Params.team }}\n    instance: {{ .Name }}\n',
    });
    const target = uniqueName('cli-created');
    const res = await kudo(
      ['install', withNs, '--create-namespace', '--skip-instance', '-p', 'team=blue'],
      {
        namespace: target,
      },
    );
    expect(res.stderr).toBe('');
    expect(res.stdout.split('\n')[0]).toBe(`namespace ${target} created`);
    const created = await client.request<{
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
    }>({
      path: `/api/v1/namespaces/${target}`,
    });
    expect(created.metadata.labels).toMatchObject({
      team: 'blue',
      instance: 'hello-config-instance',
    });
    expect(created.metadata.annotations['created-by']).toBe('kudo-cli');
    const again = await kudo(
      ['install', withNs, '--create-namespace', '--skip-instance', '-p', 'team=blue'],
      {
        namespace: target,
      },
    );
    expect(again.code).toBe(255);
    expect(again.stderr).toContain(
      `Error: failed to create namespace ${target}: namespaces "${target}" already exists`,
    );
  });

  it('requires parameters that have no default, unless --skip-instance', async () => {
    const params =
      'apiVersion: kudo.dev/v1beta1\nparameters:\n  - name: message\n  - name: port\n    default: 80\n';
    const strict = await variant(HELLO, 'strict', { 'params.yaml': params });
    const res = await kudo(['install', strict, '--instance', 'strict']);
    expect(res).toEqual({
      code: 255,
      stdout: '',
      stderr: 'Error: missing required parameters during installation: message\n',
    });
    const skip = await kudo(['install', strict, '--skip-instance']);
    expect(skip.code).toBe(0);
    expect(skip.stdout).not.toContain('instance');
  });

  it('resolves KudoOperator dependencies first, and reports a dependency cycle before writing', async () => {
    const res = await kudo(['install', join(FIXTURES, 'dependency-parent'), '--skip-instance']);
    expect(res.stderr).toBe('');
    expect(res.stdout.trimEnd().split('\n')).toEqual([
      `operator ${ns}/dependency-child created`,
      expect.stringMatching(new RegExp(`^operatorversion ${ns}/dependency-child-.* created$`)),
      `operator ${ns}/dependency-parent created`,
      `operatorversion ${ns}/dependency-parent-1.0.0-0.1.0 created`,
    ]);
    const ov = await get<OperatorVersion>(ns, 'operatorversions', 'dependency-parent-1.0.0-0.1.0');
    expect(ov.spec?.tasks?.find((t) => t.kind === 'KudoOperator')?.spec?.package).toBe(
      'dependency-child',
    );

    const dependsOn = (other: string): string =>
      `apiVersion: kudo.dev/v1beta1\nname: ${other === 'b' ? 'a' : 'b'}\noperatorVersion: 0.1.0\nkubernetesVersion: 1.16.0\ntasks:\n  - name: dep\n    kind: KudoOperator\n    spec:\n      package: ../${other}\nplans:\n  deploy:\n    phases:\n      - name: p\n        steps:\n          - name: s\n            tasks: [dep]\n`;
    for (const [dir, other] of [
      ['a', 'b'],
      ['b', 'a'],
    ] as const) {
      await mkdir(join(work, 'cycle', dir, 'templates'), { recursive: true });
      await writeFile(join(work, 'cycle', dir, 'operator.yaml'), dependsOn(other));
      await writeFile(
        join(work, 'cycle', dir, 'params.yaml'),
        'apiVersion: kudo.dev/v1beta1\nparameters: []\n',
      );
    }
    const cycle = await kudo(['install', './a', '--instance', 'cyclic'], {
      cwd: join(work, 'cycle'),
    });
    expect(cycle.code).toBe(255);
    expect(cycle.stdout).toBe('');
    expect(cycle.stderr).toMatch(
      /^Error: failed to resolve operator package for: \.\/a: cyclic package dependency found when adding package b-0\.1\.0 -> a-0\.1\.0\n$/,
    );
  });

  it('package verify and create print the verifier tables and fail on errors', async () => {
    const broken = join(FIXTURES, 'broken', 'parameters');
    const res = await kudo(['package', 'verify', broken]);
    expect(res.code).toBe(255);
    expect(res.stdout).toMatch(/^Warnings *\nparameter "A;B" defined but not used\. *\n/);
    expect(res.stdout).toMatch(/\nErrors *\nparameter "replicas" has a duplicate *\n/);
    expect(res.stdout).toContain(`parameter "A;B" contains invalid character ';'`);
    expect(res.stdout).not.toContain('package is valid');
    expect(res.stderr).toBe('Error: found 10 package verification errors\n');

    const json = await kudo(['package', 'verify', broken, '-o', 'json']);
    const parsed = JSON.parse(json.stdout) as {
      errors: string[];
      warnings: string[];
      valid: boolean;
    };
    expect(parsed.valid).toBe(false);
    expect(parsed.errors).toHaveLength(10);

    const dest = await mkdtemp(join(tmpdir(), 'pw-create-'));
    const create = await kudo(['package', 'create', broken, '-d', dest]);
    expect(create.stderr).toBe('Error: found 10 package verification errors\n');
    expect(await readdir(dest)).toEqual([]);
    const ok = await kudo(['package', 'verify', HELLO]);
    expect(ok).toEqual({ code: 0, stdout: 'package is valid\n', stderr: '' });
  });

  it('fails fast and says so when the repository is unreachable', async () => {
    const offline = await mkdtemp(join(tmpdir(), 'pw-kudo-offline-'));
    const url = `http://127.0.0.1:${await closedPort()}`;
    await mkdir(join(offline, 'repository'));
    await writeFile(
      join(offline, 'repository', 'repositories.yaml'),
      `repoVersion: v1\ncontext: offline\nrepositories:\n- name: offline\n  url: ${url}\n`,
    );
    const unreachable = `repository "offline" (${url}) is unreachable`;
    const install = await kudo(['install', 'zookeeper'], { home: offline });
    expect(install.code).toBe(255);
    expect(install.stderr).toMatch(
      /^Error: failed to resolve operator package for: zookeeper: could not download repository index file: /,
    );
    expect(install.stderr).toContain(unreachable);
    const search = await kudo(['search', 'zoo'], { home: offline });
    expect(search.code).toBe(255);
    expect(search.stderr).toContain(unreachable);
    const add = await kudo(['repo', 'add', 'other', url], { home: offline });
    expect(add.code).toBe(255);
    expect(add.stderr).toContain('could not download repository index file');
  });

  it('serves a repository made with package create and repo index, and installs from it by name', async () => {
    const repoHome = await mkdtemp(join(tmpdir(), 'pw-kudo-repo-'));
    const dir = await mkdtemp(join(tmpdir(), 'pw-repo-'));
    const created = await kudo(['package', 'create', HELLO, '-d', dir], { home: repoHome });
    expect(created.stdout).toBe(
      `package is valid\nPackage created: ${join(dir, 'hello-config-0.1.0.tgz')}\n`,
    );
    const files: Record<string, Buffer> = {};
    // serve() looks routes up per request: the files are added once the index exists.
    const server = await serve(files);
    try {
      const index = await kudo(['repo', 'index', dir, '--url', `${server.url}/`], {
        home: repoHome,
      });
      expect(index.code).toBe(0);
      for (const f of readdirSync(dir)) files[`/${f}`] = await readFile(join(dir, f));
      expect(files['/index.yaml']?.toString()).toContain(`${server.url}/hello-config-0.1.0.tgz`);

      expect((await kudo(['repo', 'add', 'local', server.url], { home: repoHome })).code).toBe(0);
      expect((await kudo(['repo', 'context', 'local'], { home: repoHome })).code).toBe(0);
      const list = await kudo(['repo', 'list'], { home: repoHome });
      expect(list.stdout).toMatch(/\n\*local\s+http:\/\/127\.0\.0\.1:\d+\s*\n/);
      const search = await kudo(['search', 'hello'], { home: repoHome });
      expect(search.stdout).toMatch(
        /^Name\s+\tOperator Version\tApp Version\nhello-config\t0\.1\.0\s+\t\s*\n$/,
      );
      const none = await kudo(['search', 'zookeeper'], { home: repoHome });
      expect(none.stdout).toBe('no operators found\n');

      const ns2 = await createTestNamespace('cli-repo');
      const install = await kudo(['install', 'hello-config', '--skip-instance'], {
        home: repoHome,
        namespace: ns2,
      });
      expect(install.stderr).toBe('');
      expect(install.stdout).toContain(`operatorversion ${ns2}/hello-config-0.1.0 created\n`);
      const params = await kudo(['package', 'list', 'parameters', 'hello-config'], {
        home: repoHome,
      });
      expect(params.stdout.split('\n')[0]).toMatch(/^Name\s+\tDefault\s+\tRequired\tImmutable$/);
    } finally {
      await server.close();
    }
  });
});
