// Builds and runs the go-yaml oracle (test/gotemplate/yaml-oracle): gopkg.in/yaml.v2 v2.3.0
// marshalling unstructured objects, as KUDO did for the dependencies hash. Built once into the
// shared cache (keyed by a hash of its sources) under the same lock and build helper as the
// template oracle.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertGoAvailable, buildGoBinary } from '../../src/localcluster/go-build.ts';
import { withDirectoryLock } from '../../src/localcluster/lock.ts';
import { cacheRoot } from '../../src/localcluster/paths.ts';
import { here } from './oracle.ts';

const oracleDir = join(here, 'yaml-oracle');

export interface YamlOracleResult {
  readonly yaml?: string;
  readonly md5?: string;
  readonly error?: string;
}

let built: Promise<string> | undefined;

export function yamlOracleBinary(): Promise<string> {
  built ??= build();
  return built;
}

async function build(): Promise<string> {
  const hash = createHash('sha256');
  for (const f of ['go.mod', 'go.sum', 'main.go'])
    hash.update(f).update(readFileSync(join(oracleDir, f)));
  const dir = join(cacheRoot(), 'yaml-oracle', hash.digest('hex').slice(0, 16));
  const bin = join(dir, 'yaml-oracle');
  if (existsSync(bin)) return bin;
  assertGoAvailable('the go-yaml oracle for the dependencies-hash tests');
  mkdirSync(dir, { recursive: true });
  await withDirectoryLock(join(dir, '.lock'), {}, async () => {
    if (!existsSync(bin))
      await buildGoBinary({ name: 'go-yaml oracle', moduleDir: oracleDir, pkg: '.', out: bin });
  });
  return bin;
}

/** go-yaml's text (and its MD5) for each object, in one process. */
export async function runYamlOracle(objects: readonly unknown[]): Promise<YamlOracleResult[]> {
  const r = spawnSync(await yamlOracleBinary(), [], {
    input: JSON.stringify(objects),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`yaml oracle failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as YamlOracleResult[];
}
