// Summary of a V8 .cpuprofile (node --cpu-prof): self time by function and by where the code
// lives (a package under node_modules, a source folder, node's internals), over the samples
// between --from and --to seconds after the profile's start (default: all of it); then the
// samples split by the part of the manager they serve (see `partOf`), and our own functions
// by total (inclusive) time.
//
// Run: node --import ./scripts/register-ts.mjs bench/cpuprofile-top.ts <file> [fromS] [toS]
// ("burst" as fromS: from the first busy second after the startup's first quiet one to the
// last busy second before three quiet ones, i.e. a bench burst without startup and idle).
import { readFileSync } from 'node:fs';
import { codePlace as where, isOurCode } from './support/code-place.ts';
import { SourcePlaces } from './support/source-places.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, fromArg, toArg] = process.argv.slice(2);
if (!file) throw new Error('usage: cpuprofile-top.ts <file.cpuprofile> [fromS|burst] [toS]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
// Frames of the bundle, put back to the source files they came from.
const places = new SourcePlaces();
for (const n of profile.nodes) places.restore(n.callFrame);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const isIdle = (id: number): boolean => byId.get(id)?.callFrame.functionName === '(idle)';

// Busy milliseconds per second of the profile, for the "burst" window.
const busyPerS: number[] = [];
{
  let t = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    const s = Math.floor(t / 1e6);
    busyPerS[s] ??= 0;
    if (!isIdle(profile.samples[i] ?? 0)) busyPerS[s] += (profile.timeDeltas[i + 1] ?? 0) / 1e3;
  }
}
let fromUs = Number(fromArg ?? 0) * 1e6;
let toUs = toArg === undefined ? Infinity : Number(toArg) * 1e6;
if (fromArg === 'burst') {
  // Skip the startup (up to its first quiet second); the burst runs from the next busy second
  // to the last busy one before three quiet seconds in a row (the idle windows).
  const busyAt = (s: number): boolean => (busyPerS[s] ?? 0) > 100;
  const quiet = busyPerS.findIndex((ms) => (ms ?? 0) < 50);
  let first = quiet + 1;
  while (first < busyPerS.length && !busyAt(first)) first++;
  let last = first;
  while (last + 1 < busyPerS.length && [1, 2, 3].some((d) => busyAt(last + d))) last++;
  fromUs = first * 1e6;
  toUs = (last + 1) * 1e6;
  console.log(`burst window: ${first}–${last + 1} s`);
}

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
let busy = 0;
for (const [id, us] of self) if (!isIdle(id)) busy += us;

const fn = new Map<string, number>();
const mod = new Map<string, number>();
const frameKey = (n: ProfileNode): string => {
  const { functionName, url, lineNumber } = n.callFrame;
  return `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist|src)\//, '$1/')}:${lineNumber + 1}`;
};
for (const [id, us] of self) {
  const n = byId.get(id);
  if (!n) continue;
  fn.set(frameKey(n), (fn.get(frameKey(n)) ?? 0) + us);
  const url = n.callFrame.url;
  mod.set(where(url), (mod.get(where(url)) ?? 0) + us);
}
const show = (title: string, m: Map<string, number>, count: number, of = total): void => {
  console.log(`\n${title} (total ${(of / 1e6).toFixed(2)} s sampled)`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, count))
    console.log(
      `${(us / 1e3).toFixed(0).padStart(8)} ms ${((100 * us) / of).toFixed(1).padStart(5)} %  ${k}`,
    );
};
show('self time by place', mod, 30);
show('self time by function', fn, 50);

// The part of the manager a sample serves: the leaf-most frame of ours (dist/ or src/) decides,
// so node's HTTP/TLS code under our client counts as the client, yaml under render as render.
// Samples without a frame of ours (GC, socket reads, timers) go by their leaf's place.
const PARTS: [RegExp, string][] = [
  [/\/(server\/admission|kudo\/admission)\//, 'admission'],
  [/\/server\//, 'https server (health, metrics, routes)'],
  [/\/kube\/(client|config)\./, 'kube client (HTTPS requests)'],
  [/\/kube\/apply\./, 'kube apply (SSA body, compare)'],
  [/\/runtime\/events\./, 'events'],
  [/\/runtime\/(watcher|cache|store|cache-registry)\./, 'watch (parse, cache)'],
  [/\/runtime\/(workqueue|controller)\./, 'controller, queue'],
  [/\/runtime\/(metrics|process-metrics)\.|prom-client/, 'metrics'],
  [/\/runtime\//, 'runtime (other)'],
  [/\/kudo\/render\/|\/gotemplate\//, 'render'],
  [/\/kudo\/tasks\//, 'tasks (apply, hash)'],
  [/\/kudo\/inventory\//, 'inventory (drift, policy)'],
  [/\/kudo\/engine\/status\./, 'status building'],
  [/\/kudo\/engine\/|\/kudo\/controller\//, 'engine, pass'],
  [/\/kudo\//, 'kudo (other)'],
  [/\/(log|logging)\b|pino/, 'logging'],
];
const ours = isOurCode;
const parts = new Map<string, number>();
const orphans = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, us] of self) {
  if (isIdle(id)) continue;
  let part: string | undefined;
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const n = byId.get(cur);
    if (!n) break;
    const url = n.callFrame.url;
    if (ours(url)) {
      seen.add(frameKey(n));
      part ??= PARTS.find(([re]) => re.test(url))?.[1] ?? `other ours: ${where(url)}`;
    }
  }
  for (const k of seen) inclusive.set(k, (inclusive.get(k) ?? 0) + us);
  if (part === undefined) {
    const n = byId.get(id);
    const leaf = n?.callFrame.functionName.startsWith('(')
      ? n.callFrame.functionName
      : where(n?.callFrame.url ?? '') === '(native/vm)'
        ? `${n?.callFrame.functionName} (native)`
        : where(n?.callFrame.url ?? '');
    part = `no frame of ours: ${leaf}`;
    orphans.set(leaf, (orphans.get(leaf) ?? 0) + us);
  }
  parts.set(part, (parts.get(part) ?? 0) + us);
}
show('busy time by part of the manager (leaf-most frame of ours)', parts, 40, busy);
show('our functions by total (inclusive) time', inclusive, 60, busy);
