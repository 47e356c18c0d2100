// KudoOperator dependency resolution: relative children of folders and tarballs, repository
// children, diamonds walked once, cycles and missing children with KUDO's texts.
import { describe, expect, it } from '@jest/globals';
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import {
  DependencyError,
  packArchive,
  packageResolver,
  readFolderTree,
  resolveDependencies,
  type ResolvedPackage,
} from '../../../../src/kudo/package/index.ts';
import {
  closedPort,
  FIXTURE_PACKAGES,
  handMadeTgz,
  minimalPackage,
  loopbackServers,
  noRepository,
  tempDir,
  writeTree,
} from './helpers.ts';
import { serialPlan } from '../../../support/kudo-objects.ts';

const serveLoopback = loopbackServers();

/** A package whose deploy plan runs one KudoOperator task per dependency. */
function withDependencies(
  name: string,
  deps: readonly { package: string; operatorVersion?: string; appVersion?: string }[],
  version = '0.1.0',
): Record<string, string> {
  const tasks = deps.map((d, i) => ({ name: `dep${i}`, kind: 'KudoOperator', spec: { ...d } }));
  const operator = stringify({
    name,
    operatorVersion: version,
    kubernetesVersion: '1.16.0',
    tasks: [{ name: 'app', kind: 'Apply', spec: { resources: ['cm.yaml'] } }, ...tasks],
    plans: {
      deploy: serialPlan([{ name: 's', tasks: ['app', ...tasks.map((t) => t.name)] }]),
    },
  });
  return minimalPackage(name, { operator });
}

const names = (list: readonly ResolvedPackage[]): string[] =>
  list.map((p) => p.resources.operatorVersion.metadata.name ?? '');

function kudoOperatorSpecs(pkg: ResolvedPackage): unknown[] {
  return (pkg.resources.operatorVersion.spec?.tasks ?? [])
    .filter((t) => t.kind === 'KudoOperator')
    .map((t) => t.spec);
}

describe('resolveDependencies', () => {
  it('resolves a folder parent’s relative child and rewrites the task to the resolved names', async () => {
    const resolver = packageResolver({ cwd: FIXTURE_PACKAGES, repository: noRepository });
    const root = await resolver.resolve('./dependency-parent');
    const result = await resolveDependencies(root);
    expect(names(result.dependencies)).toEqual(['dependency-child-0.2.0']);
    expect(names(result.creationOrder)).toEqual([
      'dependency-child-0.2.0',
      'dependency-parent-1.0.0-0.1.0',
    ]);
    expect(result.dependencies[0]?.origin).toEqual({
      kind: 'folder',
      path: join(FIXTURE_PACKAGES, 'dependency-child'),
    });
    expect(kudoOperatorSpecs(root)).toEqual([
      { package: 'dependency-child', operatorVersion: '0.2.0', parameterFile: 'child-params.yaml' },
    ]);
  });

  it('resolves a tarball parent’s relative children inside the tarball, never on the host', async () => {
    const parent = withDependencies('tar-parent', [
      { package: './kids/a' },
      { package: '../b.tgz' },
    ]);
    const bDir = await writeTree(await tempDir(), minimalPackage('kid-b'));
    const tree = new Map<string, Buffer>();
    for (const [name, text] of Object.entries(parent)) tree.set(name, Buffer.from(text));
    for (const [name, text] of Object.entries(minimalPackage('kid-a'))) {
      tree.set(`kids/a/${name}`, Buffer.from(text));
    }
    tree.set('b.tgz', await packArchive(await readFolderTree(bDir)));
    const base = await tempDir();
    await writeFile(join(base, 'parent.tgz'), await packArchive(tree));
    const root = await packageResolver({ cwd: base, repository: noRepository }).resolve(
      './parent.tgz',
    );
    const result = await resolveDependencies(root);
    expect(names(result.dependencies)).toEqual(['kid-a-0.1.0', 'kid-b-0.1.0']);
    expect(result.dependencies.map((d) => d.origin)).toEqual([
      { kind: 'tarball', path: `${join(base, 'parent.tgz')}:/kids/a` },
      { kind: 'tarball', path: `${join(base, 'parent.tgz')}:/b.tgz` },
    ]);

    // `../dependency-child` next to the archive on the host is out of reach from inside it.
    const escaping = withDependencies('escape', [{ package: '../dependency-child' }]);
    await cp(join(FIXTURE_PACKAGES, 'dependency-child'), join(base, 'dependency-child'), {
      recursive: true,
    });
    await writeFile(
      join(base, 'escape.tgz'),
      await handMadeTgz(Object.entries(escaping).map(([name, text]) => ({ name, text }))),
    );
    const escapeRoot = await packageResolver({ cwd: base, repository: noRepository }).resolve(
      './escape.tgz',
    );
    await expect(resolveDependencies(escapeRoot)).rejects.toThrow(
      `failed to resolve package Operator: "../dependency-child", OperatorVersion: "any", AppVersion "any", dependency of package escape-0.1.0: ${join(base, 'escape.tgz')}:/dependency-child is neither a package folder nor a .tgz file (or does not exist)`,
    );
  });

  it('walks a package reached twice once and creates leaves first', async () => {
    const base = await tempDir();
    await writeTree(
      join(base, 'a'),
      withDependencies('a', [{ package: '../b' }, { package: '../c' }]),
    );
    await writeTree(join(base, 'b'), withDependencies('b', [{ package: '../d' }]));
    await writeTree(join(base, 'c'), withDependencies('c', [{ package: '../d' }]));
    await writeTree(join(base, 'd'), minimalPackage('d'));
    const root = await packageResolver({ cwd: base, repository: noRepository }).resolve('./a');
    const result = await resolveDependencies(root);
    expect(names(result.creationOrder)).toEqual(['d-0.1.0', 'b-0.1.0', 'c-0.1.0', 'a-0.1.0']);
    // Both parents of d carry the resolved values.
    const c = result.dependencies.find((p) => p.resources.operator.metadata.name === 'c')!;
    expect(kudoOperatorSpecs(c)).toEqual([{ package: 'd', operatorVersion: '0.1.0' }]);
  });

  it('detects a cycle before anything is created, with KUDO’s text', async () => {
    const base = await tempDir();
    await writeTree(join(base, 'a'), withDependencies('a', [{ package: '../b' }]));
    await writeTree(join(base, 'b'), withDependencies('b', [{ package: '../a' }]));
    await writeTree(join(base, 'self'), withDependencies('self', [{ package: '../self' }]));
    const resolver = packageResolver({ cwd: base, repository: noRepository });
    const err = await resolveDependencies(await resolver.resolve('./a')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DependencyError);
    expect((err as Error).message).toBe(
      'cyclic package dependency found when adding package b-0.1.0 -> a-0.1.0',
    );
    await expect(resolveDependencies(await resolver.resolve('./self'))).rejects.toThrow(
      'cyclic package dependency found when adding package self-0.1.0 -> self-0.1.0',
    );
  });

  it('names the missing child, its filters and the parent', async () => {
    const base = await tempDir();
    await writeTree(
      join(base, 'p'),
      withDependencies('p', [{ package: './nope', operatorVersion: '1.0.0', appVersion: '2.0' }]),
    );
    const root = await packageResolver({ cwd: base, repository: noRepository }).resolve('./p');
    await expect(resolveDependencies(root)).rejects.toThrow(
      `failed to resolve package Operator: "./nope", OperatorVersion: "1.0.0", AppVersion "2.0", dependency of package p-0.1.0: ${join(base, 'p', 'nope')} is neither a package folder nor a .tgz file (or does not exist)`,
    );
  });

  it('resolves a bare-name child from the repository with its version filter', async () => {
    const routes: Record<string, Buffer | string> = {};
    const server = await serveLoopback(routes);
    for (const v of ['1.0.0', '2.0.0']) {
      const operator = `name: repo-child\noperatorVersion: ${v}\nkubernetesVersion: 1.16.0\n`;
      const dir = await writeTree(await tempDir(), minimalPackage('repo-child', { operator }));
      routes[`/repo-child-${v}.tgz`] = await packArchive(await readFolderTree(dir));
    }
    routes['/index.yaml'] = stringify({
      apiVersion: 'v1',
      entries: {
        'repo-child': ['2.0.0', '1.0.0'].map((v) => ({
          name: 'repo-child',
          operatorVersion: v,
          urls: [`${server.url}/repo-child-${v}.tgz`],
        })),
      },
    });
    const base = await tempDir();
    await writeTree(
      join(base, 'p'),
      withDependencies('p', [{ package: 'repo-child', operatorVersion: '1.0.0' }]),
    );
    const resolver = packageResolver({ cwd: base, repository: { name: 'local', url: server.url } });
    const root = await resolver.resolve('./p');
    const result = await resolveDependencies(root);
    expect(names(result.dependencies)).toEqual(['repo-child-1.0.0']);
    expect(result.dependencies[0]?.origin).toEqual({
      kind: 'repository',
      repository: 'local',
      url: `${server.url}/repo-child-1.0.0.tgz`,
    });
    expect(kudoOperatorSpecs(root)).toEqual([{ package: 'repo-child', operatorVersion: '1.0.0' }]);
  });

  it('fails fast when a child’s repository is unreachable', async () => {
    const port = await closedPort();
    const base = await tempDir();
    await writeTree(join(base, 'p'), withDependencies('p', [{ package: 'zookeeper' }]));
    const resolver = packageResolver({
      cwd: base,
      repository: { name: 'community', url: `http://127.0.0.1:${port}` },
    });
    const err = (await resolveDependencies(await resolver.resolve('./p')).catch(
      (e: unknown) => e,
    )) as Error;
    expect(err).toBeInstanceOf(DependencyError);
    expect(err.message).toMatch(
      /^failed to resolve package Operator: "zookeeper", OperatorVersion: "any", AppVersion "any", dependency of package p-0.1.0: could not download repository index file: could not reach http:\/\/127\.0\.0\.1:\d+\/index\.yaml: ECONNREFUSED/,
    );
  });
});
