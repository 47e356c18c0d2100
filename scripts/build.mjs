// `npm run build`'s output: Planwright's executables bundled by esbuild into dist/.
//
// Why a bundle and not tsc's one file per module: Planwright runs as many short processes (each
// `kubectl kudo` command, each render worker, the manager's start), and Node's module loader
// spent most of their start-up resolving, reading and linking ~850 files one by one. Bundled,
// `kubectl kudo version` takes 0.1 CPU-s instead of 0.25 and `planwright start` reaches its
// controllers with a third less CPU (docs/building.md has the figures). Type checking stays
// tsc's (`npm run typecheck`; `npm run build` runs it on src first).
//
// Code split: what a command imports lazily (`await import(...)`, e.g. client-node's generated
// API for Pipe tasks) stays a chunk of its own that only that command loads, so a bundle loads
// no more than the modules did. Packages whose files are read at run time by path (none today)
// would have to be external.
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Every file Node runs directly: the two CLIs, the render worker, the repository's tools. */
export const ENTRY_POINTS = [
  'src/main.ts',
  'src/cli/kubectl-kudo.ts',
  'src/kudo/pool/worker.ts',
  'src/cli/build-controlplane.ts',
  'src/cli/build-image.ts',
];

export async function buildDist({ outdir = 'dist', metafile = false } = {}) {
  await rm(new URL(outdir + '/', new URL('..', import.meta.url)), { recursive: true, force: true });
  return build({
    absWorkingDir: ROOT,
    entryPoints: ENTRY_POINTS,
    outdir,
    outbase: 'src',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunks/[name]-[hash]',
    // Stack frames in logs name TypeScript lines (main.ts enables source maps); the maps name
    // the sources without embedding them.
    sourcemap: 'linked',
    sourcesContent: false,
    // CommonJS packages inside an ES module bundle: `require` of Node's built-ins and the few
    // optional dependencies a package tries (and may not find) at run time.
    banner: {
      js: "import { createRequire as __planwrightCreateRequire } from 'node:module'; const require = __planwrightCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
    metafile,
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  await buildDist();
  process.stdout.write(`dist/ built in ${Date.now() - started} ms\n`);
}
