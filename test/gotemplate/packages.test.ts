// Every template of every KUDO package in ../shared/kudo-packages, rendered with its
// params.yaml defaults and KUDO's variable map, must come out of Planwright exactly as it
// comes out of Go.

import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { TemplateError, renderTemplate } from '../../src/gotemplate/index.ts';
import { formatFloat } from '../../src/gotemplate/fmt.ts';
import { runOracle, sharedDir } from './oracle.ts';
import type { OracleCase, OracleResult } from './oracle.ts';
import { decodeTagged } from './tagged.ts';

const packagesDir = join(sharedDir, 'kudo-packages');

interface Param {
  name: string;
  default?: unknown;
  type?: string;
}

/** A scalar default as KUDO stores it: fmt.Sprintf("%v") of the sigs.k8s.io/yaml value. */
function paramString(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'number') return formatFloat(v, 'g', -1);
  return typeof v === 'string' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** KUDO's template variables for one package (renderer.VariableMap, params typed per KUDO). */
function variables(pkg: string, templates: Record<string, string>): unknown {
  const operator = parseYaml(
    readFileSync(join(packagesDir, pkg, 'operator.yaml'), 'utf8'),
  ) as Record<string, unknown>;
  const params = (
    parseYaml(readFileSync(join(packagesDir, pkg, 'params.yaml'), 'utf8')) as {
      parameters?: Param[];
    }
  ).parameters;
  const Params: Record<string, unknown> = {};
  for (const p of params ?? []) {
    if (p.type === 'array' || p.type === 'map') {
      Params[p.name] = typeof p.default === 'string' ? parseYaml(p.default) : (p.default ?? null);
    } else Params[p.name] = paramString(p.default);
  }
  const pipes: Record<string, string> = {};
  for (const t of Object.values(templates)) {
    for (const m of t.matchAll(/\.Pipes\.(\w+)/g)) pipes[m[1]!] = `instance-${m[1]!.toLowerCase()}`;
  }
  return {
    OperatorName: operator.name,
    OperatorVersion: operator.operatorVersion ?? operator.version,
    AppVersion: operator.appVersion ?? '',
    Name: `${String(operator.name)}-instance`,
    Namespace: 'default',
    PlanName: 'deploy',
    PhaseName: 'main',
    StepName: 'everything',
    Params,
    Pipes: { $strmap: pipes },
  };
}

const packages = existsSync(packagesDir) ? readdirSync(packagesDir).sort() : [];

describe('KUDO packages render identically in Go and Planwright', () => {
  it('finds the shared packages', () => {
    expect(packages.length).toBeGreaterThan(0);
  });

  const cases: (OracleCase & { pkg: string })[] = [];
  for (const pkg of packages) {
    const dir = join(packagesDir, pkg, 'templates');
    const templates: Record<string, string> = {};
    for (const f of readdirSync(dir).sort()) templates[f] = readFileSync(join(dir, f), 'utf8');
    const data = variables(pkg, templates);
    for (const [name, template] of Object.entries(templates))
      cases.push({ pkg, name, template, data });
  }

  let go: OracleResult[] = [];
  it('renders with the Go oracle', async () => {
    go = await runOracle(cases);
    expect(go).toHaveLength(cases.length);
  });

  it.each(cases.map((c, i) => [`${c.pkg}/${c.name!}`, i] as const))('%s', (_label, i) => {
    const c = cases[i]!;
    const expected = go[i]!;
    let actual: OracleResult;
    try {
      actual = {
        output: renderTemplate(c.name!, c.template, decodeTagged(c.data), {
          funcs: 'kudo',
          missingKey: 'error',
        }),
      };
    } catch (e) {
      if (!(e instanceof TemplateError)) throw e;
      actual = { output: '', error: e.message };
    }
    expect(actual).toEqual(expected);
    // The packages are meant to render: a failure on both sides would hide a broken setup.
    expect(expected.error).toBeUndefined();
  });
});
