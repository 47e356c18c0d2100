// What a V8 heap snapshot (.heapsnapshot: Chrome DevTools, node:v8 writeHeapSnapshot, or
// bench/support/heap-sampler.mjs with HEAP_SAMPLER_SNAPSHOT=1) holds: self size and count by
// node type and constructor/name, largest first; given a second snapshot, what changed from
// the first to the second (what a burst of work left alive, for example). Self sizes only:
// no dominator tree, so a Map's entries count under the arrays that back it.
//
// --by-retainer (with two snapshots): the objects of the second that the first did not have
// (by snapshot id), summed by who holds them: the nearest instances of a class on the shortest
// path from the GC roots, with the property they are held under — for example
// `DriftKeeper.baselines › BoundedMap.map` — the last three such hops. A Map's or an array's
// entries count under the class instance holding the Map, which is the answer to "which
// cache is that". Shortest path, not dominator: an object reachable from two holders counts
// under the one nearer to the roots.
//
// Run: node --import ./scripts/register-ts.mjs bench/heapsnapshot-top.ts [--by-retainer] <file> [<later file>] [count=30]
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[]];
      edge_fields: string[];
      edge_types: [string[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

function read(file: string): Snapshot {
  return JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
}

function summarise(snap: Snapshot): Map<string, { size: number; count: number }> {
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

/** Constructors that are containers, not owners: an object under them counts for their holder. */
const CONTAINERS = new Set(['Object', 'Array', 'Map', 'Set', 'WeakMap', 'WeakSet', 'Promise']);

/** Self size of the objects of `later` not in `earlier`, by retainer label (see the header). */
function byRetainer(
  earlier: Snapshot,
  later: Snapshot,
): Map<string, { size: number; count: number }> {
  const meta = later.snapshot.meta;
  const width = meta.node_fields.length;
  const typeAt = meta.node_fields.indexOf('type');
  const nameAt = meta.node_fields.indexOf('name');
  const idAt = meta.node_fields.indexOf('id');
  const sizeAt = meta.node_fields.indexOf('self_size');
  const edgeCountAt = meta.node_fields.indexOf('edge_count');
  const ewidth = meta.edge_fields.length;
  const etypeAt = meta.edge_fields.indexOf('type');
  const enameAt = meta.edge_fields.indexOf('name_or_index');
  const etoAt = meta.edge_fields.indexOf('to_node');
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const weak = edgeTypes.indexOf('weak');
  const shortcut = edgeTypes.indexOf('shortcut');
  const objectType = nodeTypes.indexOf('object');
  const { nodes, edges, strings } = later;
  const count = nodes.length / width;

  const old = new Set<number>();
  const ew = earlier.snapshot.meta.node_fields.length;
  const eid = earlier.snapshot.meta.node_fields.indexOf('id');
  for (let i = 0; i < earlier.nodes.length; i += ew) old.add(earlier.nodes[i + eid] ?? -1);

  const firstEdge = new Uint32Array(count + 1);
  for (let n = 0, e = 0; n < count; n++) {
    firstEdge[n] = e;
    e += (nodes[n * width + edgeCountAt] ?? 0) * ewidth;
  }
  firstEdge[count] = edges.length;

  // Breadth-first from the root (node 0): each node's label is decided by its parent.
  const labels: Array<string | undefined> = new Array<string | undefined>(count);
  labels[0] = '(roots)';
  const queue = new Uint32Array(count);
  let head = 0;
  let tail = 0;
  queue[tail++] = 0;
  while (head < tail) {
    const n = queue[head++] ?? 0;
    const base = n * width;
    const name = strings[nodes[base + nameAt] ?? 0] ?? '?';
    const owner =
      nodes[base + typeAt] === objectType && !CONTAINERS.has(name) && !name.startsWith('system /');
    const label = labels[n] ?? '?';
    for (let e = firstEdge[n] ?? 0; e < (firstEdge[n + 1] ?? 0); e += ewidth) {
      const type = edges[e + etypeAt];
      if (type === weak || type === shortcut) continue;
      const to = (edges[e + etoAt] ?? 0) / width;
      if (labels[to] !== undefined) continue;
      if (owner) {
        const edge = edgeTypes[type ?? 0];
        const nameOrIndex = edges[e + enameAt] ?? 0;
        const prop =
          edge === 'element' || edge === 'hidden' ? `[${nameOrIndex}]` : `.${strings[nameOrIndex]}`;
        const hops = label === '(roots)' ? [] : label.split(' › ').slice(-2);
        labels[to] = [...hops, `${name}${prop}`].join(' › ');
      } else labels[to] = label;
      queue[tail++] = to;
    }
  }
  const out = new Map<string, { size: number; count: number }>();
  for (let n = 0; n < count; n++) {
    const base = n * width;
    if (old.has(nodes[base + idAt] ?? -1)) continue;
    const key = labels[n] ?? '(unreachable)';
    const entry = out.get(key) ?? { size: 0, count: 0 };
    entry.size += nodes[base + sizeAt] ?? 0;
    entry.count += 1;
    out.set(key, entry);
  }
  return out;
}

const args = process.argv.slice(2);
const retainers = args.includes('--by-retainer');
const rest = args.filter((a) => a !== '--by-retainer');
const count = Number(rest.find((a) => /^\d+$/.test(a)) ?? 30);
const [first, second] = rest.filter((a) => !/^\d+$/.test(a));
if (!first)
  throw new Error('usage: heapsnapshot-top.ts [--by-retainer] <file> [<later file>] [count]');
const mb = (b: number): string => (b / 1e6).toFixed(2).padStart(8);
const total = (m: Map<string, { size: number }>): number =>
  [...m.values()].reduce((n, e) => n + e.size, 0);
const snapA = read(first);
const a = summarise(snapA);
console.log(`${first}: ${mb(total(a))} MB`);
if (!second) {
  for (const [k, e] of [...a].sort((x, y) => y[1].size - x[1].size).slice(0, count))
    console.log(`${mb(e.size)} MB ${String(e.count).padStart(8)}  ${k}`);
} else if (retainers) {
  const snapB = read(second);
  const held = byRetainer(snapA, snapB);
  console.log(`${second}: new objects ${mb(total(held))} MB, by retainer:`);
  for (const [k, e] of [...held].sort((x, y) => y[1].size - x[1].size).slice(0, count))
    console.log(`${mb(e.size)} MB ${String(e.count).padStart(8)}  ${k}`);
} else {
  const b = summarise(read(second));
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
