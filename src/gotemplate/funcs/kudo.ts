// The function map KUDO's renderer uses: sprig's TxtFuncMap minus the functions that
// would read the controller's environment or filesystem paths, plus toYaml. Functions not
// implemented here are simply absent, so templates using them fail to parse with Go's
// `function "x" not defined` instead of rendering something wrong.

import type { FuncDef } from '../values.ts';
import { sprigDates } from './sprig-dates.ts';
import { sprigDefaults } from './sprig-defaults.ts';
import { sprigDicts } from './sprig-dicts.ts';
import { sprigEncoding } from './sprig-encoding.ts';
import { sprigLists } from './sprig-lists.ts';
import { sprigMath } from './sprig-math.ts';
import { sprigRegex } from './sprig-regex.ts';
import { sprigSemver } from './sprig-semver.ts';
import { sprigStrings } from './sprig-strings.ts';
import { yamlFuncs } from './yaml.ts';

const modules: ReadonlyMap<string, FuncDef>[] = [
  sprigStrings,
  sprigMath,
  sprigLists,
  sprigDicts,
  sprigDefaults,
  sprigEncoding,
  sprigRegex,
  sprigSemver,
  sprigDates,
  yamlFuncs,
];

/** Removed by KUDO (kudo/pkg/engine/renderer.New). */
export const kudoRemoved: readonly string[] = [
  'env',
  'expandenv',
  'base',
  'dir',
  'clean',
  'ext',
  'isAbs',
];

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
