// Builds and runs the Go oracle (test/gotemplate/oracle): real text/template + sprig with
// KUDO's function map. The binary is cached outside the clone, keyed by a hash of its
// sources, and built under a lock so parallel jest workers build it once.

import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertGoAvailable, buildGoBinary } from '../../src/localcluster/go-build.ts';
import { withDirectoryLock } from '../../src/localcluster/lock.ts';
import { cacheRoot, repositoryRoot } from '../../src/localcluster/paths.ts';
import { SHARED_DIR } from '../support/shared.ts';

export const repoRoot = repositoryRoot();
export const here = join(repoRoot, 'test', 'gotemplate');
export const oracleDir = join(here, 'oracle');
/** ../shared beside the clone (CI checks the repo out next to it). */
export const sharedDir = SHARED_DIR;

export interface OracleCase {
  name?: string;
  template: string;
  data?: unknown;
}

export interface OracleResult {
  output: string;
  error?: string;
}

let built: Promise<string> | undefined;

/**
 * Path of the oracle binary, built on first use into the shared cache (keyed by a hash of
 * its sources) under the same lock and build helper as the control plane.
 */
export function oracleBinary(): Promise<string> {
  built ??= buildOracle();
  return built;
}

async function buildOracle(): Promise<string> {
  const hash = createHash('sha256');
  for (const f of ['go.mod', 'go.sum', 'main.go'])
    hash.update(f).update(readFileSync(join(oracleDir, f)));
  const dir = join(cacheRoot(), 'gotemplate-oracle', hash.digest('hex').slice(0, 16));
  const bin = join(dir, 'oracle');
  if (existsSync(bin)) return bin;
  assertGoAvailable('the Go template oracle for the differential tests');
  mkdirSync(dir, { recursive: true });
  await withDirectoryLock(join(dir, '.lock'), {}, async () => {
    if (!existsSync(bin))
      await buildGoBinary({ name: 'gotemplate oracle', moduleDir: oracleDir, pkg: '.', out: bin });
  });
  return bin;
}

/** Render a batch of cases with Go, in one process (with `env` instead of ours if given). */
export async function runOracle(
  cases: readonly OracleCase[],
  env?: NodeJS.ProcessEnv,
): Promise<OracleResult[]> {
  const r = spawnSync(await oracleBinary(), [], {
    input: JSON.stringify(cases),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    ...(env ? { env } : {}),
  });
  if (r.status !== 0) throw new Error(`oracle failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as OracleResult[];
}

/** The oracle's function map names (sprig TxtFuncMap as KUDO trims it). */
export async function oracleFuncNames(): Promise<string[]> {
  const r = spawnSync(await oracleBinary(), ['funcs'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`oracle failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as string[];
}
