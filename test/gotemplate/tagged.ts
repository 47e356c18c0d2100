// The corpus's data encoding, mirrored from oracle/main.go's decode: plain JSON means what
// encoding/json makes of it (numbers are float64); single-key {"$int": 3}-style objects
// produce the other Go types a template can observe.

import { FuncError, GoFunc, GoInt, GoMap, GoSlice } from '../../src/gotemplate/index.ts';
import type { FuncDef, GoValue } from '../../src/gotemplate/index.ts';
import { sprint } from '../../src/gotemplate/fmt.ts';

const testFuncs: Record<string, [string, FuncDef]> = {
  add: [
    'func(int, int) int',
    {
      params: ['int', 'int'],
      impl: (a) => new GoInt('int', (a[0] as GoInt).v + (a[1] as GoInt).v),
    },
  ],
  greet: ['func(string) string', { params: ['string'], impl: (a) => `hello ${a[0] as string}` }],
  fail: [
    'func() (string, error)',
    {
      params: [],
      impl: () => {
        throw new FuncError('boom');
      },
    },
  ],
  pair: [
    'func(string, ...int) string',
    {
      params: ['string'],
      variadic: 'int',
      impl: (a) =>
        sprint([
          a[0] ?? null,
          new GoSlice(
            'int',
            a.slice(1).map((x) => x ?? null),
          ),
        ]),
    },
  ],
};

export function decodeTagged(x: unknown): GoValue {
  if (x === null || x === undefined) return null;
  if (Array.isArray(x)) return new GoSlice('interface {}', x.map(decodeTagged));
  if (typeof x === 'object') {
    const entries = Object.entries(x as Record<string, unknown>);
    if (entries.length === 1) {
      const [k, v] = entries[0]!;
      switch (k) {
        case '$int':
          return new GoInt('int', BigInt(Math.trunc(v as number)));
        case '$int64':
          return new GoInt('int64', BigInt(Math.trunc(v as number)));
        case '$int32':
          return new GoInt('int32', BigInt(Math.trunc(v as number)));
        case '$uint8':
          return new GoInt('uint8', BigInt(Math.trunc(v as number)));
        case '$float':
          return v as number;
        case '$strmap':
          return new GoMap('string', new Map(Object.entries(v as Record<string, string>)));
        case '$strlist':
          return new GoSlice('string', v as string[]);
        case '$intlist':
          return new GoSlice(
            'int',
            (v as number[]).map((n) => new GoInt('int', BigInt(n))),
          );
        case '$nillist':
          return new GoSlice('interface {}', [], true);
        case '$nilmap':
          return new GoMap('interface {}', new Map(), true);
        case '$func': {
          const f = testFuncs[v as string];
          if (!f) throw new Error(`unknown test func ${String(v)}`);
          return new GoFunc(f[0], f[1]);
        }
      }
    }
    return new GoMap('interface {}', new Map(entries.map(([k, v]) => [k, decodeTagged(v)])));
  }
  return x as string | number | boolean;
}
