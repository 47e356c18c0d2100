// Writes charts/planwright from manifests/ (helm-chart.ts): run it after changing manifests/,
// `node --import ./scripts/register-ts.mjs src/cli/generate-chart.ts`.
// test/unit/charts/chart.test.ts fails while the chart in the repository differs.
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { helmChartFiles } from './helm-chart.ts';
import { repositoryRoot } from '../localcluster/index.ts';

const root = repositoryRoot();
const chart = join(root, 'charts', 'planwright');
const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
  version: string;
};
const files = await helmChartFiles({ version });
// Templates no longer generated go (the README and NOTES.txt are written by hand).
const templates = join(chart, 'templates');
await mkdir(templates, { recursive: true });
for (const name of await readdir(templates)) {
  if (name.endsWith('.yaml') && !files.some((f) => f.path === `templates/${name}`)) {
    await rm(join(templates, name));
  }
}
for (const file of files) {
  await mkdir(dirname(join(chart, file.path)), { recursive: true });
  await writeFile(join(chart, file.path), file.text);
}
process.stdout.write(`wrote ${files.length} files to ${chart}\n`);
