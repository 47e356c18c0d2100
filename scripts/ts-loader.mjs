// Node ESM loader hooks that run the TypeScript sources directly (swc strips the types), so
// child processes in tests and the benchmarks need no prior `npm run build`.
// Use: node --import ./scripts/register-ts.mjs some-file.ts
//
// The test suite starts hundreds of such processes (render workers above all), each loading
// the same few hundred files: the JavaScript swc makes of a file is kept on disk, keyed by the
// file's path, its text and swc's version, so only a changed file is transformed again. A
// cache that cannot be read or written is skipped, never an error.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const SWC_VERSION = require('@swc/core/package.json').version;
const CACHE_DIR = join(
  process.env.PLANWRIGHT_CACHE_DIR ||
    join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'planwright'),
  'ts-loader',
);

/** @type {typeof import('@swc/core') | undefined} */
let swc;

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (err) {
    // Sources written before the .ts-specifier convention may still say ./x.js.
    if (specifier.startsWith('.') && specifier.endsWith('.js')) {
      return nextResolve(specifier.slice(0, -3) + '.ts', context);
    }
    throw err;
  }
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith('.ts')) return nextLoad(url, context);
  const filename = fileURLToPath(url);
  const text = await readFile(filename, 'utf8');
  const key = createHash('sha256')
    .update(`${SWC_VERSION}\0${filename}\0`)
    .update(text)
    .digest('hex');
  const cached = join(CACHE_DIR, `${key}.js`);
  const hit = await readFile(cached, 'utf8').catch(() => undefined);
  if (hit !== undefined) return { format: 'module', source: hit, shortCircuit: true };
  swc ??= await import('@swc/core');
  const { code } = swc.transformSync(text, {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  });
  await store(cached, code);
  return { format: 'module', source: code, shortCircuit: true };
}

/** Writes through a temporary name, so a process reading at the same time sees all or nothing. */
async function store(path, code) {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    await mkdir(CACHE_DIR, { recursive: true });
    await writeFile(temporary, code);
    await rename(temporary, path);
  } catch {
    // A read-only or full disk: the next process transforms the file again.
  }
}
