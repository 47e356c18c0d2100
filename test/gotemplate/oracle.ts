// The Go oracles: real text/template + sprig with KUDO's function map. The KUDO oracle
// (test/gotemplate/kudo-oracle) pins KUDO 0.19's module versions and is the reference; the
// extension oracle (test/gotemplate/oracle, sprig v3) is the reference only for the
// functions Planwright has beyond KUDO's map.
import { join } from 'node:path';
import { repositoryRoot } from '../../src/localcluster/paths.ts';
import { GoOracle } from '../support/go-oracle.ts';
import { SHARED_DIR } from '../support/shared.ts';

export const repoRoot = repositoryRoot();
export const here = join(repoRoot, 'test', 'gotemplate');
const coreDir = join(here, 'oracle-core');
const coreSources = [join(coreDir, 'go.mod'), join(coreDir, 'core.go')];
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

const kudoOracle = GoOracle.module(
  'gotemplate-kudo-oracle',
  join(here, 'kudo-oracle'),
  "KUDO 0.19's renderer (sprig v2.22) for the template differential tests",
  coreSources,
);

const extensionOracle = GoOracle.module(
  'gotemplate-oracle',
  join(here, 'oracle'),
  'sprig v3 for the differential tests of template extensions',
  coreSources,
);

/** Path of the KUDO oracle binary, built on first use into the shared cache. */
export function oracleBinary(onProgress?: (line: string) => void): Promise<string> {
  return kudoOracle.binary(onProgress);
}

/** Path of the extension oracle binary, built on first use into the shared cache. */
export function extensionOracleBinary(onProgress?: (line: string) => void): Promise<string> {
  return extensionOracle.binary(onProgress);
}

/** Render a batch of cases as KUDO would, in one process (with `env` instead of ours if given). */
export function runOracle(
  cases: readonly OracleCase[],
  env?: NodeJS.ProcessEnv,
): Promise<OracleResult[]> {
  return kudoOracle.ask<OracleResult[]>(cases, env ? { env } : {});
}

/** Render a batch of cases with sprig v3, the reference for Planwright's extensions. */
export function runExtensionOracle(cases: readonly OracleCase[]): Promise<OracleResult[]> {
  return extensionOracle.ask<OracleResult[]>(cases);
}

/** KUDO's function map names (sprig v2.22's TxtFuncMap as KUDO trims it). */
export function oracleFuncNames(): Promise<string[]> {
  return kudoOracle.ask<string[]>(undefined, { args: ['funcs'] });
}

/** sprig v3's function map names, trimmed the same way. */
export function extensionOracleFuncNames(): Promise<string[]> {
  return extensionOracle.ask<string[]>(undefined, { args: ['funcs'] });
}
