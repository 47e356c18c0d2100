// `array`/`map` parameters that are empty, absent or YAML null: KUDO's yaml.Unmarshal left a
// nil []interface{} / map[string]interface{}; templates must see what Go shows for those
// (checked against the Go oracle with real nil values), and only YAML of another shape fails.
import { describe, expect, it } from '@jest/globals';
import { renderTemplate } from '../../../../src/gotemplate/index.ts';
import type { Instance, OperatorVersion } from '../../../../src/kudo/api/types.ts';
import { ParameterValueError, templateParams } from '../../../../src/kudo/render/index.ts';
import { runOracle } from '../../../gotemplate/oracle.ts';

const ov = (parameters: NonNullable<OperatorVersion['spec']>['parameters']): OperatorVersion => ({
  metadata: { name: 'ov', namespace: 'ns' },
  spec: { parameters },
});
const instance = (parameters: Record<string, string> = {}): Instance => ({
  metadata: { name: 'i', namespace: 'ns' },
  spec: { parameters },
});

describe('array and map parameters', () => {
  it('absent, empty, whitespace, null, ~ and comment-only values decode to empty; lists and maps parse', () => {
    const params = templateParams(
      instance({ A2: '', A3: 'null', A4: '~', A5: '# nothing\n', M2: '  ', M3: 'null' }),
      ov([
        { name: 'A1', 'value-type': 'array' },
        { name: 'A2', 'value-type': 'array', default: '[x]' },
        { name: 'A3', 'value-type': 'array' },
        { name: 'A4', 'value-type': 'array' },
        { name: 'A5', 'value-type': 'array' },
        { name: 'A6', 'value-type': 'array', default: '[a, {b: 1}]' },
        { name: 'M1', 'value-type': 'map' },
        { name: 'M2', 'value-type': 'map' },
        { name: 'M3', 'value-type': 'map', default: '{k: v}' },
        { name: 'M4', 'value-type': 'map', default: 'k: v' },
        { name: 'S', default: null },
      ]),
    );
    expect({ ...params }).toEqual({
      A1: [],
      A2: [],
      A3: [],
      A4: [],
      A5: [],
      A6: ['a', { b: 1 }],
      M1: {},
      M2: {},
      M3: {},
      M4: { k: 'v' },
      S: '',
    });
  });

  it('YAML of another shape is an error naming the parameter', () => {
    expect(() =>
      templateParams(instance({ A: 'just text' }), ov([{ name: 'A', 'value-type': 'array' }])),
    ).toThrow(ParameterValueError);
    expect(() =>
      templateParams(instance({ M: '[1, 2]' }), ov([{ name: 'M', 'value-type': 'map' }])),
    ).toThrow(/parameter M .*not a YAML map/);
    expect(() =>
      templateParams(instance({ A: '{a: 1}' }), ov([{ name: 'A', 'value-type': 'array' }])),
    ).toThrow(/parameter A .*not a YAML list/);
  });

  it('a parameter named like an Object.prototype member without a value is empty, not a function', () => {
    const params = templateParams(instance(), ov([{ name: 'constructor' }, { name: 'toString' }]));
    expect(Object.entries(params)).toEqual([
      ['constructor', ''],
      ['toString', ''],
    ]);
  });

  // What a template can observe of the value; toJson/%#v are left out on purpose: Go prints a
  // nil slice as `null` / `[]interface {}(nil)` there, an empty one as `[]` (our templates have
  // no nil slices). No KUDO package JSON-encodes an empty structured parameter.
  const templates = [
    '{{ .Params.L }}|{{ .Params.M }}',
    '{{ if .Params.L }}y{{ else }}n{{ end }}{{ if .Params.M }}y{{ else }}n{{ end }}',
    '{{ len .Params.L }} {{ len .Params.M }}',
    '{{ range .Params.L }}x{{ else }}no items{{ end }} {{ range $k, $v := .Params.M }}x{{ else }}no keys{{ end }}',
    '{{ toYaml .Params.L }}|{{ toYaml .Params.M }}',
    '{{ empty .Params.L }} {{ empty .Params.M }} {{ default "d" .Params.L }} {{ default "d" .Params.M }}',
    '{{ printf "%v %v %d" .Params.L .Params.M (len .Params.L) }}',
    '{{ join "," .Params.L }} {{ keys .Params.M | len }} {{ kindOf .Params.L }} {{ typeOf .Params.M }}',
    '{{ .Params.L | append "z" }}{{ hasKey .Params.M "a" }}',
  ];

  it('renders like Go renders nil slices and maps', async () => {
    const go = await runOracle(
      templates.map((template, i) => ({
        name: `t${i}`,
        template,
        data: { Params: { L: { $nillist: null }, M: { $nilmap: null } } },
      })),
    );
    const params = templateParams(
      instance({ M: 'null' }),
      ov([
        { name: 'L', 'value-type': 'array' },
        { name: 'M', 'value-type': 'map' },
      ]),
    );
    const ours = templates.map((template, i) => {
      try {
        return {
          output: renderTemplate(`t${i}`, template, { Params: params }, { funcs: 'kudo' }),
        };
      } catch (err) {
        return { output: '', error: (err as Error).message };
      }
    });
    expect(ours).toEqual(go);
  });
});
