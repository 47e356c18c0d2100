// Every corpus case is rendered by Go (the KUDO oracle, one process per case file) and by
// Planwright; outputs must be identical, or both sides must fail. Error messages must
// match too, unless a case says "looseError" (a documented divergence). A case using one of
// Planwright's extensions (which KUDO's map lacks) is held to the sprig v3 oracle instead.

import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderTemplate } from '../../src/gotemplate/index.ts';
import { TemplateError } from '../../src/gotemplate/index.ts';
import { kudoExtensions } from '../../src/gotemplate/funcs/kudo.ts';
import { here, runExtensionOracle, runOracle } from './oracle.ts';
import type { OracleCase, OracleResult } from './oracle.ts';
import { decodeTagged } from './tagged.ts';

interface CorpusCase extends OracleCase {
  looseError?: boolean;
}

interface CorpusFile {
  data?: unknown;
  cases: CorpusCase[];
}

const casesDir = join(here, 'cases');
const files = readdirSync(casesDir)
  .filter((f) => f.endsWith('.json'))
  .sort();

function renderTS(c: CorpusCase): OracleResult {
  try {
    return {
      output: renderTemplate(c.name ?? 'tpl', c.template, decodeTagged(c.data), { funcs: 'kudo' }),
    };
  } catch (e) {
    if (e instanceof TemplateError) return { output: '', error: e.message };
    return {
      output: '',
      error: `non-TemplateError thrown: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
    };
  }
}

/** KUDO fails to parse the case because it calls an extension. */
function usesExtension(r: OracleResult): boolean {
  const m = /function "(\w+)" not defined/.exec(r.error ?? '');
  return m !== null && kudoExtensions.includes(m[1]!);
}

describe.each(files)('gotemplate corpus %s', (file) => {
  const corpus = JSON.parse(readFileSync(join(casesDir, file), 'utf8')) as CorpusFile;
  // A case without its own data uses the file's.
  const cases = corpus.cases.map((c) => ('data' in c ? c : { ...c, data: corpus.data }));
  let goResults: OracleResult[] = [];

  it('renders with the Go oracle', async () => {
    goResults = await runOracle(cases);
    expect(goResults).toHaveLength(cases.length);
    const ext = goResults.flatMap((r, i) => (usesExtension(r) ? [i] : []));
    if (ext.length > 0) {
      const v3 = await runExtensionOracle(ext.map((i) => cases[i]!));
      ext.forEach((i, k) => (goResults[i] = v3[k]!));
    }
  });

  it.each(cases.map((c, i) => [i, c.template.slice(0, 60), c] as const))(
    'case %d: %s',
    (i, _label, c) => {
      const go = goResults[i]!;
      const ts = renderTS(c);
      if (go.error === undefined) {
        expect({ error: ts.error, output: ts.output }).toEqual({
          error: undefined,
          output: go.output,
        });
      } else {
        expect(ts.error).toBeDefined();
        if (!c.looseError && !go.error.startsWith('oracle: panic')) expect(ts.error).toBe(go.error);
        else expect(ts.error).not.toMatch(/^non-TemplateError/);
      }
    },
  );
});
