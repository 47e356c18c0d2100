// Parameter checks outside the admission table: conversion edge cases and the compiled-schema
// cache (one compile per OperatorVersion revision, bounded).
import { describe, expect, it } from '@jest/globals';
import { convert, ParameterValidator, Unparsable } from '../../../../src/kudo/params/index.ts';
import { operatorVersion, typedOv } from '../fixtures.ts';

describe('convert', () => {
  it.each([
    ['integer', '42', '42'],
    ['integer', '+7', '7'],
    ['integer', '9223372036854775807', '9223372036854775807'],
    ['integer', '-9223372036854775808', '-9223372036854775808'],
    ['number', '-1.5e2', -150],
    ['boolean', 'TRUE', true],
    ['boolean', '0', false],
    ['array', '[1, two]', [1, 'two']],
    ['map', 'a:\n  b: 1', { a: { b: 1 } }],
    ['string', ' anything ', ' anything '],
  ] as const)('%s %j', (type, raw, want) => {
    expect(convert(raw, type)).toEqual(want);
  });

  // As rendering sees them (Go's nil slice/map): empty, not an error.
  it.each(['', '  ', 'null', '~', '# only a comment'])(
    'array and map %j decode to an empty list / map',
    (raw) => {
      expect(convert(raw, 'array')).toEqual([]);
      const map = convert(raw, 'map');
      expect(map).toEqual({});
      expect(Object.getPrototypeOf(map)).toBeNull();
    },
  );

  it('accepts empty and null array/map values in an Instance', () => {
    const validator = new ParameterValidator({ maxCachedOperatorVersions: 2 });
    expect(validator.validate(typedOv, { PASSWORD: 'p', LIST: '', MAP: 'null' })).toEqual([]);
  });

  it.each([
    ['integer', '1.0'],
    ['integer', '99999999999999999999'],
    ['integer', '9223372036854775808'],
    ['integer', ''],
    ['number', ''],
    ['number', 'Infinity'],
    ['boolean', 'yes'],
    ['array', 'a: b'],
    ['map', '- a'],
    ['map', 'plain'],
  ] as const)('%s %j is unparsable', (type, raw) => {
    expect(convert(raw, type)).toBeInstanceOf(Unparsable);
  });
});

describe('ParameterValidator', () => {
  it('compiles once per OperatorVersion revision and reuses it', () => {
    const validator = new ParameterValidator({ maxCachedOperatorVersions: 2 });
    expect(validator.validate(typedOv, { PASSWORD: 'x' })).toEqual([]);
    expect(validator.validate(typedOv, { PASSWORD: 'y', SIZE: '4' })).toEqual([]);
    expect(validator.cachedCount).toBe(1);
    // A new resourceVersion is a new revision: its schema may differ.
    const edited = operatorVersion('typed', ['deploy'], [{ name: 'PASSWORD', enum: ['x'] }], {
      uid: typedOv.metadata.uid,
      resourceVersion: '2',
    });
    expect(validator.validate(edited, { PASSWORD: 'y' }).map((p) => p.field)).toEqual([
      'spec.parameters.PASSWORD',
    ]);
    expect(validator.cachedCount).toBe(2);
  });

  it('keeps at most the configured number of revisions, dropping the least recently used', () => {
    const validator = new ParameterValidator({ maxCachedOperatorVersions: 2 });
    const ovs = [1, 2, 3].map((n) =>
      operatorVersion(`ov-${n}`, ['deploy'], [{ name: 'A', 'value-type': 'integer' }]),
    );
    for (const ov of ovs) validator.validate(ov, { A: '1' });
    expect(validator.cachedCount).toBe(2);
    // Still correct after eviction and recompilation.
    expect(validator.validate(ovs[0]!, { A: 'x' })[0]?.message).toBe(
      '"x" is not an integer (value-type integer)',
    );
  });

  it('reports the same problem for a repeated array/map value (parsed values are memoised)', () => {
    const validator = new ParameterValidator({ maxCachedOperatorVersions: 2 });
    for (let i = 0; i < 3; i++) {
      expect(validator.validate(typedOv, { PASSWORD: 'p', LIST: 'a: b', MAP: 'a: b' })).toEqual([
        {
          name: 'LIST',
          field: 'spec.parameters.LIST',
          reason: 'FieldValueInvalid',
          message: '"a: b" is a map, not a YAML list (value-type array)',
        },
      ]);
    }
  });

  it('does not cache objects without uid and resourceVersion', () => {
    const validator = new ParameterValidator({ maxCachedOperatorVersions: 2 });
    const ov = operatorVersion('plain', ['deploy'], [{ name: 'A' }]);
    delete ov.metadata.uid;
    delete ov.metadata.resourceVersion;
    expect(validator.validate(ov, { B: '1' }).map((p) => p.reason)).toEqual([
      'FieldValueNotSupported',
    ]);
    expect(validator.cachedCount).toBe(0);
  });

  it('limits problems to the names asked about', () => {
    const validator = new ParameterValidator({ maxCachedOperatorVersions: 2 });
    const problems = validator.validate(typedOv, { SIZE: 'x', RATIO: 'y' }, new Set(['RATIO']));
    expect(problems.map((p) => p.name)).toEqual(['RATIO']);
  });

  it('rejects a nonsensical cache size', () => {
    expect(() => new ParameterValidator({ maxCachedOperatorVersions: 0 })).toThrow(
      /maxCachedOperatorVersions must be a positive integer, got 0/,
    );
  });
});
