// ARCHITECTURE.md's layer table holds for every file of src/: imports point down, cross a
// layer only through its index.ts, and never form a circle.
import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { checkEdge, importCycles, importGraph } from '../support/architecture.ts';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

describe('the layer rules', () => {
  it('a downward import through index.ts passes; upward or past index.ts is named', () => {
    expect(checkEdge({ from: 'kudo/tasks/apply.ts', to: 'kube/index.ts' })).toEqual([]);
    expect(checkEdge({ from: 'kudo/tasks/apply.ts', to: 'kudo/render/objects.ts' })).toEqual([]);
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

  it('finds an import circle', () => {
    const circle = importCycles([
      { from: 'a.ts', to: 'b.ts' },
      { from: 'b.ts', to: 'c.ts' },
      { from: 'c.ts', to: 'a.ts' },
      { from: 'c.ts', to: 'd.ts' },
    ]);
    expect(circle).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  const graph = importGraph(SRC);

  it('reads the whole tree', () => {
    expect(graph.length).toBeGreaterThan(500);
    expect(graph).toContainEqual({ from: 'app.ts', to: 'runtime/index.ts' });
  });

  it('every import of src/ follows the layer table and goes through index.ts', () => {
    expect(graph.flatMap(checkEdge)).toEqual([]);
  });

  it('src/ has no import circle (type imports included)', () => {
    expect(importCycles(graph)).toEqual([]);
  });
});
