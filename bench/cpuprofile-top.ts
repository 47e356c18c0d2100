// Summary of a V8 .cpuprofile (node --cpu-prof): self time by function and by where the code
// lives (a package under node_modules, a source folder, node's internals), over the samples
// between --from and --to seconds after the profile's start (default: all of it).
//
// Run: node --import ./scripts/register-ts.mjs bench/cpuprofile-top.ts <file> [fromS] [toS]
import { readFileSync } from 'node:fs';
import { codePlace as where } from './support/code-place.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, fromArg, toArg] = process.argv.slice(2);
if (!file) throw new Error('usage: cpuprofile-top.ts <file.cpuprofile> [fromS] [toS]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const fromUs = Number(fromArg ?? 0) * 1e6;
const toUs = toArg === undefined ? Infinity : Number(toArg) * 1e6;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
let t = 0;
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i] ?? 0;
  if (t < fromUs || t > toUs) continue;
  const dt = profile.timeDeltas[i + 1] ?? 0;
  const id = profile.samples[i] ?? 0;
  self.set(id, (self.get(id) ?? 0) + dt);
  total += dt;
}

const fn = new Map<string, number>();
const mod = new Map<string, number>();
for (const [id, us] of self) {
  const n = byId.get(id);
  if (!n) continue;
  const { functionName, url, lineNumber } = n.callFrame;
  const key = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist|src)\//, '$1/')}:${lineNumber + 1}`;
  fn.set(key, (fn.get(key) ?? 0) + us);
  mod.set(where(url), (mod.get(where(url)) ?? 0) + us);
}
const show = (title: string, m: Map<string, number>, count: number): void => {
  console.log(`\n${title} (total ${(total / 1e6).toFixed(2)} s sampled)`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, count))
    console.log(
      `${(us / 1e3).toFixed(0).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`,
    );
};
show('self time by place', mod, 30);
show('self time by function', fn, 50);
