// The static classifier: which templates are bounded by construction (and may render on the
// main thread), with their size bounds, and why everything else is not.
import { describe, expect, it } from '@jest/globals';
import { compileTemplate } from '../../../../src/gotemplate/index.ts';
import {
  INLINE_MAX_ACTIONS,
  INLINE_MAX_STRUCTURED_CHARS,
  INLINE_MAX_WORK_CHARS,
  STRUCTURED_WEIGHT,
  boundedness,
  inputSize,
  sizeAt,
  withinInlineLimits,
  type Boundedness,
} from '../../../../src/kudo/render/bounded.ts';
import { scalars } from './jobs.ts';

const classify = (text: string): Boundedness =>
  boundedness(compileTemplate('t.yaml', text, { funcs: 'kudo', missingKey: 'error' }));

const bounded = (text: string): Extract<Boundedness, { bounded: true }> => {
  const b = classify(text);
  if (!b.bounded) throw new Error(`expected ${text} to be bounded: ${b.reason}`);
  return b;
};

const reason = (text: string): string => {
  const b = classify(text);
  if (b.bounded) throw new Error(`expected ${text} not to be bounded`);
  return b.reason;
};

describe('boundedness', () => {
  it('bounds field lookups, conditionals, variables and cheap functions linearly', () => {
    const b = bounded(
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-0\ndata:\n' +
        '  v: "{{ .Params.V }}"\n' +
        '  q: {{ .Params.V | default "x" | upper | quote }}\n' +
        '{{ if eq .Params.ON "true" }}  on: {{ $v := .Params.V }}{{ $v | squote }}{{ end }}\n' +
        '{{ with .Params.M }}  m: {{ toYaml . | nindent 4 }}{{ end }}\n' +
        '  p: {{ printf "%s-%d" .Name (int .Params.N) }}\n',
    );
    // Every bound is linear: a few multiples of the inputs plus the template's own text.
    expect(b.output.a).toBeGreaterThan(0);
    expect(b.output.a).toBeLessThan(100);
    expect(b.work.a).toBeGreaterThanOrEqual(b.output.a);
    expect(b.value.a).toBeGreaterThan(0);
  });

  it('multiplies by what each function can do: quote 6×, indent by its width + 1', () => {
    expect(bounded('{{ .V }}').output).toEqual({ a: 1, b: 0 });
    expect(bounded('{{ quote .V }}').output.a).toBe(6);
    expect(bounded('{{ quote (quote .V) }}').output.a).toBe(36);
    expect(bounded('{{ indent 8 .V }}').output.a).toBe(9);
    // A variable used twice counts twice; reassigned, its largest value counts.
    expect(bounded('{{ $x := print .V .V }}{{ $x = print $x $x }}{{ $x }}').output.a).toBe(4);
  });

  it('refuses a value that doubles on every line (exponential through variables)', () => {
    const doubling = '{{ $x := .V }}' + '{{ $x = print $x $x }}'.repeat(40) + '{{ $x }}';
    expect(reason(doubling)).toMatch(/a value can grow too large/);
  });

  it.each([
    ['a range loop', '{{ range .Params.L }}x{{ end }}', /range loop \(line 1\)/],
    ['a template call', '{{ define "a" }}x{{ end }}{{ template "a" }}', /defines templates/],
    ['a block', '{{ block "b" . }}x{{ end }}', /defines templates/],
    ['repeat', '{{ repeat 1000000 "x" }}', /calls repeat, which is not a cheap function/],
    ['until', '{{ until 5 | len }}', /calls until/],
    ['a regex', '{{ regexMatch "^(a+)+$" .V }}', /calls regexMatch/],
    ['append', '{{ append list 1 }}', /calls append/],
    ['fail', '{{ fail "no" }}', /calls fail/],
    ['a niladic call as an operand', '{{ quote now }}', /calls now/],
    ['indent with a computed width', '{{ indent (int .N) .V }}', /indent: its width/],
    ['indent wider than 256', '{{ indent 100000 .V }}', /indent: its width/],
    ['replace with computed strings', '{{ replace .A .B .V }}', /replace: its old and new/],
    ['printf with a width', '{{ printf "%1000000d" 1 }}', /printf: its format has a width/],
    ['printf with a computed format', '{{ printf .F 1 }}', /printf: its format is not/],
    ['join with a computed separator', '{{ join .S .L }}', /join: its separator/],
  ])('does not bound %s', (_what, text, why) => {
    expect(reason(text)).toMatch(why);
  });

  it(`does not bound more than ${INLINE_MAX_ACTIONS} actions`, () => {
    expect(classify('{{ .V }}'.repeat(INLINE_MAX_ACTIONS)).bounded).toBe(true);
    expect(reason('{{ .V }}'.repeat(INLINE_MAX_ACTIONS + 1))).toMatch(/more than 256 actions/);
  });
});

describe('inputSize and the inline limits', () => {
  it('counts every input; array/map values weighted, refused when large, deep or aliased', () => {
    const base = inputSize('abc', scalars, [], undefined);
    expect(base).toBe(3 + Object.values(scalars).join('').length);
    expect(inputSize('abc', scalars, [{ name: 'V', type: 'string', raw: 'hello' }], {})).toBe(
      base! + 1 + 5,
    );
    expect(inputSize('abc', scalars, [{ name: 'M', type: 'map', raw: 'a: b' }], {})).toBe(
      base! + 1 + STRUCTURED_WEIGHT * 4,
    );
    const big = `k: ${'v'.repeat(INLINE_MAX_STRUCTURED_CHARS)}`;
    expect(inputSize('', scalars, [{ name: 'M', type: 'map', raw: big }], {})).toBeUndefined();
    const deep = `${'['.repeat(40)}${']'.repeat(40)}`;
    expect(inputSize('', scalars, [{ name: 'L', type: 'array', raw: deep }], {})).toBeUndefined();
    const alias = 'a: &x [1]\nb: *x';
    expect(inputSize('', scalars, [{ name: 'M', type: 'map', raw: alias }], {})).toBeUndefined();
    expect(inputSize('', scalars, [{ name: 'V', type: 'string', raw: 5 }], {})).toBeUndefined();
  });

  it('executes inline only while the bounds at the job’s size are small', () => {
    const b = bounded('{{ quote .Params.V }}');
    expect(withinInlineLimits(b, 1_000)).toBe(true);
    const huge = Math.ceil(INLINE_MAX_WORK_CHARS / b.work.a) + 1;
    expect(sizeAt(b.work, huge)).toBeGreaterThan(INLINE_MAX_WORK_CHARS);
    expect(withinInlineLimits(b, huge)).toBe(false);
  });
});
