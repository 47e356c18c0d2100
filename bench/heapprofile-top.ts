// Summary of a V8 sampling heap profile (.heapprofile: Chrome DevTools, node --heap-prof, or
// bench/support/heap-sampler.mjs, which also counts what garbage collection already freed):
// bytes allocated by function (self), by where the code lives, and by the first frame of the
// project's own code on the stack (which of our call sites caused the allocation, wherever in
// node or a library it happened), each with its share.
//
// Run: node --import ./scripts/register-ts.mjs bench/heapprofile-top.ts <file> [count=30] [perN]
// perN: also print bytes per unit (e.g. 1000 for per Instance at N=1000).
import { readFileSync } from 'node:fs';
import { codePlace as where, isOurCode } from './support/code-place.ts';
import { SourcePlaces } from './support/source-places.ts';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: HeapNode[];
}

const [file, countArg, perArg] = process.argv.slice(2);
if (!file) throw new Error('usage: heapprofile-top.ts <file.heapprofile> [count] [perN]');
const count = Number(countArg ?? 30);
const per = perArg === undefined ? 0 : Number(perArg);
const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode };

const short = (url: string): string => url.replace(/^.*\/(node_modules|dist|src)\//, '$1/');
const frame = (n: HeapNode): string =>
  `${n.callFrame.functionName || '(anonymous)'} ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
const ours = isOurCode;

const byFn = new Map<string, number>();
const byPlace = new Map<string, number>();
const byOurs = new Map<string, number>();
let total = 0;
const add = (m: Map<string, number>, k: string, v: number): void => {
  m.set(k, (m.get(k) ?? 0) + v);
};
// Frames of the bundle, put back to the source files they came from.
const places = new SourcePlaces();
// Walk with the innermost frame of our own code seen on the way down.
const stack: [HeapNode, string][] = [[head, '(not our code)']];
while (stack.length > 0) {
  const [n, site] = stack.pop() as [HeapNode, string];
  places.restore(n.callFrame);
  const here = ours(n.callFrame.url) ? frame(n) : site;
  if (n.selfSize > 0) {
    total += n.selfSize;
    add(byFn, frame(n), n.selfSize);
    add(byPlace, where(n.callFrame.url), n.selfSize);
    add(byOurs, here, n.selfSize);
  }
  for (const c of n.children) stack.push([c, here]);
}
const show = (title: string, m: Map<string, number>): void => {
  console.log(`\n${title} (total ${(total / 1e6).toFixed(1)} MB sampled)`);
  for (const [k, b] of [...m].sort((a, b) => b[1] - a[1]).slice(0, count))
    console.log(
      `${(b / 1e6).toFixed(1).padStart(8)} MB ${((100 * b) / total).toFixed(1).padStart(5)} %${per > 0 ? ` ${(b / per / 1e3).toFixed(1).padStart(7)} kB/unit` : ''}  ${k}`,
    );
};
show('allocated by place', byPlace);
show('allocated by function (self)', byFn);
show('allocated by our innermost frame on the stack', byOurs);
