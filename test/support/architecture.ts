// The layer rules of docs/architecture.md (table: docs/layers.json), read off the import graph
// of src/: which layer (and which src/kudo sub-folder) may import which, imports into another
// folder only through its index.ts, and no import cycle between files nor between folders.
// typescript's preProcessFile lists a file's imports without type-checking it, so the whole
// tree is read in well under a second.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * A layer is a top-level folder of src/ (app.ts, installation.ts and main.ts are layers of
 * one file).
 */
export type Layer =
  | 'kube'
  | 'runtime'
  | 'server'
  | 'pki'
  | 'gotemplate'
  | 'installation'
  | 'kudo'
  | 'localcluster'
  | 'cli'
  | 'app';

interface LayerTable {
  /** What each layer must not import. */
  readonly layers: Readonly<Record<Layer, readonly Layer[]>>;
  /** src/kudo's sub-folders, lowest first: a sub-folder imports only those of lower levels. */
  readonly kudoStack: readonly (readonly string[])[];
}

/** The one layer table (docs/layers.json): eslint.config.js reads it too. */
export const LAYER_TABLE_PATH = fileURLToPath(new URL('../../docs/layers.json', import.meta.url));
const TABLE = JSON.parse(readFileSync(LAYER_TABLE_PATH, 'utf8')) as LayerTable;

/** What each layer must not import (docs/architecture.md, "Layers"). */
export const FORBIDDEN: Readonly<Record<Layer, readonly Layer[]>> = TABLE.layers;
export const LAYERS = Object.keys(FORBIDDEN) as Layer[];
/** src/kudo's sub-folders, lowest first. */
export const KUDO_STACK = TABLE.kudoStack;
const KUDO_LEVEL = new Map(KUDO_STACK.flatMap((level, i) => level.map((f) => [f, i] as const)));

export interface ImportEdge {
  /** Both paths relative to src/, with '/' separators. */
  readonly from: string;
  readonly to: string;
}

export interface Violation extends ImportEdge {
  readonly rule: 'direction' | 'index';
}

/** src/kudo's sub-folder of a path (`engine` for `kudo/engine/plan.ts`), else undefined. */
export function kudoFolderOf(path: string): string | undefined {
  const parts = path.split('/');
  return parts[0] === 'kudo' && parts.length > 2 ? parts[1] : undefined;
}

/** The folder a path belongs to: a kudo sub-folder (`kudo/engine`), else its layer. */
export function folderOf(path: string): string {
  const sub = kudoFolderOf(path);
  return sub === undefined ? layerOf(path) : `kudo/${sub}`;
}

export function layerOf(path: string): Layer {
  const first = path.split('/')[0] ?? '';
  if (path === 'app.ts') return 'app';
  if (path === 'installation.ts') return 'installation';
  if (path === 'main.ts') return 'cli';
  return first as Layer;
}

/** The index.ts an import from another folder must go through to reach `target`. */
function entryOf(target: string): string | undefined {
  const parts = target.split('/');
  if (parts.length === 1) return undefined; // app.ts, installation.ts, main.ts: one file each
  const sub = kudoFolderOf(target);
  return sub === undefined ? `${parts[0]}/index.ts` : `kudo/${sub}/index.ts`;
}

/** Every rule an import breaks; empty when it follows them all. */
export function checkEdge(edge: ImportEdge): Violation[] {
  const [from, to] = [folderOf(edge.from), folderOf(edge.to)];
  if (from === to) return [];
  const found: Violation[] = [];
  const [fromSub, toSub] = [kudoFolderOf(edge.from), kudoFolderOf(edge.to)];
  const upward =
    fromSub !== undefined && toSub !== undefined
      ? (KUDO_LEVEL.get(toSub) ?? Infinity) > (KUDO_LEVEL.get(fromSub) ?? -Infinity)
      : FORBIDDEN[layerOf(edge.from)].includes(layerOf(edge.to));
  if (upward) found.push({ ...edge, rule: 'direction' });
  const entry = entryOf(edge.to);
  if (entry !== undefined && edge.to !== entry) found.push({ ...edge, rule: 'index' });
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

/** Import edges between folders ({@link folderOf}), one per pair. */
export function folderGraph(edges: readonly ImportEdge[]): ImportEdge[] {
  const pairs = new Map<string, ImportEdge>();
  for (const e of edges) {
    const [from, to] = [folderOf(e.from), folderOf(e.to)];
    if (from !== to) pairs.set(`${from} ${to}`, { from, to });
  }
  return [...pairs.values()];
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
