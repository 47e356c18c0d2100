// What a V8 heap snapshot (.heapsnapshot: Chrome DevTools, node:v8 writeHeapSnapshot, or
// bench/support/heap-sampler.mjs with HEAP_SAMPLER_SNAPSHOT=1) holds: self size and count by
// node type and constructor/name, largest first; given a second snapshot, what changed from
// the first to the second (what a burst of work left alive, for example). Self sizes only:
// no dominator tree, so a Map's entries count under the arrays that back it.
//
// Run: node --import ./scripts/register-ts.mjs bench/heapsnapshot-top.ts <file> [<later file>] [count=30]
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

function summarise(file: string): Map<string, { size: number; count: number }> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = snap.snapshot.meta.node_types[0];
  const out = new Map<string, { size: number; count: number }>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt] ?? 0] ?? '?';
    let name = snap.strings[snap.nodes[i + nameAt] ?? 0] ?? '?';
    // Strings and code by kind, not by their text.
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') name = '';
    else if (name.length > 60) name = `${name.slice(0, 57)}...`;
    const key = `${type}${name ? ` ${name}` : ''}`;
    const entry = out.get(key) ?? { size: 0, count: 0 };
    entry.size += snap.nodes[i + sizeAt] ?? 0;
    entry.count += 1;
    out.set(key, entry);
  }
  return out;
}

const args = process.argv.slice(2);
const count = Number(args.find((a) => /^\d+$/.test(a)) ?? 30);
const [first, second] = args.filter((a) => !/^\d+$/.test(a));
if (!first) throw new Error('usage: heapsnapshot-top.ts <file> [<later file>] [count]');
const a = summarise(first);
const total = (m: Map<string, { size: number }>): number =>
  [...m.values()].reduce((n, e) => n + e.size, 0);
const mb = (b: number): string => (b / 1e6).toFixed(2).padStart(8);
console.log(`${first}: ${mb(total(a))} MB`);
if (!second) {
  for (const [k, e] of [...a].sort((x, y) => y[1].size - x[1].size).slice(0, count))
    console.log(`${mb(e.size)} MB ${String(e.count).padStart(8)}  ${k}`);
} else {
  const b = summarise(second);
  console.log(`${second}: ${mb(total(b))} MB (${mb(total(b) - total(a))} MB)`);
  const keys = new Set([...a.keys(), ...b.keys()]);
  const diff = [...keys].map((k) => {
    const x = a.get(k) ?? { size: 0, count: 0 };
    const y = b.get(k) ?? { size: 0, count: 0 };
    return [k, y.size - x.size, y.count - x.count] as const;
  });
  for (const [k, size, n] of diff.sort((x, y) => Math.abs(y[1]) - Math.abs(x[1])).slice(0, count))
    console.log(`${mb(size)} MB ${String(n).padStart(8)}  ${k}`);
}
