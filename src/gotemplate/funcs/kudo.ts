// The function map KUDO's renderer uses: sprig's TxtFuncMap minus the functions that
// would read the controller's environment or filesystem paths, plus toYaml.

import type { FuncDef } from '../values.js';

const modules: ReadonlyMap<string, FuncDef>[] = [];

/** Removed by KUDO (kudo/pkg/engine/renderer.New). */
export const kudoRemoved: readonly string[] = ['env', 'expandenv', 'base', 'dir', 'clean', 'ext', 'isAbs'];

function build(): Map<string, FuncDef> {
  const m = new Map<string, FuncDef>();
  for (const mod of modules) for (const [k, v] of mod) m.set(k, v);
  for (const k of kudoRemoved) m.delete(k);
  return m;
}

export const kudoFuncs: ReadonlyMap<string, FuncDef> = build();

export function kudoFuncNames(): string[] {
  return [...kudoFuncs.keys()].sort();
}
