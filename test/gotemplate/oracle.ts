// The Go oracle (test/gotemplate/oracle): real text/template + sprig with KUDO's function map.
import { join } from 'node:path';
import { repositoryRoot } from '../../src/localcluster/paths.ts';
import { GoOracle } from '../support/go-oracle.ts';
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

const oracle = GoOracle.module(
  'gotemplate-oracle',
  oracleDir,
  'the Go template oracle for the differential tests',
);

/** Path of the oracle binary, built on first use into the shared cache. */
export function oracleBinary(): Promise<string> {
  return oracle.binary();
}

/** Render a batch of cases with Go, in one process (with `env` instead of ours if given). */
export function runOracle(
  cases: readonly OracleCase[],
  env?: NodeJS.ProcessEnv,
): Promise<OracleResult[]> {
  return oracle.ask<OracleResult[]>(cases, env ? { env } : {});
}

/** The oracle's function map names (sprig TxtFuncMap as KUDO trims it). */
export function oracleFuncNames(): Promise<string[]> {
  return oracle.ask<string[]>(undefined, { args: ['funcs'] });
}
