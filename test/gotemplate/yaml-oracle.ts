// The go-yaml oracle (test/gotemplate/yaml-oracle): gopkg.in/yaml.v2 v2.3.0 marshalling
// unstructured objects, as KUDO did for the dependencies hash.
import { join } from 'node:path';
import { GoOracle } from '../support/go-oracle.ts';
import { here } from './oracle.ts';

const oracleDir = join(here, 'yaml-oracle');

export interface YamlOracleResult {
  readonly yaml?: string;
  readonly md5?: string;
  readonly error?: string;
}

const oracle = new GoOracle({
  name: 'yaml-oracle',
  purpose: 'the go-yaml oracle for the dependencies-hash tests',
  moduleDir: oracleDir,
  pkg: '.',
  sources: [join(oracleDir, 'main.go')],
});

/** go-yaml's text (and its MD5) for each object, in one process. */
export function runYamlOracle(objects: readonly unknown[]): Promise<YamlOracleResult[]> {
  return oracle.ask<YamlOracleResult[]>(objects);
}
