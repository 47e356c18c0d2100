// The image ships dist/ without node_modules (Dockerfile, src/cli/image.ts): the bundle must
// hold every package it runs. Here dist/ (as `npm run build` makes it), package.json and
// manifests/ are copied to a folder with no node_modules above it, as in the image's /app, and
// run there: the CLI answers, and every chunk — the lazy ones too (client-node's generated API
// for Pipe tasks, each verb) — loads. A package left out of the bundle fails both with
// ERR_MODULE_NOT_FOUND / MODULE_NOT_FOUND, which the checkout's own node_modules would hide.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, parse } from 'node:path';
import { promisify } from 'node:util';
import { repositoryRoot } from '../../../src/localcluster/index.ts';
import { DIST, ensureBuiltCli } from './built-cli.ts';

const run = promisify(execFile);

describe('dist/ without node_modules (the image)', () => {
  let app: string;

  beforeAll(async () => {
    await ensureBuiltCli();
    app = join(await mkdtemp(join(tmpdir(), 'pw-bundle-')), 'app');
    await cp(DIST, join(app, 'dist'), { recursive: true });
    await cp(join(repositoryRoot(), 'package.json'), join(app, 'package.json'));
    await cp(join(repositoryRoot(), 'manifests'), join(app, 'manifests'), { recursive: true });
  }, 120_000);

  afterAll(async () => {
    if (app) await rm(dirname(app), { recursive: true, force: true });
  });

  it('has no node_modules on the way up, as in the image', () => {
    const found: string[] = [];
    for (let dir = app; ; dir = dirname(dir)) {
      if (existsSync(join(dir, 'node_modules'))) found.push(join(dir, 'node_modules'));
      if (dir === parse(dir).root) break;
    }
    expect(found).toEqual([]);
  });

  it('runs the CLI', async () => {
    const { stdout } = await run(process.execPath, ['dist/main.js', 'version'], { cwd: app });
    expect(stdout).toMatch(/^Planwright CLI version \d+\.\d+\.\d+ /);
    const help = await run(process.execPath, ['dist/cli/kubectl-kudo.js', 'start', '--help'], {
      cwd: app,
    });
    expect(help.stdout).toContain('--webhook-port');
  });

  it('loads every chunk of the bundle, the lazy ones included', async () => {
    const files = (await readdir(join(app, 'dist'), { recursive: true }))
      .filter((f) => f.startsWith('chunks/') && f.endsWith('.js'))
      .map((f) => join(app, 'dist', f));
    expect(files.length).toBeGreaterThan(10);
    // One process imports them all: an entry's top level would run a command, a chunk's only
    // defines what its importers use.
    const script = `for (const f of ${JSON.stringify(files)}) await import(f);`;
    const { stderr } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: app,
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(stderr).toBe('');
  }, 120_000);
});
