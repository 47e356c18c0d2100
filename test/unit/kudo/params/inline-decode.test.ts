// Admission decodes small array/map values on its own thread and sends the rest to the
// admission worker (issue 18): a small value costs no worker job, a value past the inline
// budget is a worker job, and either way the decoded value or the problem is the same —
// asserted against a real worker process.
import { afterAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import {
  MAX_INLINE_DECODE_CHARS,
  MAX_YAML_ALIASES,
  ParameterValidator,
  Unparsable,
  convert,
  type DecodeOutcome,
  type ParameterDecoder,
} from '../../../../src/kudo/params/index.ts';
import { RenderPool } from '../../../../src/kudo/pool/index.ts';
import { billionLaughs, deepSequence } from '../../../support/hostile-yaml.ts';
import { operatorVersion } from '../fixtures.ts';

const pool = new RenderPool({
  name: 'admission-test',
  size: 1,
  deadlineMs: 10_000,
  maxHeapMb: 64,
  logger: pino({ level: 'silent' }),
});
afterAll(() => pool.stop());

/** The pool's decoder, counting the jobs it sends to the worker. */
function counting(): { decoder: ParameterDecoder; jobs: string[] } {
  const jobs: string[] = [];
  return {
    jobs,
    decoder: (raw, type, signal) => {
      jobs.push(raw);
      return pool.decode(raw, type, signal);
    },
  };
}

/** What the inline path produced, in the worker's terms. */
function outcome(value: unknown): DecodeOutcome {
  return value instanceof Unparsable ? { problem: value.reason } : { value };
}

const ov = operatorVersion(
  'inline',
  ['deploy'],
  [
    { name: 'LIST', 'value-type': 'array', default: '[]' },
    { name: 'MAP', 'value-type': 'map', default: '{}' },
    { name: 'MAP2', 'value-type': 'map', default: '{}' },
    { name: 'NAME', default: 'x' },
  ],
);

/** A valid map of about `chars` characters. */
function mapOf(chars: number): string {
  const lines: string[] = [];
  for (let i = 0; lines.length * 12 < chars; i++)
    lines.push(`key${String(i).padStart(4, '0')}: v1`);
  return lines.join('\n');
}

describe('admission decodes small values inline, the rest in the worker', () => {
  it('decodes small values without a worker job, and validates them as before', async () => {
    const validator = new ParameterValidator({ maxCachedOperatorVersions: 4 });
    const { decoder, jobs } = counting();
    const values = { LIST: '[a, b]', MAP: 'a: {b: [1, 2]}', NAME: 'n' };
    const decoded = await validator.decode(ov, values, decoder);
    expect(jobs).toEqual([]);
    expect(pool.workers).toBe(0);
    expect(decoded.get('LIST')).toEqual(['a', 'b']);
    expect(decoded.get('MAP')).toEqual({ a: { b: [1, 2] } });
    expect(decoded.has('NAME')).toBe(false);
    expect(validator.validate(ov, values, undefined, decoded)).toEqual([]);
  });

  it('answers synchronously when nothing goes to the worker, and asks for the signal only when something does', async () => {
    const validator = new ParameterValidator({ maxCachedOperatorVersions: 4 });
    const { decoder, jobs } = counting();
    let signals = 0;
    const signal = (): AbortSignal => {
      signals++;
      return new AbortController().signal;
    };
    const small = validator.decode(ov, { LIST: '[a]', NAME: 'n' }, decoder, signal);
    expect(small).toBeInstanceOf(Map);
    expect((small as ReadonlyMap<string, unknown>).get('LIST')).toEqual(['a']);
    expect(signals).toBe(0);
    const big = mapOf(MAX_INLINE_DECODE_CHARS + 100);
    const pending = validator.decode(ov, { MAP: big, LIST: '[b]' }, decoder, signal);
    expect(pending).toBeInstanceOf(Promise);
    const decoded = await pending;
    expect(signals).toBe(1);
    expect(jobs).toEqual([big]);
    expect(decoded.get('LIST')).toEqual(['b']);
    expect(Object.keys(decoded.get('MAP') as object)).toHaveLength(big.split('\n').length);
  });

  it('sends a value past the inline budget to the worker, and the budget is per request', async () => {
    const validator = new ParameterValidator({ maxCachedOperatorVersions: 4 });
    const { decoder, jobs } = counting();
    const big = mapOf(MAX_INLINE_DECODE_CHARS + 100);
    const decoded = await validator.decode(ov, { MAP: big, LIST: '[x]' }, decoder);
    expect(jobs).toEqual([big]);
    expect(Object.keys(decoded.get('MAP') as object)).toHaveLength(big.split('\n').length);
    expect(decoded.get('LIST')).toEqual(['x']);
    // Two values that fit alone but not together: the second goes to the worker.
    const half = mapOf(MAX_INLINE_DECODE_CHARS * 0.6);
    const other = `${half}\nextra: 1`;
    const { decoder: second, jobs: secondJobs } = counting();
    await validator.decode(ov, { MAP: half, MAP2: other }, second);
    expect(secondJobs).toEqual([other]);
    // Seen before: from the memo, neither inline nor a job.
    const { decoder: third, jobs: thirdJobs } = counting();
    const again = await validator.decode(ov, { MAP: big }, third);
    expect(thirdJobs).toEqual([]);
    expect(again.get('MAP')).toBe(decoded.get('MAP'));
  });

  it('gives the same value or the same problem inline as in the worker, hostile values included', async () => {
    const cases: [string, 'array' | 'map'][] = [
      ['[a, {b: c}, 1, true, null]', 'array'],
      ['__proto__: {polluted: 1}\nconstructor: c', 'map'],
      ['', 'map'],
      ['~', 'array'],
      ['a: 1', 'array'],
      ['[1', 'array'],
      ['a: 1\na: 2', 'map'],
      ['&a [*a]', 'array'],
      [billionLaughs(), 'map'],
      [deepSequence(300), 'array'],
      [`${'['.repeat(100)}${']'.repeat(100)}`, 'array'],
      [
        `- &a [x]\n${Array(MAX_YAML_ALIASES + 1)
          .fill('- *a')
          .join('\n')}`,
        'array',
      ],
    ];
    for (const [raw, type] of cases) {
      expect(raw.length).toBeLessThanOrEqual(MAX_INLINE_DECODE_CHARS);
      const inline = outcome(convert(raw, type));
      expect([raw, inline]).toEqual([raw, await pool.decode(raw, type)]);
    }
    // And through the validator: the inline verdicts are the worker's.
    const validator = new ParameterValidator({ maxCachedOperatorVersions: 4 });
    const { decoder, jobs } = counting();
    const decoded = await validator.decode(ov, { LIST: '&a [*a]', MAP: billionLaughs() }, decoder);
    expect(jobs).toEqual([]);
    expect(
      validator
        .validate(ov, { LIST: '&a [*a]', MAP: billionLaughs() }, undefined, decoded)
        .map((p) => p.message),
    ).toEqual([
      '"&a [*a]" refers to itself through an alias (a cycle) (value-type array)',
      expect.stringMatching(
        new RegExp(
          `expands more than ${MAX_YAML_ALIASES} aliases \\(the limit per value\\) \\(value-type map\\)$`,
        ),
      ),
    ]);
  });

  it('refuses a big hostile value in the worker exactly as inline', async () => {
    const validator = new ParameterValidator({ maxCachedOperatorVersions: 4 });
    const { decoder, jobs } = counting();
    // Over the budget (padding in a comment), aliases beyond the limit.
    const raw = `${billionLaughs()}\n# ${'x'.repeat(MAX_INLINE_DECODE_CHARS)}`;
    const decoded = await validator.decode(ov, { MAP: raw }, decoder);
    expect(jobs).toEqual([raw]);
    expect(decoded.get('MAP')).toEqual(new Unparsable(raw, outcomeProblem(convert(raw, 'map'))));
    expect((decoded.get('MAP') as Unparsable).reason).toBe(
      `expands more than ${MAX_YAML_ALIASES} aliases (the limit per value)`,
    );
  });
});

function outcomeProblem(value: unknown): string {
  const o = outcome(value);
  return 'problem' in o ? o.problem : 'decoded';
}
