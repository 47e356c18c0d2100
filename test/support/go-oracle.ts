// A Go program the tests ask for the reference answer (text/template, go-yaml, Kubernetes'
// conversion code): built on first use by ensureGoTool (the machine's cache, keyed by its
// module and sources, under a lock so parallel jest workers build it once); asked with a JSON
// request on stdin, answering JSON on stdout.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureGoTool, type GoToolSpec } from '../../src/localcluster/go-tool.ts';

export type GoOracleSpec = Omit<GoToolSpec, 'cacheFolder' | 'version'>;

export class GoOracle {
  private built: Promise<string> | undefined;

  constructor(private readonly spec: GoOracleSpec) {}

  /**
   * An oracle whose main package is its module (main.go beside go.mod in `moduleDir`);
   * `sharedSources` are the files of a local module it replaces in (they key the cache too).
   */
  static module(
    name: string,
    moduleDir: string,
    purpose: string,
    sharedSources: readonly string[] = [],
  ): GoOracle {
    return new GoOracle({
      name,
      purpose,
      moduleDir,
      pkg: '.',
      sources: [join(moduleDir, 'main.go'), ...sharedSources],
    });
  }

  /** Path of the binary, built on first use. */
  binary(onProgress?: (line: string) => void): Promise<string> {
    // The cache folder is the oracle's name; "src": the version is its sources' hash.
    this.built ??= ensureGoTool(
      { ...this.spec, cacheFolder: this.spec.name, version: 'src' },
      onProgress ? { onProgress } : {},
    );
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
}
