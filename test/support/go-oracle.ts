// A Go program the tests ask for the reference answer (text/template, go-yaml, Kubernetes'
// conversion code): built on first use into the shared cache, keyed by a hash of its sources,
// under the control plane's lock and build helper so parallel jest workers build it once; run
// with a JSON request on stdin and a JSON answer on stdout.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertGoAvailable, buildGoBinary } from '../../src/localcluster/go-build.ts';
import { withDirectoryLock } from '../../src/localcluster/lock.ts';
import { cacheRoot } from '../../src/localcluster/paths.ts';

export interface GoOracleSpec {
  /** The cache folder and binary name, and how errors name it. */
  readonly name: string;
  /** What needs it, for the "Go is missing" message. */
  readonly purpose: string;
  readonly moduleDir: string;
  /** The package to build, relative to moduleDir. */
  readonly pkg: string;
  /** Files whose contents key the cached binary. */
  readonly sources: readonly string[];
  readonly ldflags?: string;
}

export class GoOracle {
  private built: Promise<string> | undefined;

  constructor(private readonly spec: GoOracleSpec) {}

  /** Path of the binary, built on first use. */
  binary(onProgress?: (line: string) => void): Promise<string> {
    this.built ??= this.build(onProgress);
    return this.built;
  }

  /** One process answering `request` (JSON both ways); its stderr in the error when it fails. */
  async ask<T>(
    request: unknown,
    options: { readonly args?: readonly string[]; readonly env?: NodeJS.ProcessEnv } = {},
  ): Promise<T> {
    const r = spawnSync(await this.binary(), options.args ?? [], {
      input: request === undefined ? undefined : JSON.stringify(request),
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      ...(options.env ? { env: options.env } : {}),
    });
    if (r.status !== 0) throw new Error(`${this.spec.name} failed: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  }

  private async build(onProgress?: (line: string) => void): Promise<string> {
    const { name, moduleDir, pkg, sources, ldflags } = this.spec;
    const hash = createHash('sha256');
    for (const file of sources) hash.update(readFileSync(file));
    const dir = join(cacheRoot(), name, hash.digest('hex').slice(0, 16));
    const bin = join(dir, name);
    if (existsSync(bin)) return bin;
    assertGoAvailable(this.spec.purpose);
    mkdirSync(dir, { recursive: true });
    await withDirectoryLock(join(dir, '.lock'), {}, async () => {
      if (existsSync(bin)) return;
      await buildGoBinary({
        name,
        moduleDir,
        pkg,
        out: bin,
        ...(ldflags ? { ldflags } : {}),
        ...(onProgress ? { onProgress } : {}),
      });
    });
    return bin;
  }
}
