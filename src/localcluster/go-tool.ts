import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { assertGoAvailable, buildGoBinary } from './go-build.ts';
import { withDirectoryLock } from './lock.ts';
import { cacheRoot } from './paths.ts';

/** One Go executable built from a wrapper module (go.mod + go.sum) into the machine's cache. */
export interface GoToolSpec {
  /** File name of the executable ("kubectl-kuttl"). */
  readonly name: string;
  /** Folder under the cache root ("kuttl"). */
  readonly cacheFolder: string;
  /** Version the wrapper module pins, part of the cached folder's name ("v0.25.0"). */
  readonly version: string;
  /** Folder of the wrapper module. */
  readonly moduleDir: string;
  /** Import path of the main package. */
  readonly pkg: string;
  readonly ldflags?: string;
  /** What it is for, in the "Go is needed" message ("kuttl v0.25.0 for KUDO's test cases"). */
  readonly purpose: string;
  /** Appended to a failed build's message: what to try. */
  readonly hint?: string;
  /**
   * Further files whose contents key the cache, in order: the main package's own sources when
   * it lives inside the wrapper module (a test oracle), so an edit builds afresh.
   */
  readonly sources?: readonly string[];
}

export interface EnsureGoToolOptions {
  readonly onProgress?: (line: string) => void;
  readonly signal?: AbortSignal;
}

/**
 * Path of the executable, built on first use under a lock (parallel callers build it once) into
 * `<cache>/<cacheFolder>/<version>-<hash>`: the hash covers go.mod, go.sum, the ldflags and the
 * `sources`, so changing any of them builds afresh instead of reusing a stale binary.
 */
export async function ensureGoTool(
  spec: GoToolSpec,
  options: EnsureGoToolOptions = {},
): Promise<string> {
  const dir = await goToolDir(spec);
  const out = join(dir, spec.name);
  if (existsSync(out)) return out;
  assertGoAvailable(spec.purpose);
  await mkdir(dir, { recursive: true });
  await withDirectoryLock(
    join(dir, '.lock'),
    {
      signal: options.signal,
      onWait: (pid) =>
        options.onProgress?.(`waiting for process ${pid}, which is building ${spec.name}`),
    },
    async () => {
      if (existsSync(out)) return;
      // Partial outputs of a build that was killed: nobody else can be writing them now.
      for (const entry of await readdir(dir)) {
        if (entry.includes('.partial-')) await rm(join(dir, entry), { force: true });
      }
      await buildGoBinary({
        name: spec.name,
        moduleDir: spec.moduleDir,
        pkg: spec.pkg,
        out,
        ldflags: spec.ldflags,
        hint: spec.hint,
        onProgress: options.onProgress,
        signal: options.signal,
      });
    },
  );
  return out;
}

/** The cache folder of a tool (exported for tests: it must change with the module's pins). */
export async function goToolDir(spec: GoToolSpec): Promise<string> {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum']) hash.update(await readFile(join(spec.moduleDir, file)));
  // Only the ldflags besides the module files: the folder names kuttl's cache already has.
  hash.update(spec.ldflags ?? '');
  for (const file of spec.sources ?? []) hash.update(await readFile(file));
  return join(cacheRoot(), spec.cacheFolder, `${spec.version}-${hash.digest('hex').slice(0, 12)}`);
}
