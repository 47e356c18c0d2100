// Builds and runs the conversion oracle (test/controlplane/kubernetes/conversion-oracle):
// Kubernetes' own conversion, defaulting and CRD validation code at the control plane's
// version. Cached outside the clone by a hash of its source and the wrapper module's
// go.mod/go.sum, built once under a lock with the control plane's build helper.
import { join } from 'node:path';
import { repositoryRoot } from '../../src/localcluster/paths.ts';
import { GoOracle } from './go-oracle.ts';

const moduleDir = join(repositoryRoot(), 'test', 'controlplane', 'kubernetes');
const source = join(moduleDir, 'conversion-oracle', 'main.go');

export type OracleRequest =
  { op: 'normalize'; to: string; object: unknown } | { op: 'validate-crd'; object: unknown };

export interface OracleAnswer {
  object?: Record<string, unknown>;
  errors?: string[];
  error?: string;
}

const oracle = new GoOracle({
  name: 'conversion-oracle',
  purpose: "the Kubernetes conversion oracle (Kubernetes' own conversion code)",
  moduleDir,
  pkg: './conversion-oracle',
  sources: [source],
  ldflags: '-s -w',
});

/** Path of the oracle binary, built on first use (minutes, cold). */
export function conversionOracle(onProgress?: (line: string) => void): Promise<string> {
  return oracle.binary(onProgress);
}

/** Answers a batch of requests in one process. */
export function askConversionOracle(requests: readonly OracleRequest[]): Promise<OracleAnswer[]> {
  return oracle.ask<OracleAnswer[]>(requests);
}
