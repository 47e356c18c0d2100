// The layer rules of ARCHITECTURE.md, read off the import graph of src/: which layer may import
// which, imports across layers only through the target layer's index.ts, and no import cycle.
// typescript's preProcessFile lists a file's imports without type-checking it, so the whole
// tree is read in well under a second.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** A layer is a top-level folder of src/ (kudo's sub-folders each have their own index.ts). */
export type Layer =
  'kube' | 'runtime' | 'server' | 'pki' | 'gotemplate' | 'kudo' | 'localcluster' | 'cli' | 'app';

/** What each layer must not import (ARCHITECTURE.md, "Layers and the rule between them"). */
export const FORBIDDEN: Readonly<Record<Layer, readonly Layer[]>> = {
  kube: ['runtime', 'server', 'kudo', 'localcluster', 'cli', 'app'],
  runtime: ['server', 'kudo', 'localcluster', 'cli', 'app'],
  server: ['kudo', 'localcluster', 'cli', 'app'],
  pki: ['kube', 'runtime', 'server', 'gotemplate', 'kudo', 'localcluster', 'cli', 'app'],
  gotemplate: ['kube', 'runtime', 'server', 'pki', 'kudo', 'localcluster', 'cli', 'app'],
  kudo: ['localcluster', 'cli', 'app'],
  localcluster: ['kudo', 'cli', 'app'],
  app: ['cli'],
  cli: [],
};

export interface ImportEdge {
  /** Both paths relative to src/, with '/' separators. */
  readonly from: string;
  readonly to: string;
}

export interface Violation extends ImportEdge {
  readonly rule: 'direction' | 'index';
}

export function layerOf(path: string): Layer {
  const first = path.split('/')[0] ?? '';
  if (path === 'app.ts') return 'app';
  if (path === 'main.ts') return 'cli';
  return first as Layer;
}

/** The index.ts that imports from outside `layer` must go through to reach `target`. */
function entryOf(target: string): string | undefined {
  const parts = target.split('/');
  if (parts.length === 1) return undefined; // app.ts, main.ts: a layer of one file
  if (parts[0] === 'kudo') return parts.length > 2 ? `kudo/${parts[1]}/index.ts` : undefined;
  return `${parts[0]}/index.ts`;
}

/** Every rule an import breaks; empty when it follows them all. */
export function checkEdge(edge: ImportEdge): Violation[] {
  const from = layerOf(edge.from);
  const to = layerOf(edge.to);
  if (from === to) return [];
  const found: Violation[] = [];
  if (FORBIDDEN[from].includes(to)) found.push({ ...edge, rule: 'direction' });
  const entry = entryOf(edge.to);
  // kudo's sub-layers may expose a nested part through its own index.ts (render/pool/).
  const throughIndex = edge.to === entry || (to === 'kudo' && edge.to.endsWith('/index.ts'));
  if (entry !== undefined && !throughIndex) found.push({ ...edge, rule: 'index' });
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

/** The relative imports (value and type) of every .ts file under `srcDir`. */
export function importGraph(srcDir: string): ImportEdge[] {
  const root = resolve(srcDir);
  const toRel = (abs: string): string => relative(root, abs).split(sep).join('/');
  return sourceFiles(root).flatMap((file) => {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    return info.importedFiles
      .map((f) => f.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => ({ from: toRel(file), to: toRel(resolve(dirname(file), name)) }));
  });
}

/** Strongly connected groups of more than one file (Tarjan): each is an import circle. */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (;;) {
      const w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
      if (w === v) break;
    }
    if (group.length > 1) cycles.push(group.sort());
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return cycles;
}
