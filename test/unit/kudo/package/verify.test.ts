// package verify: every error and warning class of the spec on the broken fixture packages
// (exact texts, nothing else reported), the shared packages verifying clean, and the
// OperatorVersion entry point the validating webhook uses.
import { describe, expect, it } from '@jest/globals';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  packageResolver,
  packageResources,
  parsePackage,
  readFolderTree,
  resolveDependencies,
} from '../../../../src/kudo/package/index.ts';
import {
  parseParamChecks,
  verifyOperatorVersion,
  verifyPackage,
  type VerifyResult,
} from '../../../../src/kudo/verify/index.ts';
import type { OperatorVersion } from '../../../../src/kudo/api/types.ts';
import { KUDO_PACKAGES_DIR } from '../../../support/shared.ts';
import { FIXTURE_PACKAGES } from './helpers.ts';

const BROKEN = join(FIXTURE_PACKAGES, 'broken');

async function read(dir: string) {
  return parsePackage(await readFolderTree(dir), dir);
}

async function verifyBroken(name: string, paramChecks: string[] = []): Promise<VerifyResult> {
  return verifyPackage(await read(join(BROKEN, name)), {
    paramChecks: parseParamChecks(paramChecks),
  });
}

const TYPE_PROBLEM = (t: string, v: string, parser: string) =>
  `type is "${t}" but format of "${v}" is invalid: ${parser}: parsing "${v}": invalid syntax`;

/** fixture → [errors, warnings], complete and in order. */
const BROKEN_TABLE: Record<string, [string[], string[]]> = {
  parameters: [
    [
      'parameter "replicas" has a duplicate',
      `parameter "A;B" contains invalid character ';'`,
      `parameter "C,D" contains invalid character ','`,
      'parameter "LOCKED" is immutable but is not marked as required or has a default value',
      'parameter "EMPTY_ENUM" is an enum but has no allowed values',
      `parameter "PORT" has an invalid enum value: ${TYPE_PROBLEM('integer', 'http', 'strconv.ParseInt')}`,
      `parameter "RATIO" has an invalid default value: ${TYPE_PROBLEM('number', 'half', 'strconv.ParseFloat')}`,
      'parameter "COLOR" has an invalid default value: value is "blue", but only allowed values are [red green]',
      'plan "restart" used in parameter "BAD_TRIGGER" is not defined',
      'parameter "KIND" has an unknown type "text"; use one of string, integer, number, boolean, array, map',
    ],
    [
      'parameter "A;B" defined but not used.',
      'parameter "C,D" defined but not used.',
      'parameter "UNUSED" defined but not used.',
    ],
  ],
  versions: [
    [
      '"operatorVersion" is required and must be semver',
      'unable to parse "appVersion": Invalid Semantic Version',
      '"kubernetesVersion" is required and must be semver',
      'unable to parse "kudoVersion": Invalid Semantic Version',
    ],
    [],
  ],
  'versions-invalid': [
    [
      'unable to parse "operatorVersion": Invalid Semantic Version',
      'unable to parse "appVersion": Invalid Semantic Version',
    ],
    [],
  ],
  tasks: [
    [
      "task validation error: apply task 'apply-nothing' has an empty resource list. if that's what you need, use a Dummy task instead",
      "task validation error: delete task 'delete-nothing' has an empty resource list. if that's what you need, use a Dummy task instead",
      "task validation error: toggle task has an empty resource list. if that's what you need, use a Dummy task instead",
      'task validation error: Missing parameter to evaluate the Toggle Task',
      'task validation error: pipe task has an empty pipe files list',
      "task validation error: pipe file {/tmp/a /tmp/b ConfigMap b} must have either 'file' or 'envFile' field set but not both",
      'task validation error: invalid pipe kind (must be Secret or ConfigMap): {/tmp/a  Deployment c}',
      'task validation error: invalid pipe key (only letters, numbers and _ and - are allowed): { /tmp/a Secret a.b}',
      "task validation error: kudo operator task 'child' has an empty package name",
      'unknown task kind Shell',
      'task "missing-task" in plan "install" is not defined',
      "an operator is required to have 'deploy' plan",
      'parameter "NOT_A_PARAMETER" in ToggleTask toggle-undefined is not defined',
    ],
    ['task "spare" defined but not used'],
  ],
  templates: [
    [
      'parameter "DOLLAR" in template deployment.yaml is not defined',
      'parameter "IN_IF" in template deployment.yaml is not defined',
      'parameter "IN_WITH" in template deployment.yaml is not defined',
      'parameter "IN_RANGE" in template deployment.yaml is not defined',
      'template deployment.yaml defines an invalid implicit parameter "Foo"',
      'template file "syntax.yaml" reports the following error: template: syntax.yaml:5: unclosed action started at syntax.yaml:4',
      'template "missing.yaml" required by app but is not defined',
      'template "missing-pod.yaml" required by pipe but is not defined',
      'template "missing-params.yaml" required by child but is not defined',
      'error rendering template: template: deployment.yaml:4:23: executing "deployment.yaml" at <.Foo>: map has no entry for key "Foo"',
      "parsing rendered YAML from notyaml.yaml failed: Object 'Kind' is missing",
      'error rendering template: template: render.yaml:6:8: executing "render.yaml" at <fail "this template always fails">: error calling fail: this template always fails',
      // After rendering, as KUDO's NamespaceVerifier runs last.
      `template "namespace.yaml" contains 'kind: Namespace' not allowed unless specified as 'NamespaceManifest'`,
    ],
    ['template "unused.yaml" is not referenced from any task'],
  ],
  'namespace-missing': [['NamespaceManifest "ns.yaml" not found in /templates folder'], []],
  'namespace-empty': [['NamespaceManifest "ns.yaml" found but does not contain a manifest'], []],
  'namespace-two': [
    ['NamespaceManifest "ns.yaml" found but contains 2 manifests which is greater than 1'],
    [],
  ],
  'namespace-not-namespace': [
    ['NamespaceManifest "ns.yaml" found but manifest is not kind: Namespace'],
    [],
  ],
  pipes: [['duplicated pipe key page in plan deploy'], []],
  groups: [
    [
      'parameter group "main" is duplicated',
      `parameter group "a/b" contains invalid character '/'`,
      `parameter "SLASHED" has a group with invalid character '/'`,
      'parameter "NOWHERE" has a group "elsewhere" that is not defined in the group section',
      'parameter "ADVANCED" is marked as advanced, but also as required and has no default. An advanced parameter must either be optional or have a default value',
    ],
    [],
  ],
};

describe('verifyPackage on broken packages', () => {
  it('has a table row for every broken fixture', async () => {
    expect((await readdir(BROKEN)).sort()).toEqual(Object.keys(BROKEN_TABLE).sort());
  });

  it.each(Object.entries(BROKEN_TABLE))('%s', async (name, [errors, warnings]) => {
    const result = await verifyBroken(name);
    expect(result.errors).toEqual(errors);
    expect(result.warnings).toEqual(warnings);
    expect(result.valid).toBe(errors.length === 0);
    for (const finding of result.findings) expect(finding.field).toEqual(expect.any(String));
  });

  it('points each finding at its field', async () => {
    const result = await verifyBroken('parameters');
    expect(result.findings.slice(0, 2)).toEqual([
      {
        severity: 'error',
        message: 'parameter "replicas" has a duplicate',
        field: 'params.yaml: parameters[1]',
      },
      {
        severity: 'error',
        message: `parameter "A;B" contains invalid character ';'`,
        field: 'params.yaml: parameters[2]',
      },
    ]);
    expect((await verifyBroken('templates')).findings).toContainEqual({
      severity: 'warning',
      message: 'template "unused.yaml" is not referenced from any task',
      field: 'templates/unused.yaml',
    });
  });

  it('adds the --param-checks style warnings only when asked', async () => {
    const all = await verifyBroken('groups', ['all']);
    expect(all.warnings).toEqual([
      'parameter "SLASHED" has no description',
      'parameter "SLASHED" has no hint',
      'parameter "SLASHED" has no displayName',
      'parameter "SLASHED" has no explicit type assigned',
      'parameter "NOWHERE" has no description',
      'parameter "NOWHERE" has no hint',
      'parameter "NOWHERE" has no displayName',
      'parameter "NOWHERE" has no explicit type assigned',
      'parameter "ADVANCED" has no description',
      'parameter "ADVANCED" has no hint',
      'parameter "ADVANCED" has no displayName',
      'parameter "ADVANCED" has no group',
      'parameter "ADVANCED" has no explicit type assigned',
      'parameter group "main" has a displayName that does not start with a capital letter',
      'parameter group "main" has no description',
      `parameter group "a/b" has a displayName ending with ':'`,
      `parameter group "a/b" has a description not ending with one of '.!?)'`,
    ]);
    expect((await verifyBroken('groups', ['type'])).warnings).toEqual([
      'parameter "SLASHED" has no explicit type assigned',
      'parameter "NOWHERE" has no explicit type assigned',
      'parameter "ADVANCED" has no explicit type assigned',
    ]);
    expect(() => parseParamChecks(['color'])).toThrow(
      'unknown parameter check: color, must be one of [display hint desc type hasgroup groups all]',
    );
  });
});

async function sharedDirs(): Promise<string[]> {
  return [
    ...(await readdir(KUDO_PACKAGES_DIR)).map((p) => join(KUDO_PACKAGES_DIR, p)),
    join(FIXTURE_PACKAGES, 'dependency-parent'),
    join(FIXTURE_PACKAGES, 'dependency-child'),
  ];
}

describe('verifyPackage on real packages', () => {
  it('finds no error and no warning in any shared KUDO package or fixture (as KUDO would)', async () => {
    for (const dir of await sharedDirs()) {
      const result = verifyPackage(await read(dir));
      expect({ dir, errors: result.errors, warnings: result.warnings }).toEqual({
        dir,
        errors: [],
        warnings: [],
      });
    }
  });
});

describe('verifyOperatorVersion', () => {
  it('accepts the OperatorVersion of every shared package', async () => {
    for (const dir of await sharedDirs()) {
      if (dir.endsWith('dependency-parent')) continue; // unresolved KudoOperator task, below
      const ov = packageResources(await read(dir)).operatorVersion;
      expect({ dir, ...verifyOperatorVersion(ov) }).toMatchObject({
        dir,
        valid: true,
        warnings: [],
      });
    }
  });

  it('requires resolved KudoOperator versions, which dependency resolution writes', async () => {
    const root = await packageResolver({ cwd: FIXTURE_PACKAGES }).resolve('./dependency-parent');
    expect(verifyOperatorVersion(root.resources.operatorVersion).findings).toEqual([
      {
        severity: 'error',
        message: "task validation error: kudo operator task 'child' has an empty operatorVersion",
        field: 'spec.tasks[1]',
      },
    ]);
    await resolveDependencies(root);
    expect(verifyOperatorVersion(root.resources.operatorVersion).valid).toBe(true);
  });

  it('reports the package checks that apply to an OperatorVersion, at spec fields', async () => {
    const ov = packageResources(await read(join(BROKEN, 'parameters'))).operatorVersion;
    const result = verifyOperatorVersion(ov);
    expect(result.errors).toEqual(BROKEN_TABLE['parameters']![0]);
    expect(result.findings[0]).toEqual({
      severity: 'error',
      message: 'parameter "replicas" has a duplicate',
      field: 'spec.parameters[1]',
    });
    expect(result.findings).toContainEqual({
      severity: 'error',
      message:
        'parameter "KIND" has an unknown type "text"; use one of string, integer, number, boolean, array, map',
      field: 'spec.parameters[12].type',
    });
  });

  it('checks version and templates of a hand-written OperatorVersion; render: false skips rendering', () => {
    const ov: OperatorVersion = {
      metadata: { name: 'hand-1' },
      spec: {
        operator: { name: 'hand', kind: 'Operator' },
        templates: {
          'ns.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n',
          'bad.yaml': '{{ fail "no" }}',
        },
        tasks: [{ name: 'app', kind: 'Apply', spec: { resources: ['ns.yaml', 'bad.yaml'] } }],
        plans: { deploy: { phases: [{ name: 'p', steps: [{ name: 's', tasks: ['app'] }] }] } },
      },
    };
    expect(verifyOperatorVersion(ov).findings).toEqual([
      {
        severity: 'error',
        message: '"version" is required and must be semver',
        field: 'spec.version',
      },
      // KUDO's order: rendering, then `kind: Namespace`.
      {
        severity: 'error',
        message:
          'error rendering template: template: bad.yaml:1:3: executing "bad.yaml" at <fail "no">: error calling fail: no',
        field: 'spec.templates[bad.yaml]',
      },
      {
        severity: 'error',
        message: `template "ns.yaml" contains 'kind: Namespace' not allowed unless specified as 'NamespaceManifest'`,
        field: 'spec.templates[ns.yaml]',
      },
    ]);
    const staticOnly = verifyOperatorVersion(ov, { render: false, namespaceManifest: 'ns.yaml' });
    expect(staticOnly.errors).toEqual(['"version" is required and must be semver']);
  });
});
