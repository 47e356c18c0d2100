// Benchmark: parse and render a typical ~3.5 KB KUDO package template (zookeeper's
// statefulset) with parse cached, in Planwright and in the Go oracle on the same machine.
// Not a test. Run from the repo root:
//   node --import ./scripts/register-ts.mjs bench/gotemplate.ts

import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileTemplate } from '../src/gotemplate/index.ts';
import { oracleBinary } from '../test/gotemplate/oracle.ts';
import { decodeTagged } from '../test/gotemplate/tagged.ts';
import { zookeeperStatefulset } from './support/gotemplate-workload.ts';

const { template, data } = zookeeperStatefulset();
const iterations = Number(process.env.ITERATIONS ?? 20000);

function timeUs(n: number, f: () => void): number {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) f();
  return Number(process.hrtime.bigint() - t0) / 1000 / n;
}

const goData = decodeTagged(data);
// Warm up the JIT before measuring.
timeUs(2000, () => compileTemplate('bench', template));
const parseUs = timeUs(iterations / 4, () => compileTemplate('bench', template));
const tpl = compileTemplate('bench', template);
let out = '';
timeUs(2000, () => (out = tpl.execute(goData)));
const renderUs = timeUs(iterations, () => (out = tpl.execute(goData)));

const dir = mkdtempSync(join(tmpdir(), 'pw-bench-'));
const input = join(dir, 'bench.json');
writeFileSync(input, JSON.stringify({ template, data, iterations }));
const r = spawnSync(await oracleBinary(), ['bench', input], { encoding: 'utf8' });
if (r.status !== 0) throw new Error(`oracle bench failed: ${r.stderr}`);
const go = JSON.parse(r.stdout) as {
  parseMicros: number;
  renderMicros: number;
  outputBytes: number;
};

const row = (name: string, ts: number, g: number): string =>
  `| ${name.padEnd(22)} | ${ts.toFixed(1).padStart(10)} | ${g.toFixed(1).padStart(10)} | ${(ts / g).toFixed(2).padStart(6)}x |`;
console.log(
  `template: zookeeper/templates/statefulset.yaml (${template.length} bytes), ${iterations} iterations`,
);
console.log(`output: TS ${out.length} bytes, Go ${go.outputBytes} bytes`);
console.log('| step                   |   TS µs/op |   Go µs/op |  ratio |');
console.log('|------------------------|------------|------------|--------|');
console.log(row('parse', parseUs, go.parseMicros));
console.log(row('render (parse cached)', renderUs, go.renderMicros));
