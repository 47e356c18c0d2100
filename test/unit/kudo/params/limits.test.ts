// Parameter values an adversarial user types: each gets a clear problem (never an exception,
// never a message echoing megabytes), within the documented limits (docs/limits.md), and
// parameter names that are Object.prototype's own are ordinary names.
import { describe, expect, it } from '@jest/globals';
import {
  convert,
  decodeYaml,
  excerpt,
  immutabilityProblems,
  MAX_INLINE_DECODE_CHARS,
  MAX_PARAMETER_VALUE_BYTES,
  MAX_PARAMETERS_BYTES,
  MAX_YAML_ALIASES,
  MAX_YAML_DEPTH,
  nestingBound,
  ParameterValidator,
  Unparsable,
  YamlProblem,
} from '../../../../src/kudo/params/index.ts';
import { templateParams } from '../../../../src/kudo/render/index.ts';
import { billionLaughs, deepSequence } from '../../../support/hostile-yaml.ts';
import { instance, operatorVersion } from '../fixtures.ts';

const reason = (value: unknown): string =>
  value instanceof Unparsable || value instanceof YamlProblem ? value.reason : 'accepted';

describe('decoding array/map values within limits', () => {
  it('refuses nesting beyond the limit, block or flow, before the parser recurses', () => {
    expect(reason(decodeYaml(deepSequence(9_000)))).toBe(
      `nests deeper than the limit of ${MAX_YAML_DEPTH} levels`,
    );
    expect(reason(decodeYaml(`${'['.repeat(9_000)}${']'.repeat(9_000)}`))).toMatch(/nests deeper/);
    const indented = Array.from({ length: MAX_YAML_DEPTH + 2 }, (_, i) => `${'  '.repeat(i)}k:`);
    expect(reason(decodeYaml(`${indented.join('\n')} x`))).toMatch(/nests deeper/);
    // At the limit it is fine.
    const ok = Array.from({ length: MAX_YAML_DEPTH - 1 }, (_, i) => `${'  '.repeat(i)}k:`);
    expect(reason(decodeYaml(`${ok.join('\n')} x`))).toBe('accepted');
  });

  it('does not count the pairs of a long one-line flow collection as nesting', () => {
    // As Python's json.dumps writes it: `": "` after every key, 500 keys on one line.
    const json = `{${Array.from({ length: 500 }, (_, i) => `"k${i}": ${i}`).join(', ')}}`;
    expect(nestingBound(json, 1000)).toBe(3);
    expect(Object.keys(decodeYaml(json) as object)).toHaveLength(500);
    const list = `[${Array.from({ length: 500 }, (_, i) => `{a: ${i}, b: [x]}`).join(', ')}]`;
    expect((decodeYaml(list) as unknown[]).length).toBe(500);
    // Pairs nested in flow sequences still count: each bracket may hold a one-pair map.
    expect(nestingBound('[a: [b: [c: x]]]', 1000)).toBeGreaterThanOrEqual(6);
  });

  it('does not count quoted text, comments or block scalars as nesting', () => {
    const text = [
      'a: "[[[[[[[[ - - - : :"',
      "b: '{{{{{{{{'",
      '# [[[[[[[[[[[[',
      'c: |',
      ...Array.from({ length: 300 }, (_, i) => `  ${' '.repeat(i)}line ${i}`),
      'd: [1, [2, [3]]]',
    ].join('\n');
    expect(nestingBound(text, 1000)).toBeLessThan(10);
    expect(reason(decodeYaml(text))).toBe('accepted');
  });

  it('refuses an alias cycle instead of handing a cyclic object to the renderer', () => {
    expect(reason(decodeYaml('&a [*a]'))).toBe('refers to itself through an alias (a cycle)');
    expect(reason(decodeYaml('a: &x\n  b: *x'))).toMatch(/cycle/);
    // Shared (acyclic) aliases are fine.
    expect(decodeYaml('a: &x [1]\nb: *x')).toEqual({ a: [1], b: [1] });
  });

  it('caps alias expansion (billion laughs)', () => {
    const laughs = billionLaughs();
    expect(reason(decodeYaml(laughs))).toBe(
      `expands more than ${MAX_YAML_ALIASES} aliases (the limit per value)`,
    );
  });

  it('finds duplicate keys in one pass, and accepts a large valid map', () => {
    expect(reason(decodeYaml('a: 1\nb: 2\na: 3'))).toBe(
      'is not valid YAML: map key "a" appears twice',
    );
    expect(reason(decodeYaml('x:\n  1: a\n  "1": b'))).toBe('accepted'); // int and string keys
    const big = Array.from({ length: 20_000 }, (_, i) => `key${i}: value${i}`).join('\n');
    const map = decodeYaml(big) as Record<string, string>;
    expect(Object.keys(map)).toHaveLength(20_000);
    expect(map['key19999']).toBe('value19999');
  });

  it('returns maps without a prototype: __proto__ and constructor are plain keys', () => {
    const map = decodeYaml('__proto__: {polluted: 1}\nconstructor: c\ntoString: t') as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(map)).toBeNull();
    expect(Object.keys(map)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(map['constructor']).toBe('c');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('convert', () => {
  it('refuses anything but a string with a clear reason instead of throwing', () => {
    expect(reason(convert(5, 'integer'))).toBe(
      'is a number, not a string: parameter values are always strings (quote it: "5")',
    );
    expect(reason(convert({ a: 1 }, 'map'))).toMatch(/^is a map, not a string/);
    expect(reason(convert(null, 'string'))).toMatch(/^is null, not a string/);
    expect(reason(convert(['x'], 'boolean'))).toMatch(/^is a list, not a string/);
  });

  it('follows Go int64: 9223372036854775807 is valid, one more is not', () => {
    expect(convert('9223372036854775807', 'integer')).toBe('9223372036854775807');
    expect(reason(convert('9223372036854775808', 'integer'))).toBe(
      'is out of range for a 64-bit integer',
    );
  });

  it('refuses a value over the size limit without decoding it', () => {
    const huge = `a: ${'x'.repeat(MAX_PARAMETER_VALUE_BYTES)}`;
    expect(reason(convert(huge, 'map'))).toBe(
      `is ${huge.length} bytes, more than the limit of ${MAX_PARAMETER_VALUE_BYTES} bytes per value`,
    );
    // Multi-byte characters count as bytes.
    const wide = 'é'.repeat(MAX_PARAMETER_VALUE_BYTES / 2 + 1);
    expect(reason(convert(wide, 'string'))).toMatch(/more than the limit/);
  });
});

describe('excerpt', () => {
  it('quotes short strings whole and long ones cut, with their size', () => {
    expect(excerpt('abc')).toBe('"abc"');
    const long = excerpt('y'.repeat(1_000_000));
    expect(long).toBe(`"${'y'.repeat(40)}…" (1000000 bytes)`);
  });
});

describe('ParameterValidator with hostile values', () => {
  const ov = operatorVersion(
    'hostile',
    ['deploy'],
    [
      { name: 'MAP', 'value-type': 'map', default: '{}' },
      { name: 'SIZE', 'value-type': 'integer', default: '1', enum: ['1', '9223372036854775807'] },
      { name: 'constructor', default: 'c' },
      { name: 'toString', default: 't' },
      { name: '__proto__', default: 'p' },
    ],
  );
  const validator = new ParameterValidator({ maxCachedOperatorVersions: 4 });

  it('quotes at most a short excerpt of a refused value', () => {
    const value = `[${'x,'.repeat(200_000)}`;
    const [problem] = validator.validate(ov, { MAP: value });
    expect(problem?.field).toBe('spec.parameters.MAP');
    expect(problem?.message.length).toBeLessThan(300);
  });

  it('checks integers against the enum exactly, beyond 2^53', () => {
    expect(validator.validate(ov, { SIZE: '9223372036854775807' })).toEqual([]);
    expect(validator.validate(ov, { SIZE: '9223372036854775806' })[0]?.message).toMatch(
      /is not allowed/,
    );
  });

  it('refuses a non-string value with a problem, not an exception', () => {
    const values = { SIZE: 5 } as unknown as Record<string, string>;
    expect(validator.validate(ov, values)[0]).toMatchObject({
      field: 'spec.parameters.SIZE',
      message: expect.stringMatching(/is a number, not a string/) as unknown as string,
    });
  });

  it('treats __proto__, constructor and toString as ordinary parameter names', () => {
    const values = JSON.parse('{"__proto__": "x", "constructor": "y", "toString": "z"}') as Record<
      string,
      string
    >;
    expect(validator.validate(ov, values)).toEqual([]);
    expect(validator.validate(ov, {})).toEqual([]);
    const unknown = JSON.parse('{"__proto__": "x"}') as Record<string, string>;
    const other = operatorVersion('plain', ['deploy'], [{ name: 'A' }]);
    expect(validator.validate(other, unknown).map((p) => p.field)).toEqual([
      'spec.parameters.__proto__',
    ]);
    // Defaults of such names reach templates; nothing leaks from Object.prototype.
    const params = templateParams(instance({ spec: { parameters: {} } }), ov);
    expect(Object.entries(params)).toEqual([
      ['MAP', {}],
      ['SIZE', '1'],
      ['constructor', 'c'],
      ['toString', 't'],
      ['__proto__', 'p'],
    ]);
  });

  it('refuses parameters over the per-Instance limit, naming spec.parameters', () => {
    const many: Record<string, string> = {};
    const plain = operatorVersion(
      'many',
      ['deploy'],
      Array.from({ length: 4 }, (_, i) => ({ name: `P${i}` })),
    );
    for (let i = 0; i < 4; i++) many[`P${i}`] = 'v'.repeat(MAX_PARAMETERS_BYTES / 4);
    const problems = validator.validate(plain, many, new Set(['P0']));
    expect(problems.map((p) => p.field)).toEqual(['spec.parameters']);
    expect(problems[0]?.message).toMatch(/more than the limit of 1048576 bytes per Instance/);
  });

  it('decodes with a decoder (a worker in production) and keeps its verdict', async () => {
    // Values past the inline budget go to the decoder.
    const big = `a: 1\n# ${'x'.repeat(MAX_INLINE_DECODE_CHARS)}`;
    const asked: string[] = [];
    const decoded = await validator.decode(ov, { MAP: big, SIZE: '1' }, (raw) => {
      asked.push(raw);
      return Promise.resolve({ problem: 'was refused by the decoder' });
    });
    expect(asked).toEqual([big]);
    expect(validator.validate(ov, { MAP: big }, undefined, decoded)[0]?.message).toMatch(
      /^"a: 1\\n# x+…" \(\d+ bytes\) was refused by the decoder \(value-type map\)$/,
    );
    // A decoder that fails (deadline, memory) makes the value unparsable, with the reason.
    const big2 = `b: 2\n# ${'x'.repeat(MAX_INLINE_DECODE_CHARS)}`;
    const failed = await validator.decode(ov, { MAP: big2 }, () =>
      Promise.reject(new Error('parameter value: did not finish within 2000 ms')),
    );
    expect(validator.validate(ov, { MAP: big2 }, undefined, failed)[0]?.message).toMatch(
      /could not be decoded within the limits \(parameter value: did not finish within 2000 ms\)/,
    );
  });
});

describe('immutability with prototype names', () => {
  it('judges `constructor` by own values only', () => {
    const ov = operatorVersion('imm', ['deploy'], [{ name: 'constructor', immutable: true }]);
    expect(
      immutabilityProblems({
        oldValues: {},
        newValues: {},
        oldOperatorVersion: ov,
        newOperatorVersion: ov,
        upgrade: false,
      }),
    ).toEqual([]);
    expect(
      immutabilityProblems({
        oldValues: { constructor: 'a' },
        newValues: { constructor: 'b' },
        oldOperatorVersion: ov,
        newOperatorVersion: ov,
        upgrade: false,
      }).map((p) => p.field),
    ).toEqual(['spec.parameters.constructor']);
  });
});
