// Random template programs (random-programs.ts) rendered by Planwright and by the KUDO oracle:
// outputs must be identical, or both must fail (Planwright with a TemplateError). The seeds
// are fixed so a run is reproducible; RANDOM_TEMPLATE_SEEDS ("1,2,3") and
// RANDOM_TEMPLATE_COUNT (programs per seed) run more by hand.

import { describe, expect, it } from '@jest/globals';
import { renderTemplate, TemplateError } from '../../src/gotemplate/index.ts';
import { runOracle } from './oracle.ts';
import type { OracleResult } from './oracle.ts';
import { programSeed, randomProgram } from './random-programs.ts';
import type { RandomProgram } from './random-programs.ts';
import { decodeTagged } from './tagged.ts';

const seeds = (process.env['RANDOM_TEMPLATE_SEEDS'] ?? '1,2,3').split(',').map(Number);
const count = Number(process.env['RANDOM_TEMPLATE_COUNT'] ?? '1500');

function renderTS(p: RandomProgram): OracleResult {
  try {
    return { output: renderTemplate('tpl', p.template, decodeTagged(p.data), { funcs: 'kudo' }) };
  } catch (e) {
    if (e instanceof TemplateError) return { output: '', error: e.message };
    return {
      output: '',
      error: `non-TemplateError thrown: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
    };
  }
}

/** Why the two results differ, or undefined when they agree. */
function difference(go: OracleResult, ts: OracleResult): string | undefined {
  if (ts.error?.startsWith('non-TemplateError'))
    return 'Planwright threw something else than a TemplateError';
  if (go.error !== undefined && ts.error !== undefined) return undefined;
  if (go.error !== undefined) return 'KUDO fails, Planwright renders';
  if (ts.error !== undefined) return 'Planwright fails, KUDO renders';
  return go.output === ts.output ? undefined : 'outputs differ';
}

function report(p: RandomProgram, go: OracleResult, ts: OracleResult, why: string): string {
  return [
    `seed ${p.seed}: ${why}`,
    `template: ${JSON.stringify(p.template)}`,
    `data: ${JSON.stringify(p.data)}`,
    `KUDO:       ${go.error !== undefined ? `error ${go.error}` : JSON.stringify(go.output)}`,
    `Planwright: ${ts.error !== undefined ? `error ${ts.error}` : JSON.stringify(ts.output)}`,
  ].join('\n');
}

describe.each(seeds)('random template programs, run seed %d', (runSeed) => {
  it(`${count} programs render as KUDO renders them`, async () => {
    const programs = Array.from({ length: count }, (_, i) =>
      randomProgram(programSeed(runSeed, i)),
    );
    const go = await runOracle(programs.map((p) => ({ template: p.template, data: p.data })));
    expect(go).toHaveLength(programs.length);
    const failures: string[] = [];
    let rendered = 0;
    programs.forEach((p, i) => {
      const ts = renderTS(p);
      if (go[i]!.error === undefined) rendered++;
      const why = difference(go[i]!, ts);
      if (why !== undefined) failures.push(report(p, go[i]!, ts, why));
    });
    // A generator that produced only failing programs would compare nothing.
    expect(rendered).toBeGreaterThan(count / 2);
    expect({ differences: failures.length, first: failures.slice(0, 5) }).toEqual({
      differences: 0,
      first: [],
    });
  });
});
