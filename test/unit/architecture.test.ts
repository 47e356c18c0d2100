// docs/architecture.md's layer table (docs/layers.json) holds for every file of src/: imports
// point down, reach another folder only through its index.ts, and never form a circle —
// neither between files nor between folders.
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  FORBIDDEN,
  KUDO_STACK,
  LAYERS,
  checkEdge,
  folderGraph,
  importCycles,
  importGraph,
  type Layer,
} from '../support/architecture.ts';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const DOC = fileURLToPath(new URL('../../docs/architecture.md', import.meta.url));

describe('the layer rules', () => {
  it('a downward import through index.ts passes; upward or past index.ts is named', () => {
    expect(checkEdge({ from: 'kudo/tasks/apply.ts', to: 'kube/index.ts' })).toEqual([]);
    expect(checkEdge({ from: 'kudo/tasks/apply.ts', to: 'kudo/tasks/objects.ts' })).toEqual([]);
    expect(checkEdge({ from: 'kudo/tasks/apply.ts', to: 'kudo/render/index.ts' })).toEqual([]);
    expect(checkEdge({ from: 'cli/start.ts', to: 'app.ts' })).toEqual([]);
    expect(checkEdge({ from: 'kudo/tasks/apply.ts', to: 'kube/apply.ts' })).toEqual([
      { from: 'kudo/tasks/apply.ts', to: 'kube/apply.ts', rule: 'index' },
    ]);
    expect(checkEdge({ from: 'cli/install.ts', to: 'kudo/api/types.ts' })).toEqual([
      { from: 'cli/install.ts', to: 'kudo/api/types.ts', rule: 'index' },
    ]);
    expect(checkEdge({ from: 'kube/client.ts', to: 'runtime/index.ts' })).toEqual([
      { from: 'kube/client.ts', to: 'runtime/index.ts', rule: 'direction' },
    ]);
    expect(checkEdge({ from: 'app.ts', to: 'cli/start.ts' }).map((v) => v.rule)).toEqual([
      'direction',
      'index',
    ]);
  });

  it('inside src/kudo, a sub-folder imports lower sub-folders only, through their index.ts', () => {
    expect(checkEdge({ from: 'kudo/tasks/apply.ts', to: 'kudo/render/objects.ts' })).toEqual([
      { from: 'kudo/tasks/apply.ts', to: 'kudo/render/objects.ts', rule: 'index' },
    ]);
    expect(checkEdge({ from: 'kudo/engine/plan.ts', to: 'kudo/tasks/pipe/index.ts' })).toEqual([
      { from: 'kudo/engine/plan.ts', to: 'kudo/tasks/pipe/index.ts', rule: 'index' },
    ]);
    expect(checkEdge({ from: 'kudo/engine/plan.ts', to: 'kudo/admission/index.ts' })).toEqual([
      { from: 'kudo/engine/plan.ts', to: 'kudo/admission/index.ts', rule: 'direction' },
    ]);
    expect(checkEdge({ from: 'kudo/nowhere/a.ts', to: 'kudo/api/index.ts' })).toEqual([
      { from: 'kudo/nowhere/a.ts', to: 'kudo/api/index.ts', rule: 'direction' },
    ]);
  });

  it('finds an import circle', () => {
    const circle = importCycles([
      { from: 'a.ts', to: 'b.ts' },
      { from: 'b.ts', to: 'c.ts' },
      { from: 'c.ts', to: 'a.ts' },
      { from: 'c.ts', to: 'd.ts' },
    ]);
    expect(circle).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('finds a circle between folders that no two files close', () => {
    const edges = folderGraph([
      { from: 'kudo/render/templates.ts', to: 'kudo/package/index.ts' },
      { from: 'kudo/package/verify.ts', to: 'kudo/render/index.ts' },
      { from: 'kudo/render/index.ts', to: 'kudo/render/templates.ts' },
    ]);
    expect(importCycles([...edges])).toEqual([['kudo/package', 'kudo/render']]);
  });

  const graph = importGraph(SRC);

  it('reads the whole tree', () => {
    expect(graph.length).toBeGreaterThan(500);
    expect(graph).toContainEqual({ from: 'app.ts', to: 'runtime/index.ts' });
  });

  it('every import of src/ follows the layer table and goes through index.ts', () => {
    expect(graph.flatMap(checkEdge)).toEqual([]);
  });

  it('src/ has no import circle between files (type imports included)', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('src/ has no import circle between folders (src/kudo sub-folders count as folders)', () => {
    expect(importCycles(folderGraph(graph))).toEqual([]);
  });

  it('every src/kudo sub-folder has a level in the table', () => {
    const folders = readdirSync(`${SRC}/kudo`, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(KUDO_STACK.flat().sort()).toEqual(folders);
  });
});

/** The rows of the markdown table that follows `heading` in docs/architecture.md. */
function docTable(heading: string): string[][] {
  const text = readFileSync(DOC, 'utf8');
  const from = text.indexOf(heading);
  expect(from).toBeGreaterThanOrEqual(0);
  const lines = text.slice(from).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

describe('docs/architecture.md shows the same table', () => {
  const named = (l: Layer): string => (l === 'app' || l === 'installation' ? `${l}.ts` : l);

  it('layers: the "must not import" column says what docs/layers.json says', () => {
    const expected = (layer: Layer): string => {
      const forbidden = FORBIDDEN[layer];
      if (forbidden.length === 0) return '—';
      if (forbidden.length === LAYERS.length - 1) return 'every other layer';
      return forbidden.map(named).join(', ');
    };
    const rows = docTable('| folder | what it holds | must not import |');
    const shown = rows.map(([folder = '', , forbidden = '']) => {
      const first = /`src\/([a-z]+)(\/|\.ts)`/.exec(folder)?.[1] as Layer;
      return [first, forbidden];
    });
    expect(shown).toEqual(LAYERS.map((l) => [l, expected(l)]));
  });

  it('src/kudo: the sub-folder levels are the table of docs/layers.json', () => {
    const rows = docTable('| level | sub-folders of `src/kudo/` |');
    expect(rows.map(([level, folders = '']) => [Number(level), folders])).toEqual(
      KUDO_STACK.map((names, i) => [i + 1, names.map((n) => `\`${n}/\``).join(', ')]),
    );
  });
});
