// Builds and runs the Go oracle (test/gotemplate/oracle): real text/template + sprig with
// KUDO's function map. The binary is cached outside the clone, keyed by a hash of its
// sources, and built under a mkdir lock so parallel jest workers build it once.

import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const thisDir = dirname(fileURLToPath(import.meta.url));

/** The repo root: found from this file, or the working directory when run compiled elsewhere (bench). */
function findRepoRoot(): string {
  for (let d = thisDir; d !== dirname(d); d = dirname(d)) {
    if (existsSync(join(d, 'test', 'gotemplate', 'oracle', 'main.go'))) return d;
  }
  return process.cwd();
}

export const repoRoot = findRepoRoot();
export const here = join(repoRoot, 'test', 'gotemplate');
export const oracleDir = join(here, 'oracle');
/** ../shared relative to the repo root (CI checks the repo out next to it). */
export const sharedDir = resolve(repoRoot, '..', 'shared');

export interface OracleCase {
  name?: string;
  template: string;
  data?: unknown;
}

export interface OracleResult {
  output: string;
  error?: string;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function cacheRoot(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'planwright', 'gotemplate-oracle');
}

let built: string | undefined;

/** Path of the oracle binary, building it first if needed. */
export function oracleBinary(): string {
  if (built) return built;
  const hash = createHash('sha256');
  for (const f of ['go.mod', 'go.sum', 'main.go'])
    hash.update(f).update(readFileSync(join(oracleDir, f)));
  const dir = join(cacheRoot(), hash.digest('hex').slice(0, 16));
  const bin = join(dir, 'oracle');
  if (existsSync(bin)) return (built = bin);

  const goVersion = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (goVersion.error || goVersion.status !== 0) {
    throw new Error(
      'The gotemplate differential tests need the Go toolchain (1.26+) on PATH to build ' +
        `${oracleDir}; "go version" failed: ${goVersion.error?.message ?? goVersion.stderr}`,
    );
  }
  mkdirSync(dirname(dir), { recursive: true });
  const lock = `${dir}.lock`;
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(bin)) return (built = bin);
      // A lock older than 10 minutes belongs to a build that died.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 10 * 60_000)
          rmSync(lock, { recursive: true, force: true });
      } catch {
        // raced with its owner removing it
      }
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for the oracle build lock ${lock}`);
      sleep(200);
    }
  }
  try {
    if (existsSync(bin)) return (built = bin);
    mkdirSync(dir, { recursive: true });
    const tmp = `${bin}.tmp${process.pid}`;
    const r = spawnSync('go', ['build', '-trimpath', '-o', tmp, '.'], {
      cwd: oracleDir,
      encoding: 'utf8',
      env: { ...process.env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0' },
    });
    if (r.status !== 0)
      throw new Error(`building the Go oracle failed:\n${r.stderr}${r.error?.message ?? ''}`);
    renameSync(tmp, bin);
    return (built = bin);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Render a batch of cases with Go, in one process. */
export function runOracle(cases: readonly OracleCase[]): OracleResult[] {
  const r = spawnSync(oracleBinary(), [], {
    input: JSON.stringify(cases),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`oracle failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as OracleResult[];
}

/** The oracle's function map names (sprig TxtFuncMap as KUDO trims it). */
export function oracleFuncNames(): string[] {
  const r = spawnSync(oracleBinary(), ['funcs'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`oracle failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as string[];
}
