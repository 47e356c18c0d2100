// The go-yaml oracle (test/gotemplate/yaml-oracle): gopkg.in/yaml.v2 v2.3.0 marshalling
// unstructured objects, as KUDO did for the dependencies hash.
import { join } from 'node:path';
import { GoOracle } from '../support/go-oracle.ts';
import { here } from './oracle.ts';

export interface YamlOracleResult {
  readonly yaml?: string;
  readonly md5?: string;
  readonly error?: string;
}

const oracle = GoOracle.module(
  'yaml-oracle',
  join(here, 'yaml-oracle'),
  'the go-yaml oracle for the dependencies-hash tests',
);

/** Path of the oracle binary, built on first use into the shared cache. */
export function yamlOracleBinary(onProgress?: (line: string) => void): Promise<string> {
  return oracle.binary(onProgress);
}

/** go-yaml's text (and its MD5) for each object, in one process. */
export function runYamlOracle(objects: readonly unknown[]): Promise<YamlOracleResult[]> {
  return oracle.ask<YamlOracleResult[]>(objects);
}
