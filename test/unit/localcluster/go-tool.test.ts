import { afterEach, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ensureGoTool, goToolDir, type GoToolSpec } from '../../../src/localcluster/go-tool.ts';
import { ControlPlaneBuildError } from '../../../src/localcluster/index.ts';

async function moduleDir(goMod: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pw-gotool-'));
  await writeFile(join(dir, 'go.mod'), goMod);
  await writeFile(join(dir, 'go.sum'), '');
  return dir;
}

const spec = (dir: string): GoToolSpec => ({
  name: 'tool',
  cacheFolder: 'tools',
  version: 'v1.2.3',
  moduleDir: dir,
  pkg: 'example.com/tool/cmd/tool',
  ldflags: '-s -w',
  purpose: 'the example tool for a test',
});

describe('ensureGoTool', () => {
  const saved = { PATH: process.env['PATH'], cache: process.env['PLANWRIGHT_CACHE_DIR'] };
  afterEach(() => {
    process.env['PATH'] = saved.PATH;
    if (saved.cache === undefined) delete process.env['PLANWRIGHT_CACHE_DIR'];
    else process.env['PLANWRIGHT_CACHE_DIR'] = saved.cache;
  });

  it('names the folder after the version and a hash of go.mod, go.sum and the ldflags', async () => {
    process.env['PLANWRIGHT_CACHE_DIR'] = '/cache';
    const dir = await moduleDir('module a\n');
    const folder = await goToolDir(spec(dir));
    // The same recipe as the kuttl cache had before this helper: its binary stays valid.
    const hash = createHash('sha256');
    hash.update(await readFile(join(dir, 'go.mod')));
    hash.update(await readFile(join(dir, 'go.sum')));
    hash.update('-s -w');
    expect(folder).toBe(`/cache/tools/v1.2.3-${hash.digest('hex').slice(0, 12)}`);
    const other = await moduleDir('module b\n');
    expect(basename(await goToolDir(spec(other)))).not.toBe(basename(folder));
    expect(await goToolDir({ ...spec(dir), ldflags: '-s' })).not.toBe(folder);
  });

  it('keys the folder by the contents of the sources given too', async () => {
    process.env['PLANWRIGHT_CACHE_DIR'] = '/cache';
    const dir = await moduleDir('module a\n');
    const main = join(dir, 'main.go');
    await writeFile(main, 'package main\n');
    const folder = await goToolDir({ ...spec(dir), sources: [main] });
    expect(folder).not.toBe(await goToolDir(spec(dir)));
    expect(await goToolDir({ ...spec(dir), sources: [main] })).toBe(folder);
    await writeFile(main, 'package main\n\nfunc main() {}\n');
    expect(await goToolDir({ ...spec(dir), sources: [main] })).not.toBe(folder);
  });

  it('returns a cached executable without needing Go', async () => {
    process.env['PLANWRIGHT_CACHE_DIR'] = await mkdtemp(join(tmpdir(), 'pw-cache-'));
    process.env['PATH'] = '/nonexistent';
    const s = spec(await moduleDir('module a\n'));
    const folder = await goToolDir(s);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'tool'), '#!/bin/sh\n');
    expect(await ensureGoTool(s)).toBe(join(folder, 'tool'));
  });

  it('says what Go is needed for when nothing is cached and go is missing', async () => {
    process.env['PLANWRIGHT_CACHE_DIR'] = await mkdtemp(join(tmpdir(), 'pw-cache-'));
    process.env['PATH'] = '/nonexistent';
    const attempt = ensureGoTool(spec(await moduleDir('module a\n')));
    await expect(attempt).rejects.toBeInstanceOf(ControlPlaneBuildError);
    await expect(attempt).rejects.toThrow(
      /needed once to build the example tool for a test.*Install Go/s,
    );
  });
});
