// charts/planwright is generated from manifests/ (src/cli/helm-chart.ts): this fails when a
// file of the chart in the repository is not what the generator writes from manifests/ now —
// a manifest changed without the chart, or the chart edited by hand. The fix is to run
// `node --import ./scripts/register-ts.mjs src/cli/generate-chart.ts`.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { helmChartFiles } from '../../../src/cli/helm-chart.ts';
import { repositoryRoot } from '../../../src/localcluster/paths.ts';

const ROOT = repositoryRoot();
const CHART = join(ROOT, 'charts', 'planwright');
const VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
const FIX = 'run `node --import ./scripts/register-ts.mjs src/cli/generate-chart.ts`';

describe('charts/planwright against manifests/', () => {
  it('holds exactly the files the generator writes from manifests/', async () => {
    const files = await helmChartFiles({ version: VERSION });
    const stale = files
      .filter(
        (f) =>
          !existsSync(join(CHART, f.path)) || readFileSync(join(CHART, f.path), 'utf8') !== f.text,
      )
      .map((f) => `${f.path} differs from manifests/: ${FIX}`);
    const extra = readdirSync(join(CHART, 'templates'))
      .filter((name) => name.endsWith('.yaml'))
      .filter((name) => !files.some((f) => f.path === `templates/${name}`))
      .map((name) => `templates/${name} is not generated from manifests/: ${FIX}`);
    expect([...stale, ...extra]).toEqual([]);
  });

  it('templates every object of both variants but the Namespace', async () => {
    const files = await helmChartFiles({ version: VERSION });
    const templates = files.filter(
      (f) => f.path.startsWith('templates/') && f.path.endsWith('.yaml'),
    );
    const names = templates.map((f) => f.path);
    expect(names).toEqual(
      expect.arrayContaining([
        'templates/deployment-planwright.yaml',
        'templates/lease-planwright-leader.yaml',
        'templates/issuer-planwright-webhook-ca.yaml',
        'templates/role-planwright-webhook-tls.yaml',
        'templates/customresourcedefinition-instances.kudo.dev.yaml',
      ]),
    );
    expect(names.some((n) => n.startsWith('templates/namespace-'))).toBe(false);
    // The release's namespace everywhere manifests/ say planwright-system.
    expect(
      templates.filter((f) => f.text.includes('planwright-system')).map((f) => f.path),
    ).toEqual([]);
  });
});
