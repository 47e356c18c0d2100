// The function map against Go's: every function KUDO's map (sprig v2.22) has is either
// implemented here or listed as not implemented (with the reason); what Planwright has beyond
// it is exactly the documented extensions, each a sprig v3 function; each implemented one is
// exercised by the differential corpus, and a listed one fails the way an undefined function
// fails in Go.

import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderTemplate, TemplateError } from '../../src/gotemplate/index.ts';
import {
  kudoExtensions,
  kudoFuncNames,
  kudoNotImplemented,
} from '../../src/gotemplate/funcs/kudo.ts';
import { extensionOracleFuncNames, here, oracleFuncNames } from './oracle.ts';

const casesDir = join(here, 'cases');
const templates: string[] = readdirSync(casesDir)
  .filter((f) => f.endsWith('.json'))
  .flatMap((f) =>
    (
      JSON.parse(readFileSync(join(casesDir, f), 'utf8')) as { cases: { template: string }[] }
    ).cases.map((c) => c.template),
  );

describe('the kudo function map', () => {
  it('covers KUDO’s map exactly: implemented or listed as not implemented', async () => {
    const kudo = new Set(await oracleFuncNames());
    const v3 = new Set(await extensionOracleFuncNames());
    const implemented = kudoFuncNames();
    const listed = Object.keys(kudoNotImplemented);
    // Beyond KUDO's map: exactly the documented extensions, all of them sprig v3 functions.
    expect(implemented.filter((n) => !kudo.has(n)).sort()).toEqual([...kudoExtensions].sort());
    expect(kudoExtensions.filter((n) => !v3.has(n))).toEqual([]);
    expect(listed.filter((n) => !kudo.has(n) && !v3.has(n))).toEqual([]);
    expect(listed.filter((n) => implemented.includes(n))).toEqual([]);
    const accounted = new Set([...implemented, ...listed]);
    expect([...kudo].filter((n) => !accounted.has(n)).sort()).toEqual([]);
  });

  it('has every implemented function in at least one corpus case', () => {
    const unused = kudoFuncNames().filter(
      (name) => !templates.some((t) => new RegExp(`(^|[^\\w.$])${name}($|[^\\w])`).test(t)),
    );
    expect(unused).toEqual([]);
  });

  it.each(Object.keys(kudoNotImplemented))(
    'fails on %s as Go fails on an undefined function',
    (name) => {
      let error: unknown;
      try {
        renderTemplate('tpl', `{{ ${name} }}`, null, { funcs: 'kudo' });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TemplateError);
      expect((error as Error).message).toBe(`template: tpl:1: function "${name}" not defined`);
    },
  );
});
