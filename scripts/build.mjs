// `npm run build`'s output: Planwright's executables bundled by esbuild into dist/.
//
// Why a bundle and not tsc's one file per module: Planwright runs as many short processes (each
// `kubectl kudo` command, each render worker, the manager's start), and Node's module loader
// spent much of their start-up resolving, reading and linking ~850 files one by one. Bundled,
// a `kubectl kudo` command takes 0.5–0.75× the CPU and `planwright start` reaches its
// controllers with 0.72× (bench/startup.ts; bench/README.md, "Start-up"). Type checking stays
// tsc's (`npm run typecheck`; `npm run build` runs it on src first).
//
// Code split: what a command imports lazily (`await import(...)`, e.g. client-node's generated
// API for Pipe tasks) stays a chunk of its own that only that command loads, so a bundle loads
// no more than the modules did. Packages whose files are read at run time by path (none today)
// would have to be external.
import { decode, encode } from '@jridgewell/sourcemap-codec';
import { build } from 'esbuild';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Every file Node runs directly: the two CLIs, the render worker, the repository's tools. */
const ENTRY_POINTS = [
  'src/main.ts',
  'src/cli/kubectl-kudo.ts',
  'src/kudo/pool/worker.ts',
  'src/cli/build-controlplane.ts',
  'src/cli/build-image.ts',
];

async function buildDist() {
  const out = join(ROOT, 'dist');
  await rm(out, { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: ENTRY_POINTS,
    outdir: out,
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
    // V8 keeps every loaded module's source text in the heap (for lazy compilation), and the
    // manager's start loads 4.4 MB of it: without the indentation and comments, 3.1 MB, and
    // its heap after loading is 4.5 MB smaller; every command parses less (bench/README.md,
    // "Start-up"). Names are kept (no mangling); the maps still lead frames to TypeScript lines.
    minifyWhitespace: true,
    // CommonJS packages inside an ES module bundle: `require` of Node's built-ins and the few
    // optional dependencies a package tries (and may not find) at run time.
    banner: {
      js: "import { createRequire as __planwrightCreateRequire } from 'node:module'; const require = __planwrightCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  await ownSourcesOnly(out);
}

/**
 * Drops the mappings that lead into node_modules from every source map under `dir`. Node keeps
 * each loaded chunk's map parsed for as long as the process lives: with the packages' mappings
 * the manager held ~4 MiB more than tsc's output did (bench/startup.ts), for stack frames in
 * code that is not ours. Frames there keep the bundle's own file and line.
 */
async function ownSourcesOnly(dir) {
  for (const entry of await readdir(dir, { recursive: true })) {
    if (!entry.endsWith('.js.map')) continue;
    const file = join(dir, entry);
    const map = JSON.parse(await readFile(file, 'utf8'));
    const theirs = map.sources.map((source) => source.includes('node_modules/'));
    const lines = decode(map.mappings).map((segments) =>
      segments.filter((segment) => segment.length === 1 || !theirs[segment[1]]),
    );
    await writeFile(file, JSON.stringify({ ...map, mappings: encode(lines) }));
  }
}

const started = Date.now();
await buildDist();
process.stdout.write(`dist/ built in ${Date.now() - started} ms\n`);
