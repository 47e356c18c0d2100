// A parent package with a child (test/fixtures/packages/dependency-parent → dependency-child)
// as users run it: the built kubectl-kudo executable installs the parent from a folder, the
// child resolved from the parent's relative path (a folder; in a second namespace a .tgz made
// by `kubectl-kudo package create`); Planwright's real webhook and controller run both plans.
// `update` of a parent parameter that the KudoOperator task's parameter file passes on reaches
// the child; `uninstall` of the parent removes the child and everything both applied — on a
// bare control plane, where no garbage collector runs, so only Planwright's cleanup can.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { Instance } from '../../../src/kudo/api/types.ts';
import { repositoryRoot } from '../../../src/localcluster/paths.ts';
import { createTestNamespace, kubeConfig, testCluster } from '../../support/cluster.ts';
import { installKudoCrds, kudoObjects } from '../../support/kudo.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../support/planwright-start.ts';
import { ensureBuiltCli, runKudo, type CliResult } from './built-cli.ts';

const FIXTURES = join(repositoryRoot(), 'test', 'fixtures', 'packages');

describe('kubectl-kudo with a parent package and its child (KudoOperator)', () => {
  const kc = kubeConfig();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const { getInstance } = kudoObjects(kc.makeApiClient(k8s.CustomObjectsApi));
  let planwright: StartedPlanwright;
  let fromFolder = '';
  let fromArchive = '';
  let home = '';
  let work = '';

  const kudo = (namespace: string, args: string[], cwd: string): Promise<CliResult> =>
    runKudo(args, { namespace, kubeconfig: testCluster().kubeconfigPath, home, cwd });

  /** Name → data of the ConfigMaps Planwright applied in `namespace` (heritage=kudo). */
  async function appliedConfigMaps(
    namespace: string,
  ): Promise<Record<string, Record<string, string>>> {
    const list = await core.listNamespacedConfigMap({ namespace, labelSelector: 'heritage=kudo' });
    return Object.fromEntries(list.items.map((c) => [c.metadata?.name ?? '', c.data ?? {}]));
  }

  /** The applied ConfigMaps left, each with the uid of its controller owner. */
  async function configMapOwners(namespace: string): Promise<Record<string, string | undefined>> {
    const list = await core.listNamespacedConfigMap({ namespace, labelSelector: 'heritage=kudo' });
    return Object.fromEntries(
      list.items.map((c) => [
        c.metadata?.name ?? '',
        c.metadata?.ownerReferences?.find((r) => r.controller)?.uid,
      ]),
    );
  }

  beforeAll(async () => {
    await Promise.all([installKudoCrds(), ensureBuiltCli()]);
    fromFolder = await createTestNamespace('cli-deps');
    fromArchive = await createTestNamespace('cli-deps-tgz');
    home = await mkdtemp(join(tmpdir(), 'pw-kudo-home-'));
    work = await mkdtemp(join(tmpdir(), 'pw-cli-deps-'));
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [fromFolder, fromArchive],
    });
  }, 300_000);

  afterAll(async () => {
    await planwright?.stop();
  });

  it('installs parent and child from folders, passes an update on, and uninstalls both', async () => {
    const ns = fromFolder;
    const install = await kudo(
      ns,
      ['install', './dependency-parent', '--instance', 'web', '--wait', '--wait-time', '90'],
      FIXTURES,
    );
    expect(install.stderr).toBe('');
    expect(install.code).toBe(0);
    const lines = install.stdout.trimEnd().split('\n');
    // The child is installed first: its OperatorVersion must exist when the parent's task runs.
    expect(lines.slice(0, 5)).toEqual([
      `operator ${ns}/dependency-child created`,
      `operatorversion ${ns}/dependency-child-0.2.0 created`,
      `operator ${ns}/dependency-parent created`,
      `operatorversion ${ns}/dependency-parent-1.0.0-0.1.0 created`,
      `instance ${ns}/web created`,
    ]);
    expect(lines.at(-1)).toBe(`instance ${ns}/web ready`);

    const parent = (await getInstance(ns, 'web')) as Instance;
    const child = (await getInstance(ns, 'web-dependency-child')) as Instance;
    expect(parent.status?.planStatus?.['deploy']?.status).toBe('COMPLETE');
    expect(child.status?.planStatus?.['deploy']?.status).toBe('COMPLETE');
    expect(child.spec?.operatorVersion?.name).toBe('dependency-child-0.2.0');
    expect(child.spec?.parameters).toEqual({ MESSAGE: 'hello from web', REPLICAS: '2' });
    expect(await appliedConfigMaps(ns)).toEqual({
      'web-config': { greeting: 'hello', operatorVersion: '0.1.0' },
      'web-dependency-child-config': { message: 'hello from web', replicas: '2' },
    });

    // GREETING reaches the child only through the parent's child-params.yaml.
    const update = await kudo(
      ns,
      ['update', '--instance', 'web', '-p', 'GREETING=bonjour', '--wait', '--wait-time', '90'],
      FIXTURES,
    );
    expect(update.stderr).toBe('');
    expect(update.code).toBe(0);
    expect(update.stdout).toContain(`is COMPLETE\n`);
    const updated = (await getInstance(ns, 'web-dependency-child')) as Instance;
    expect(updated.spec?.parameters).toEqual({ MESSAGE: 'bonjour from web', REPLICAS: '2' });
    expect(updated.status?.planStatus?.['deploy']?.status).toBe('COMPLETE');
    expect(await appliedConfigMaps(ns)).toEqual({
      'web-config': { greeting: 'bonjour', operatorVersion: '0.1.0' },
      'web-dependency-child-config': { message: 'bonjour from web', replicas: '2' },
    });

    const uninstall = await kudo(
      ns,
      ['uninstall', '--instance', 'web', '--wait', '--wait-time', '90'],
      FIXTURES,
    );
    expect(uninstall).toEqual({
      code: 0,
      stdout: 'instance.kudo.dev/v1beta1/web deleted\n',
      stderr: '',
    });
    expect(await getInstance(ns, 'web')).toBeUndefined();
    // The child went (with its own cleanup) before the parent's finalizer was removed, and the
    // parent deleted its own objects. The child, of owned objects only, has no finalizer: its
    // ConfigMap is the garbage collector's (this bare control plane runs none).
    expect(await getInstance(ns, 'web-dependency-child')).toBeUndefined();
    expect(await configMapOwners(ns)).toEqual({
      'web-dependency-child-config': child.metadata.uid,
    });
  }, 300_000);

  it('resolves the child from a relative .tgz made by package create', async () => {
    const ns = fromArchive;
    const created = await kudo(
      ns,
      ['package', 'create', join(FIXTURES, 'dependency-child'), '--destination', work],
      work,
    );
    expect(created.stdout).toBe(
      `package is valid\nPackage created: ${join(work, 'dependency-child-0.2.0.tgz')}\n`,
    );
    const parentDir = join(work, 'parent');
    await cp(join(FIXTURES, 'dependency-parent'), parentDir, { recursive: true });
    const operatorYaml = await readFile(join(parentDir, 'operator.yaml'), 'utf8');
    expect(operatorYaml).toContain('package: ../dependency-child\n');
    await writeFile(
      join(parentDir, 'operator.yaml'),
      operatorYaml.replace(
        'package: ../dependency-child\n',
        'package: ../dependency-child-0.2.0.tgz\n',
      ),
    );

    const install = await kudo(
      ns,
      ['install', './parent', '--instance', 'packed', '-p', 'CHILD_REPLICAS=3', '--wait'],
      work,
    );
    expect(install.stderr).toBe('');
    expect(install.stdout.split('\n').slice(0, 2)).toEqual([
      `operator ${ns}/dependency-child created`,
      `operatorversion ${ns}/dependency-child-0.2.0 created`,
    ]);
    expect(install.stdout).toContain(`instance ${ns}/packed ready\n`);
    const child = (await getInstance(ns, 'packed-dependency-child')) as Instance;
    expect(child.status?.planStatus?.['deploy']?.status).toBe('COMPLETE');
    expect(await appliedConfigMaps(ns)).toEqual({
      'packed-config': { greeting: 'hello', operatorVersion: '0.1.0' },
      'packed-dependency-child-config': { message: 'hello from packed', replicas: '3' },
    });

    const uninstall = await kudo(ns, ['uninstall', '--instance', 'packed', '--wait'], work);
    expect(uninstall.code).toBe(0);
    // As above: the parent's objects deleted, the child's ConfigMap left to the collector.
    expect(await getInstance(ns, 'packed-dependency-child')).toBeUndefined();
    expect(await configMapOwners(ns)).toEqual({
      'packed-dependency-child-config': child.metadata.uid,
    });
  }, 300_000);
});
