/**
 * The inputs of the CLI differential test: every package of ../shared, broken variants of them
 * made in a scratch folder, and the package commands both CLIs run on each; plus the list of
 * allowed differences, read from docs/cli.md.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readdirSync } from 'node:fs';
import { repositoryRoot } from '../../../../src/localcluster/paths.ts';
import { KUDO_PACKAGES_DIR } from '../../../support/shared.ts';
import { runProcess, type CliResult } from '../built-cli.ts';

/** A command with `{pkg}` for the package folder (given as `./name`) and `{out}` for a folder. */
export const PACKAGE_COMMANDS: readonly string[] = [
  'package list parameters {pkg}',
  'package list parameters {pkg} -d',
  'package list parameters {pkg} --names',
  'package list parameters {pkg} --required',
  'package list plans {pkg}',
  'package list plans {pkg} --with-tasks',
  'package list tasks {pkg}',
  'package verify {pkg}',
  'package create {pkg} -d {out}',
];

type Edit = (dir: string) => void;

function edit(file: string, change: (text: string) => string): Edit {
  return (dir) => writeFileSync(join(dir, file), change(readFileSync(join(dir, file), 'utf8')));
}

const LONG_PARAMS = `apiVersion: kudo.dev/v1beta1
parameters:
  - name: A_PARAMETER_NAME_LONGER_THAN_THIRTY_FIVE_CHARACTERS
    description: "A description long enough to be wrapped at spaces by the table of the CLI."
    default: "a-default-value-without-spaces-that-is-much-too-long"
  - name: replicas
    description: Number of replicas
    default: 2
  - name: ports
    type: array
    default: [80, 443]
  - name: optional
    required: false
  - name: needed
    description: required and without default
`;

/** Broken or unusual variants: a base package of ../shared and what is changed in its copy. */
const VARIANTS: Record<string, { readonly base: string; readonly edits: readonly Edit[] }> = {
  'no-operator-version': {
    base: 'zookeeper',
    edits: [edit('operator.yaml', (t) => t.replace(/^operatorVersion:.*\n/m, ''))],
  },
  'params-unparsable': {
    base: 'cowsay',
    edits: [
      edit('params.yaml', () => 'apiVersion: kudo.dev/v1beta1\nparameters: [\n  - name: x\n'),
    ],
  },
  'params-not-a-list': {
    base: 'cowsay',
    edits: [edit('params.yaml', () => 'apiVersion: kudo.dev/v1beta1\nparameters: nope\n')],
  },
  'params-missing': {
    base: 'first-operator',
    edits: [(dir) => rmSync(join(dir, 'params.yaml'))],
  },
  'operator-missing': {
    base: 'first-operator',
    edits: [(dir) => rmSync(join(dir, 'operator.yaml'))],
  },
  'params-wrong-api-version': {
    base: 'first-operator',
    edits: [
      edit('params.yaml', (t) => t.replace(/^apiVersion:.*$/m, 'apiVersion: kudo.dev/v1alpha1')),
    ],
  },
  'long-values': {
    base: 'first-operator',
    edits: [edit('params.yaml', () => LONG_PARAMS)],
  },
  'missing-template': {
    base: 'first-operator',
    edits: [(dir) => rmSync(join(dir, 'templates', 'deployment.yaml'))],
  },
  // An array and a map parameter without a default: KUDO stored `null` and a line break.
  'nil-collection-defaults': {
    base: 'first-operator',
    edits: [
      edit(
        'params.yaml',
        (t) =>
          `${t}  - name: hosts\n    type: array\n  - name: labels\n    type: map\n    description: no default either\n`,
      ),
    ],
  },
  // One error of each of three checks KUDO runs in this order: the render, `kind: Namespace`
  // outside a namespace manifest, the namespace manifest named in operator.yaml.
  'verify-order': {
    base: 'first-operator',
    edits: [
      edit('operator.yaml', (t) => `${t.trimEnd()}\nnamespaceManifest: ns.yaml\n`),
      (dir) => writeFileSync(join(dir, 'templates', 'broken.yaml'), '{{ fail "boom" }}\n'),
      // A second document in a template a task uses (KUDO lists unreferenced templates in Go's
      // random map order: only one may be unreferenced here).
      edit(
        'templates/deployment.yaml',
        (t) => `${t.trimEnd()}\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: extra\n`,
      ),
    ],
  },
  'no-plans-no-tasks': {
    base: 'first-operator',
    edits: [edit('operator.yaml', (t) => t.replace(/^tasks:[\s\S]*$/m, 'tasks: []\nplans: {}\n'))],
  },
};

/** Copies the shared packages and makes the variants under `root`; returns all names. */
export function preparePackages(root: string): string[] {
  mkdirSync(root, { recursive: true });
  const shared = readdirSync(KUDO_PACKAGES_DIR).sort();
  for (const name of shared)
    cpSync(join(KUDO_PACKAGES_DIR, name), join(root, name), { recursive: true });
  for (const [name, variant] of Object.entries(VARIANTS)) {
    cpSync(join(KUDO_PACKAGES_DIR, variant.base), join(root, name), { recursive: true });
    for (const change of variant.edits) change(join(root, name));
  }
  return [...shared, ...Object.keys(VARIANTS)];
}

export type Stream = 'stdout' | 'stderr' | 'exit';

/** A row of docs/cli.md's "Deliberate differences from KUDO" table. */
export interface AllowedDifference {
  readonly command: string;
  /** Package names, or `*` for all. */
  readonly packages: readonly string[];
  readonly streams: readonly Stream[];
  readonly reason: string;
}

/**
 * The table under the heading `## Deliberate differences from KUDO`: columns Command (in
 * backquotes, the form of PACKAGE_COMMANDS), Packages (`*` or backquoted names), Differs
 * (stdout, stderr, exit) and Why.
 */
export function readAllowedDifferences(): AllowedDifference[] {
  const doc = readFileSync(join(repositoryRoot(), 'docs', 'cli.md'), 'utf8');
  const start = doc.indexOf('## Deliberate differences from KUDO');
  if (start < 0)
    throw new Error('docs/cli.md has no "## Deliberate differences from KUDO" section');
  const section = doc.slice(start).split('\n## ')[0] ?? '';
  const rows = section.split('\n').filter((l) => l.startsWith('| `'));
  return rows.map((line) => {
    const cells = line.split(' | ').map((c) => c.replace(/^\|\s*|\s*\|$/g, '').trim());
    const [command = '', packages = '', streams = '', reason = ''] = cells;
    return {
      command: command.replace(/^`|`$/g, ''),
      packages:
        packages === '*' ? ['*'] : [...packages.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? ''),
      streams: streams.split(',').map((s) => s.trim() as Stream),
      reason,
    };
  });
}

/** Runs one CLI (KUDO's binary, or node with ours) to the end; never rejects on its exit code. */
export function runCli(
  file: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<CliResult> {
  return runProcess(file, args, { cwd, env });
}
