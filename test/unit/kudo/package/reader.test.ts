// Reading packages: file layout, typed model, KUDO's read-time checks and their texts.
import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import {
  loadPackageDefinition,
  PackageReadError,
  parsePackage,
  readFolderTree,
  readTimeProblems,
  type FileTree,
} from '../../../../src/kudo/package/index.ts';
import { minimalPackage } from './helpers.ts';
import { FIXTURE_PACKAGES } from './helpers.ts';

function tree(files: Record<string, string>): FileTree {
  return new Map(Object.entries(files).map(([k, v]) => [k, Buffer.from(v)]));
}

describe('parsePackage', () => {
  it('keys templates by their path below templates/, only files whose name contains .yaml', () => {
    const pkg = parsePackage(
      tree({
        ...minimalPackage('t'),
        'templates/deployments/deployment.yaml': 'a',
        'templates/notes.txt': 'ignored',
        'templates/x.yaml.tpl': 'kept: name contains .yaml',
        'child/operator.yaml': 'name: child',
        'README.md': 'ignored',
      }),
      '/p',
    );
    expect(Object.keys(pkg.templates)).toEqual([
      'cm.yaml',
      'deployments/deployment.yaml',
      'x.yaml.tpl',
    ]);
  });

  it('reads operator.yaml and params.yaml fields, UI-only ones included, with KUDO defaults', () => {
    const pkg = parsePackage(
      tree({
        'operator.yaml': [
          'name: op',
          'description: d',
          'operatorVersion: 0.1.0',
          'appVersion: 1.10',
          'kudoVersion: 0.19.0',
          'kubernetesVersion: 1.16',
          'maintainers: [{name: a, email: b}]',
          'url: https://x',
          'namespaceManifest: ns.yaml',
          'tasks: [{name: t, kind: Dummy, spec: {done: true, unknownField: 1}}]',
          'plans: {deploy: {strategy: serial, phases: [{name: p, strategy: parallel, steps: [{name: s, tasks: [t]}]}]}}',
        ].join('\n'),
        'params.yaml': [
          'groups: [{name: g, displayName: G, description: gd, prio: 2}]',
          'parameters:',
          '  - {name: A, displayName: dA, description: descA, group: g, advanced: true, hint: h, trigger: deploy, immutable: true, type: integer, default: 3}',
          '  - {name: B, required: false, enum: [x, y], default: x}',
          '  - {name: C, type: map, default: {k: 1000000, l: [1, 2]}}',
          '  - {name: D, default: null}',
        ].join('\n'),
      }),
      '/p',
    );
    expect(pkg.operator).toEqual({
      apiVersion: 'kudo.dev/v1beta1',
      name: 'op',
      description: 'd',
      operatorVersion: '0.1.0',
      appVersion: '1.10',
      kudoVersion: '0.19.0',
      kubernetesVersion: '1.16',
      maintainers: [{ name: 'a', email: 'b' }],
      url: 'https://x',
      namespaceManifest: 'ns.yaml',
      tasks: [{ name: 't', kind: 'Dummy', spec: { done: true } }],
      plans: {
        deploy: {
          strategy: 'serial',
          phases: [{ name: 'p', strategy: 'parallel', steps: [{ name: 's', tasks: ['t'] }] }],
        },
      },
    });
    expect(pkg.params.groups).toEqual([
      { name: 'g', displayName: 'G', description: 'gd', prio: 2 },
    ]);
    expect(pkg.params.parameters).toEqual([
      {
        name: 'A',
        displayName: 'dA',
        description: 'descA',
        group: 'g',
        advanced: true,
        hint: 'h',
        trigger: 'deploy',
        immutable: true,
        required: true,
        type: 'integer',
        default: '3',
      },
      { name: 'B', required: false, immutable: false, enum: ['x', 'y'], default: 'x' },
      {
        name: 'C',
        required: true,
        immutable: false,
        type: 'map',
        default: 'k: 1000000\nl:\n- 1\n- 2\n',
      },
      { name: 'D', required: true, immutable: false },
    ]);
  });

  it('accepts a missing apiVersion, refuses another one with KUDO text', () => {
    const files = minimalPackage('v');
    expect(parsePackage(tree(files), '/p').operator.apiVersion).toBe('kudo.dev/v1beta1');
    const refused =
      (file: string, text: string): (() => unknown) =>
      () =>
        parsePackage(tree({ ...files, [file]: text }), '/p');
    expect(refused('operator.yaml', 'apiVersion: kudo.dev/v1alpha1\nname: v')).toThrow(
      'expecting supported API version kudo.dev/v1beta1 but got kudo.dev/v1alpha1',
    );
    expect(refused('params.yaml', 'apiVersion: v2\nparameters: []')).toThrow(
      'failed to unmarshal parameters file: params.yaml: expecting supported API version kudo.dev/v1beta1 but got v2',
    );
  });

  it('names the missing file and the folder', () => {
    expect(() => parsePackage(tree({ 'params.yaml': '' }), '/pkg')).toThrow(
      'operator package missing operator.yaml in /pkg',
    );
    expect(() => parsePackage(tree({ 'operator.yaml': 'name: x' }), '/pkg')).toThrow(
      'operator package missing params.yaml in /pkg',
    );
  });

  it.each([
    [
      'operator.yaml',
      'name: s\ntasks: 5',
      'failed to unmarshal operator file: tasks must be a list, got the number 5',
    ],
    [
      'params.yaml',
      'parameters:\n  - name: A\n    required: "yes"',
      'failed to unmarshal parameters file: params.yaml: parameters[0].required must be true or false, got the string "yes"',
    ],
    ['operator.yaml', 'name: [unclosed', /^failed to unmarshal operator file: line 1: /],
  ])('names the field when %s has the wrong shape or does not parse: %s', (file, text, message) => {
    const files = { ...minimalPackage('s'), [file]: text };
    expect(() => parsePackage(tree(files), '/p')).toThrow(message);
  });
});

describe('read-time checks', () => {
  const operator = (tasks: string) =>
    `name: c\noperatorVersion: 0.1.0\ntasks:\n${tasks}\nplans: {}\n`;

  it('reports every broken task with KUDO texts, joined by newlines', () => {
    const files = tree({
      ...minimalPackage('c'),
      'operator.yaml': operator(
        [
          '  - {name: a, kind: Apply, spec: {resources: [cm.yaml, missing.yaml]}}',
          '  - {name: t, kind: Toggle, spec: {resources: [cm.yaml]}}',
          '  - {name: p, kind: Pipe, spec: {pod: pod.yaml}}',
          '  - {name: k, kind: KudoOperator, spec: {package: x, parameterFile: params.yaml}}',
          '  - {name: w, kind: Whatever}',
          '  - {name: d, kind: Dummy}',
        ].join('\n'),
      ),
    });
    const expected = [
      'task a missing template: missing.yaml',
      'toggle task t does not have parameter specified',
      'task p does not have pipe files specified',
      'task p missing template: pod.yaml',
      'task k missing template: params.yaml',
      'unknown task kind Whatever',
    ];
    expect(readTimeProblems(parsePackage(files, '/c'))).toEqual(expected);
    let caught: unknown;
    try {
      loadPackageDefinition(files, '/c');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(PackageReadError);
    expect((caught as PackageReadError).message).toBe(expected.join('\n'));
    expect((caught as PackageReadError).problems).toEqual(expected);
  });

  it('passes the fixture packages and every shared KUDO package', async () => {
    for (const dir of ['dependency-parent', 'dependency-child']) {
      const pkg = loadPackageDefinition(await readFolderTree(join(FIXTURE_PACKAGES, dir)), dir);
      expect(pkg.operator.name).toBe(dir);
    }
  });
});
