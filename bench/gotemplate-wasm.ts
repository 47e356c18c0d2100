// Benchmark for the design question "run KUDO's own renderer compiled to WebAssembly instead
// of the TypeScript engine": the KUDO oracle (Go text/template + sprig v2.22, the pins of
// test/gotemplate/kudo-oracle) built for GOOS=wasip1, run in Node's WASI on the same
// workload as bench/gotemplate.ts. Prints the module size, compile and instantiate times and
// µs per parse and per render inside the module, next to the TypeScript engine's. Not a test.
// Run from the repo root (the wasm build takes minutes; WASM=path reuses one):
//   node --import ./scripts/register-ts.mjs bench/gotemplate-wasm.ts

import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { WASI } from 'node:wasi';
import { compileTemplate } from '../src/gotemplate/index.ts';
import { here } from '../test/gotemplate/oracle.ts';
import { decodeTagged } from '../test/gotemplate/tagged.ts';
import { zookeeperStatefulset } from './support/gotemplate-workload.ts';

const dir = mkdtempSync(join(tmpdir(), 'gotemplate-wasm-'));
let wasmPath = process.env['WASM'];
if (!wasmPath) {
  wasmPath = join(dir, 'kudo-oracle.wasm');
  const b = spawnSync('go', ['build', '-trimpath', '-o', wasmPath, '.'], {
    cwd: join(here, 'kudo-oracle'),
    env: { ...process.env, GOOS: 'wasip1', GOARCH: 'wasm', GOTOOLCHAIN: 'local' },
    encoding: 'utf8',
  });
  if (b.status !== 0) throw new Error(`wasm build failed: ${b.stderr}`);
}

const { template, data } = zookeeperStatefulset();
const iterations = Number(process.env['ITERATIONS'] ?? 2000);
writeFileSync(join(dir, 'bench.json'), JSON.stringify({ template, data, iterations }));

/** The part of the WebAssembly global this uses (the project's lib settings omit it). */
interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: object): Promise<object>;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

const bytes = readFileSync(wasmPath);
let t = performance.now();
const module = await wasm.compile(bytes);
const compileMs = performance.now() - t;

const outPath = join(dir, 'out.json');
const out = openSync(outPath, 'w');
const wasi = new WASI({
  version: 'preview1',
  args: ['oracle', 'bench', '/work/bench.json'],
  preopens: { '/work': dir },
  stdout: out,
});
t = performance.now();
const instance = await wasm.instantiate(module, wasi.getImportObject());
const instantiateMs = performance.now() - t;
const rssBefore = process.memoryUsage().rss;
wasi.start(instance);
const rssAfter = process.memoryUsage().rss;
closeSync(out);
const go = JSON.parse(readFileSync(outPath, 'utf8')) as {
  parseMicros: number;
  renderMicros: number;
};

const timeUs = (n: number, f: () => void): number => {
  f();
  const s = performance.now();
  for (let i = 0; i < n; i++) f();
  return ((performance.now() - s) * 1000) / n;
};
const goData = decodeTagged(data);
const tsParse = timeUs(iterations / 4, () => compileTemplate('bench', template));
const tpl = compileTemplate('bench', template);
const tsRender = timeUs(iterations, () => tpl.execute(goData));

console.log(`module: ${(statSync(wasmPath).size / 1e6).toFixed(1)} MB (${wasmPath})`);
console.log(`compile ${compileMs.toFixed(0)} ms, instantiate ${instantiateMs.toFixed(1)} ms`);
console.log(`RSS grew ${((rssAfter - rssBefore) / 1e6).toFixed(0)} MB while the module ran`);
console.log('| step                   | TS µs/op | wasm µs/op | wasm/TS |');
console.log('|------------------------|----------|------------|---------|');
const row = (name: string, ts: number, w: number): string =>
  `| ${name.padEnd(22)} | ${ts.toFixed(1).padStart(8)} | ${w.toFixed(1).padStart(10)} | ${(w / ts).toFixed(2).padStart(6)}x |`;
console.log(row('parse', tsParse, go.parseMicros));
console.log(row('render (parse cached)', tsRender, go.renderMicros));
