// The dependencies hash is an MD5 over go-yaml v2's text, so Planwright's serializer must
// write exactly what go-yaml writes. Every object below — a table of the places where
// go-yaml's choices are subtle, then a few hundred generated ones — goes through the Go
// oracle (gopkg.in/yaml.v2 v2.3.0, KUDO 0.19's version) and through goYamlMarshal; texts must
// be identical.
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  goYamlMarshal,
  hashSourceText,
  type GoYamlValue,
} from '../../src/kudo/tasks/dependencies-hash/index.ts';
import { goYamlKeyLess } from '../../src/kudo/tasks/dependencies-hash/index.ts';
import { runYamlOracle } from './yaml-oracle.ts';

/**
 * Whether go-yaml's key comparison orders `keys` consistently (transitively). For some sets
 * mixing digit runs and letters it does not, and go-yaml's output then depends on Go's random
 * map order: no single text is right, so such sets are left out of the comparison.
 */
function consistentOrder(keys: readonly string[]): boolean {
  const less = keys.map((a) => keys.map((b) => goYamlKeyLess(a, b)));
  const n = keys.length;
  for (let a = 0; a < n; a++)
    for (let b = 0; b < n; b++) {
      if (!less[a]?.[b]) continue;
      for (let c = 0; c < n; c++) if (less[b]?.[c] && !less[a]?.[c]) return false;
    }
  return true;
}

function consistentEverywhere(value: GoYamlValue): boolean {
  if (Array.isArray(value)) return (value as GoYamlValue[]).every(consistentEverywhere);
  if (value === null || typeof value !== 'object') return true;
  const map = value as Record<string, GoYamlValue>;
  return consistentOrder(Object.keys(map)) && Object.values(map).every(consistentEverywhere);
}

const STRINGS: readonly string[] = [
  // YAML 1.1 words and numbers go-yaml quotes
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'n', 'N', 'no', 'NO', 'on', 'On', 'off', 'OFF'],
  ...['true', 'True', 'TRUE', 'false', 'null', 'Null', '~', '', 'yEs', 'nulls', 'o'],
  ...['.nan', '.NaN', '.inf', '+.inf', '-.Inf', '.Infinity', '.5', '.', '.e1', '._5', '.5_5'],
  ...['1', '-1', '+1', '0', '00', '08', '017', '0o17', '0O17', '0x1F', '0X1f', '0x', '0b101'],
  ...['-0b101', '0b102', '1_000', '_1', '1__0', '1e3', '1E3', '1e', '1e400', '-1e400', '1.'],
  ...['1.5', '1.5.5', '+.5', '-.5e-3', '9223372036854775807', '9223372036854775808'],
  ...['18446744073709551615', '18446744073709551616', '-9223372036854775809', '0x_1F'],
  ...['1:20', '1:20:30.5', '-1:20', '1:60', '190:20:30', '12:3', 'a:1', '1_0:20'],
  ...['2001-12-14', '2001-1-2', '2001-12-14t21:59:43.10-05:00', '2001-12-14T21:59:43Z'],
  ...['2001-12-14 21:59:43.10', '2001-12-14 21:59:43.10 -5', '2001-12-14T21:59:43.10'],
  ...['2001-13-14', '2001-02-29', '2000-02-29', '2001-12-14T25:00:00Z', '201-12-14', '2001-12'],
  ...['2001-12-14T21:59:43+25:00', '2001-12-14T1:2:3+01:00', '2001-12-14T21:59:43,5Z'],
  // indicators at the start and inside
  ...['- a', '-a', '-', '--', '---', '--- x', '...', '....', '? x', '?x', '?', ': x', ':x'],
  ...[':', 'a: b', 'a:b', 'a:', 'a #b', 'a#b', '#x', '&x', '*x', '!x', '|x', '>x', "'x"],
  ...['"x', '%x', '@x', '`x', '[x', ']x', '{x', '}x', ',x', 'x,y', 'x[0]', 'x{}', 'a?b'],
  ...['<<', '=', 'x=y', 'http://example.com/a?b=c#d', '/tmp/index.html', 'key: value # c'],
  // spaces and line breaks
  ...[' x', 'x ', 'a  b', ' ', '  ', 'a\nb', 'a\n', 'a\n\n', 'a\n\n\n', '\na', '\n', '\n\n'],
  ...[' a\nb', 'a \nb', 'a\n b', 'a\n\nb', '  indented\nlines\n', 'a\r\nb', 'a\rb'],
  ...['line one\nline two\n  indented\n', 'trailing space \n', '\ttab first', 'a\tb'],
  // literal blocks whose text starts with a line break or spaces: `|2`, `|2-`, `|2+`
  ...['\n\nx', '\nx\n', '\nx\n\n', '  x\ny', '   x\n', ' \nx', '\n x', '\n\t', '\u2028x\n'],
  // non-ASCII, controls, escapes
  ...['é', '日本語', '😀', 'a😀b', '\u00a0', 'x\u00a0', '\ufeffx', 'x\ufeff', '\u0007', '\u001b'],
  ...['\u0085', 'a\u2028b', 'a\u2029', '\u2028', '\\', 'a\\b', '"quoted"', "it's", "'", '"'],
  ...['\u0000', 'a\u0000b', '\u007f', '\u0080', '\u009f', '\ufffd', '\ufffe', '\ud7ff'],
  ...['\ue000', 'ÿ', 'Ā', '\u0100', 'mixed 日本 and "quotes"\nsecond line'],
];

/** Key sets go-yaml orders consistently (see consistentOrder), each a map of its own. */
const KEY_SETS: readonly (readonly string[])[] = [
  ['a10', 'a9', 'a1', 'a01', 'a001', 'a0', 'a00', 'B', 'b', '_x', 'ab', 'a', 'é', 'Z', 'z'],
  ['1', '10', '2', '01', '0', '00', '000', '123', '9z', '-', '.', '#', ' ', ''],
  ['a.b', 'a-b', 'a_b', 'A1b', 'a1b', 'a1B', 'x9y', 'x10y', 'x09y', 'a0b', 'a00b'],
  ['kudo.dev/instance', 'heritage', 'kudo.dev/operator', 'app.kubernetes.io/name', '日本'],
  ['1a', '1b', '10a', 'a1', 'a١', 'a٢', 'true', 'yes', 'null', '1:20', 'x y', '- x', 'a: b'],
  ['file1.conf', 'file2.conf', 'file10.conf', 'file01.conf', 'File3.conf', 'file-a.conf'],
  // Characters outside the BMP (surrogate pairs in JavaScript) take the code-point path.
  ['😀', 'a😀', 'a😀b', 'ab', 'a', 'z', '𝐀', '9', 'é'],
];

const KEYS: readonly string[] = [
  'k'.repeat(128),
  'k'.repeat(129),
  'é'.repeat(64),
  'é'.repeat(65),
  'multi\nline key',
  'a\u2028b',
];

const TABLE: Readonly<Record<string, GoYamlValue>>[] = [
  { data: Object.fromEntries(STRINGS.map((s, i) => [`s${i}`, s])) },
  ...KEY_SETS.map((set) => ({ keys: Object.fromEntries(set.map((k, i) => [k, i])) })),
  { keys: Object.fromEntries(KEYS.map((k, i) => [k, i])) },
  { list: STRINGS.slice(0, 60) },
  { numbers: [0, 1, -5, 1.5, -0.25, 1e-7, 123456.7, 1234567.5, 0.0001, 0.00001, 1e20, 2 ** 53] },
  { scalars: [true, false, null, 'null', 3] },
  { empty: { map: {}, list: [], nested: [{}, [], [[]], [{}]] } },
  { lists: [['a', 'b'], [['x']], [{ a: 1, b: [1, 2] }], { inner: ['x', { y: ['z'] }] }] },
  { seqOfMaps: [{ name: 'a', value: 'x' }, { name: 'b' }] },
  { longKey: { ['k'.repeat(140)]: { nested: 'value' }, ['l'.repeat(130)]: ['a', 'b'] } },
  { multiKey: { 'a\nb': 'v', 'c\nd': { e: 'f' }, 'g\nh': ['i'] } },
  { literal: { a: 'x\ny\n', b: ['p\nq', 'r\n'], c: { d: ' lead\nx' } } },
  {
    metadata: {
      name: 'configdata',
      labels: { heritage: 'kudo', 'kudo.dev/instance': 'depop', 'kudo.dev/operator': 'op' },
      annotations: {},
      finalizers: [],
    },
  },
];

/** go-yaml marshals `{object: <value>}` (an Unstructured); so does the serializer under test. */
function ours(value: Readonly<Record<string, GoYamlValue>>): string {
  return goYamlMarshal({ object: value });
}

function compare(
  objects: ReadonlyArray<Readonly<Record<string, GoYamlValue>>>,
  go: Awaited<ReturnType<typeof runYamlOracle>>,
): void {
  const mismatches: string[] = [];
  objects.forEach((obj, i) => {
    const want = go[i];
    if (want?.error) throw new Error(`go-yaml refused object ${i}: ${want.error}`);
    const got = ours(obj);
    if (got !== want?.yaml) {
      mismatches.push(
        `object ${i} ${JSON.stringify(obj).slice(0, 200)}\n--- go-yaml\n${want?.yaml ?? ''}--- ours\n${got}`,
      );
    }
  });
  expect(mismatches.slice(0, 5).join('\n')).toBe('');
}

describe('go-yaml v2 serialisation against go-yaml itself', () => {
  it('writes the table of tricky values exactly as go-yaml does', async () => {
    // Each string alone too: as a map value, a key and a list item.
    const singles = STRINGS.map((s) => ({ v: s, [s]: 'k', l: [s] }));
    const objects = [...TABLE, ...singles];
    expect(objects.filter((o) => !consistentEverywhere(o))).toEqual([]);
    compare(objects, await runYamlOracle(objects));
  });

  it('writes generated objects exactly as go-yaml does', async () => {
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.string({ unit: fc.constantFrom(...' \n\t-:#.,?|>\'"{}[]01eExXyYnN_+~'), maxLength: 8 }),
      fc.constantFrom(...STRINGS),
    );
    const value: fc.Arbitrary<GoYamlValue> = fc.letrec<{ v: GoYamlValue }>((tie) => ({
      v: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        text,
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.array(tie('v'), { maxLength: 4 }),
        fc.dictionary(text, tie('v'), { maxKeys: 4 }),
      ),
    })).v;
    const sample: Array<Record<string, GoYamlValue>> = fc.sample(
      fc.dictionary(text, value, { maxKeys: 6 }),
      { numRuns: 400, seed: 20240614 },
    );
    const objects = sample.filter(consistentEverywhere);
    expect(objects.length).toBeGreaterThan(sample.length * 0.9);
    compare(objects, await runYamlOracle(objects));
  });

  it("hashes the spec's ConfigMap example to go-yaml's text and MD5", async () => {
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'configdata',
        namespace: 'default',
        uid: '8f1c',
        resourceVersion: '42',
        creationTimestamp: '2024-01-01T00:00:00Z',
        labels: {
          heritage: 'kudo',
          'kudo.dev/instance': 'depop',
          'kudo.dev/operator': 'dep-operator',
        },
        annotations: { 'kudo.dev/plan': 'deploy' },
        ownerReferences: [
          { apiVersion: 'kudo.dev/v1beta1', kind: 'Instance', name: 'depop', uid: 'x' },
        ],
      },
      data: { valueA: 'FancyValue', valueB: 'OtherFancyValue' },
    };
    const text = hashSourceText(configMap);
    expect(text).toBe(
      [
        'object:',
        '  apiVersion: ""',
        '  data:',
        '    valueA: FancyValue',
        '    valueB: OtherFancyValue',
        '  kind: ""',
        '  metadata:',
        '    annotations: {}',
        '    deletionGracePeriodSeconds: 0',
        '    finalizers: []',
        '    labels:',
        '      heritage: kudo',
        '      kudo.dev/instance: depop',
        '      kudo.dev/operator: dep-operator',
        '    managedFields: []',
        '    name: configdata',
        '    ownerReferences: []',
        '    remainingItemCount: 0',
        '',
      ].join('\n'),
    );
    const cleaned = JSON.parse(JSON.stringify(configMap)) as Record<string, unknown>;
    const [go] = await runYamlOracle([
      {
        ...cleaned,
        apiVersion: '',
        kind: '',
        metadata: {
          name: 'configdata',
          labels: configMap.metadata.labels,
          annotations: {},
          deletionGracePeriodSeconds: 0,
          finalizers: [],
          managedFields: [],
          ownerReferences: [],
          remainingItemCount: 0,
        },
      },
    ]);
    expect(go?.yaml).toBe(text);
    expect(createHash('md5').update(text).digest('hex')).toBe(go?.md5);
  });
});
