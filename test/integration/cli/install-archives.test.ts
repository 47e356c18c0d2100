// Package archives as users make and install them: `package create` of every package of
// KUDO's data and of the example, then `install` of the archive (by path, and relative to the
// current folder) with the built kubectl-kudo executable against the real apiserver and
// Planwright's webhook and controller. (Apart from install.test.ts so the two run side by side.)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '../../../src/kube/index.ts';
import type { Instance, OperatorVersion } from '../../../src/kudo/api/types.ts';
import { repositoryRoot } from '../../../src/localcluster/paths.ts';
import { createTestNamespace, kubeConfig, testCluster } from '../../support/cluster.ts';
import { installKudoCrds } from '../../support/kudo.ts';
import { KUDO_PACKAGES_DIR } from '../../support/shared.ts';
import { waitFor } from '../../support/wait.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../support/planwright-start.ts';
import { ensureBuiltCli, runKudo, type CliResult } from './built-cli.ts';

const HELLO = join(repositoryRoot(), 'examples', 'hello-config');

describe('kubectl kudo package create → install of archives', () => {
  let ns: string;
  let archives: string;
  let home: string;
  let client: KubeClient;
  let planwright: StartedPlanwright;

  const kudo = (
    args: string[],
    options: { namespace?: string; cwd?: string } = {},
  ): Promise<CliResult> =>
    runKudo(args, {
      namespace: options.namespace ?? ns,
      kubeconfig: testCluster().kubeconfigPath,
      home,
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });

  const get = <T>(namespace: string, resource: string, name: string): Promise<T> =>
    client.request<T>({
      path: `/apis/kudo.dev/v1beta1/namespaces/${namespace}/${resource}/${name}`,
    });

  beforeAll(async () => {
    await Promise.all([installKudoCrds(), ensureBuiltCli()]);
    ns = await createTestNamespace('cli-folders');
    archives = await createTestNamespace('cli-archives');
    home = await mkdtemp(join(tmpdir(), 'pw-kudo-home-'));
    client = new KubeClient(kubeConfig());
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [ns, archives],
    });
  });

  afterAll(async () => {
    await planwright?.stop();
    client?.close();
  });

  it.each(
    readdirSync(KUDO_PACKAGES_DIR).filter((p) =>
      existsSync(join(KUDO_PACKAGES_DIR, p, 'operator.yaml')),
    ),
  )('package create → install of the archive round-trips: %s', async (name) => {
    const folder = join(KUDO_PACKAGES_DIR, name);
    const [d1, d2] = [
      await mkdtemp(join(tmpdir(), 'pw-rt-')),
      await mkdtemp(join(tmpdir(), 'pw-rt-')),
    ];
    const one = await kudo(['package', 'create', folder, '-d', d1]);
    expect(one.code).toBe(0);
    await kudo(['package', 'create', folder, '-d', d2]);
    const [archive] = await readdir(d1);
    expect(archive).toMatch(/\.tgz$/);
    // Byte for byte reproducible.
    expect(
      Buffer.compare(await readFile(join(d1, archive!)), await readFile(join(d2, archive!))),
    ).toBe(0);

    const fromFolder = await kudo(['install', folder, '--skip-instance']);
    expect(fromFolder.code).toBe(0);
    // `--required`: a `Name` table of the required parameters without default, or a line
    // saying there are none.
    const required = (
      await kudo(['package', 'list', 'parameters', join(d1, archive!), '--required'])
    ).stdout
      .split('\n')
      .slice(1)
      .map((l) => l.trim())
      .filter(Boolean);
    const fromArchive = await kudo(
      [
        'install',
        join(d1, archive!),
        '--instance',
        `rt-${name}`,
        ...required.flatMap((p) => ['-p', `${p}=x`]),
      ],
      { namespace: archives },
    );
    expect(fromArchive.stderr).toBe('');
    expect(fromArchive.code).toBe(0);
    const ovName = /operatorversion \S+\/(\S+) created/.exec(fromArchive.stdout)?.[1] ?? '';
    const [a, b] = await Promise.all([
      get<OperatorVersion>(ns, 'operatorversions', ovName),
      get<OperatorVersion>(archives, 'operatorversions', ovName),
    ]);
    expect(b.spec).toEqual(a.spec);
    // The webhook accepted the Instance and scheduled deploy.
    await waitFor(
      'deploy scheduled',
      async () =>
        (await get<Instance>(archives, 'instances', `rt-${name}`)).spec?.planExecution?.planName ===
        'deploy',
    );
  });

  it('a relative archive path installs from the current directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pw-rel-'));
    await kudo(['package', 'create', HELLO, '-d', dir]);
    const ns3 = await createTestNamespace('cli-rel');
    const res = await kudo(['install', './hello-config-0.1.0.tgz', '--skip-instance'], {
      cwd: dir,
      namespace: ns3,
    });
    expect(res.stdout).toContain(`operatorversion ${ns3}/hello-config-0.1.0 created`);
  });
});
