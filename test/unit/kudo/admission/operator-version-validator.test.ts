// The validating webhooks for OperatorVersions and Operators around the shared verifier:
// verification errors admitted as warnings (as KUDO admits the package) or, under the strict
// policy, one 422 cause per error (the three problems of the example); warnings as
// admission warnings, Planwright's own probe always refused, a spec change of an OperatorVersion in use admitted with a warning
// naming the Instances, deletions of what Instances use refused naming them, and lookups that
// fail refusing rather than guessing.
import { describe, expect, it } from '@jest/globals';
import { type Level, pino } from 'pino';
import {
  operatorValidator,
  operatorVersionValidator,
  WEBHOOK_PROBE_ANNOTATION,
  type KudoUsage,
  type PackagePolicy,
} from '../../../../src/kudo/admission/index.ts';
import type { Instance, Operator, OperatorVersion } from '../../../../src/kudo/api/index.ts';
import { verifyOperatorVersion } from '../../../../src/kudo/verify/index.ts';
import { RenderLimitError } from '../../../../src/kudo/pool/index.ts';
import type { AdmissionRequest, AdmissionResult } from '../../../../src/server/index.ts';
import { brokenOperatorVersion } from '../../../support/operator-versions.ts';

const silent = pino({ level: 'silent' });
const context = {
  signal: new AbortController().signal,
  dryRun: false,
  logger: silent,
  isLevelEnabled: (level: Level): boolean => silent.isLevelEnabled(level),
};

function goodOperatorVersion(): OperatorVersion {
  const ov = brokenOperatorVersion('good-0.1.0', 'ns');
  ov.spec!.templates!['config.yaml'] =
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}\ndata:\n  mode: {{ .Params.MODE }}\n';
  ov.spec!.plans!['deploy']!.phases![0]!.steps![0]!.tasks = ['app'];
  ov.spec!.parameters![0]!.default = 'fast';
  return ov;
}

function request(
  operation: AdmissionRequest['operation'],
  object: unknown,
  oldObject: unknown = null,
  resource = 'operatorversions',
): AdmissionRequest {
  return {
    uid: 'r1',
    kind: { group: 'kudo.dev', version: 'v1beta1', kind: 'OperatorVersion' },
    resource: { group: 'kudo.dev', version: 'v1beta1', resource },
    name: 'x',
    namespace: 'ns',
    operation,
    userInfo: { username: 'alice', groups: [] },
    object: object as AdmissionRequest['object'],
    oldObject: oldObject as AdmissionRequest['oldObject'],
    dryRun: false,
  };
}

function user(name: string, ov: string, deleting = false): Instance {
  return {
    metadata: {
      name,
      namespace: 'ns',
      ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: { operatorVersion: { name: ov } },
  };
}

function usage(
  users: Record<string, Instance[]>,
  ovs: OperatorVersion[] = [],
  fail = false,
): KudoUsage {
  return {
    instancesUsing: ({ namespace, name }) =>
      fail
        ? Promise.reject(new Error('the apiserver is away'))
        : Promise.resolve(users[`${namespace}/${name}`] ?? []),
    operatorVersionsOf: (namespace, operator) =>
      Promise.resolve(
        ovs.filter(
          (o) => o.metadata.namespace === namespace && o.spec?.operator?.name === operator,
        ),
      ),
  };
}

const noOperators = { get: (): Promise<Operator | undefined> => Promise.resolve(undefined) };

function validator(
  u: KudoUsage = usage({}),
  policy: PackagePolicy = 'warn',
): ReturnType<typeof operatorVersionValidator> {
  return operatorVersionValidator({
    verify: (ov, namespaceManifest) =>
      Promise.resolve(verifyOperatorVersion(ov, { namespaceManifest })),
    operators: noOperators,
    usage: u,
    policy,
  });
}

async function run(
  handler: ReturnType<typeof operatorVersionValidator>,
  req: AdmissionRequest,
): Promise<AdmissionResult> {
  return handler(req, context);
}

describe('OperatorVersion validating webhook', () => {
  it('admits an invalid package as KUDO does, each verify error a warning on its field', async () => {
    const result = await run(
      validator(),
      request('CREATE', brokenOperatorVersion('broken-0.1.0', 'ns')),
    );
    expect(result).toEqual({
      kind: 'allow',
      warnings: [
        'OperatorVersion ns/broken-0.1.0 has 3 package verify errors; admitted as KUDO admits it: what they affect fails when a plan runs (kubectl kudo package verify <folder> reports the same).',
        'OperatorVersion ns/broken-0.1.0: error: spec.parameters[0].default: parameter "MODE" has an invalid default value: value is "turbo", but only allowed values are [fast safe]',
        'OperatorVersion ns/broken-0.1.0: error: spec.plans[deploy].phases[0].steps[0].tasks[1]: task "migrate" in plan "deploy" is not defined',
        'OperatorVersion ns/broken-0.1.0: error: spec.templates[config.yaml]: template file "config.yaml" reports the following error: template: config.yaml:6: unexpected "}" in operand',
      ],
    });
  });

  it("admits KUDO's integration packages: no spec.operator.name, an unused parameter", async () => {
    const ov: OperatorVersion = {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'OperatorVersion',
      metadata: { name: 'icto-no-trigger', namespace: 'ns' },
      spec: { version: '1.0', parameters: [{ name: 'foo' }], plans: { deploy: {} } },
    };
    const result = await run(validator(), request('CREATE', ov));
    expect(result).toEqual({
      kind: 'allow',
      warnings: [
        'OperatorVersion ns/icto-no-trigger has 1 package verify error; admitted as KUDO admits it: what it affects fails when a plan runs (kubectl kudo package verify <folder> reports the same).',
        'OperatorVersion ns/icto-no-trigger: error: spec.operator.name: "spec.operator.name" is required',
        'OperatorVersion ns/icto-no-trigger: spec.parameters[0]: parameter "foo" defined but not used.',
      ],
    });
  });

  it('admits a parameter triggering an undefined plan, with the warning', async () => {
    const ov = goodOperatorVersion();
    ov.spec!.parameters![0]!.trigger = 'missing-plan';
    const result = await run(validator(), request('CREATE', ov));
    expect(result.kind).toBe('allow');
    expect(result.warnings).toContain(
      'OperatorVersion ns/good-0.1.0: error: spec.parameters[0].trigger: plan "missing-plan" used in parameter "MODE" is not defined',
    );
  });

  it('refuses an invalid package under the strict policy, one cause per problem, on its field', async () => {
    const result = await run(
      validator(usage({}), 'strict'),
      request('CREATE', brokenOperatorVersion('broken-0.1.0', 'ns')),
    );
    expect(result.kind).toBe('deny');
    if (result.kind !== 'deny') return;
    expect(result.status.code).toBe(422);
    expect(result.status.reason).toBe('Invalid');
    expect(result.status.details?.causes).toEqual([
      {
        field: 'spec.parameters[0].default',
        message:
          'parameter "MODE" has an invalid default value: value is "turbo", but only allowed values are [fast safe]',
        reason: 'FieldValueInvalid',
      },
      {
        field: 'spec.plans[deploy].phases[0].steps[0].tasks[1]',
        message: 'task "migrate" in plan "deploy" is not defined',
        reason: 'FieldValueInvalid',
      },
      {
        field: 'spec.templates[config.yaml]',
        message:
          'template file "config.yaml" reports the following error: template: config.yaml:6: unexpected "}" in operand',
        reason: 'FieldValueInvalid',
      },
    ]);
    expect(result.status.message).toMatch(
      /^OperatorVersion ns\/broken-0\.1\.0 is not a valid package \(strict package admission\): 3 problems: .*kubectl kudo package verify/,
    );
  });

  it('admits a valid package, passing its warnings on', async () => {
    const ov = goodOperatorVersion();
    ov.spec!.templates!['unused.yaml'] = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n';
    const result = await run(validator(), request('CREATE', ov));
    expect(result).toEqual({
      kind: 'allow',
      warnings: [
        'OperatorVersion ns/good-0.1.0: spec.templates[unused.yaml]: template "unused.yaml" is not referenced from any task',
      ],
    });
  });

  it('admits a spec change of an OperatorVersion in use with a warning naming the Instances', async () => {
    const old = goodOperatorVersion();
    const changed = goodOperatorVersion();
    changed.spec!.parameters![0]!.default = 'safe';
    const u = usage({
      'ns/good-0.1.0': [user('b', 'good-0.1.0'), user('a', 'good-0.1.0', true)],
    });
    const result = await run(validator(u), request('UPDATE', changed, old));
    expect(result.kind).toBe('allow');
    expect(result.warnings[0]).toBe(
      'OperatorVersion ns/good-0.1.0 is used by ns/a (being deleted), ns/b: their next plan runs with the changed spec. Prefer publishing a new version and upgrading (kubectl kudo upgrade).',
    );
  });

  it('does not verify a metadata-only update (a broken OperatorVersion can still lose its finalizer)', async () => {
    const broken = brokenOperatorVersion('broken-0.1.0', 'ns');
    const labelled = structuredClone(broken);
    labelled.metadata.labels = { a: 'b' };
    expect(await run(validator(), request('UPDATE', labelled, broken))).toEqual({
      kind: 'allow',
      warnings: [],
    });
  });

  it('refuses deleting an OperatorVersion in use, naming the Instances, and allows it when unused', async () => {
    const ov = goodOperatorVersion();
    const u = usage({ 'ns/good-0.1.0': [user('zk', 'good-0.1.0')] });
    const refused = await run(validator(u), request('DELETE', null, ov));
    expect(refused).toMatchObject({
      kind: 'deny',
      status: {
        code: 403,
        reason: 'Forbidden',
        message: expect.stringContaining(
          'OperatorVersion ns/good-0.1.0 is used by Instance ns/zk: deleting it would leave them without their plans',
        ),
      },
    });
    expect(refused.kind === 'deny' && refused.status.message).toContain(
      'kubectl delete instance zk -n ns',
    );
    expect((await run(validator(), request('DELETE', null, ov))).kind).toBe('allow');
  });

  it('refuses a deletion it cannot check (failing closed), saying why', async () => {
    const result = await run(
      validator(usage({}, [], true)),
      request('DELETE', null, goodOperatorVersion()),
    );
    expect(result).toMatchObject({
      kind: 'deny',
      status: {
        code: 500,
        message: expect.stringContaining(
          'cannot tell whether Instances use OperatorVersion ns/good-0.1.0: the apiserver is away',
        ),
      },
    });
  });

  it('admits a package whose verification runs past the deadline with a warning; strict refuses it, naming the limit', async () => {
    const handler = (policy: PackagePolicy): ReturnType<typeof operatorVersionValidator> =>
      operatorVersionValidator({
        verify: () =>
          Promise.reject(
            new RenderLimitError(
              'package verification',
              'deadline',
              'did not finish within 4000 ms',
            ),
          ),
        operators: noOperators,
        usage: usage({}),
        policy,
      });
    expect(await run(handler('warn'), request('CREATE', goodOperatorVersion()))).toEqual({
      kind: 'allow',
      warnings: [
        expect.stringContaining(
          'OperatorVersion ns/good-0.1.0 could not be verified: package verification: did not finish within 4000 ms',
        ),
      ],
    });
    const result = await run(handler('strict'), request('CREATE', goodOperatorVersion()));
    expect(result).toMatchObject({
      kind: 'deny',
      status: {
        code: 422,
        details: {
          causes: [
            {
              field: 'spec.templates',
              message: 'package verification: did not finish within 4000 ms',
            },
          ],
        },
      },
    });
  });

  it('admits with a warning when verification does not finish within its budget (warn policy)', async () => {
    const handler = operatorVersionValidator({
      // Never answers until aborted, as a pool whose worker does not start in time.
      verify: (_ov, _manifest, signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
        ),
      operators: noOperators,
      usage: usage({}),
      warnBudgetMs: 50,
    });
    expect(await run(handler, request('CREATE', goodOperatorVersion()))).toEqual({
      kind: 'allow',
      warnings: [
        'OperatorVersion ns/good-0.1.0 was admitted without package verification: it did not finish within 50 ms. Check the package with kubectl kudo package verify <folder>.',
      ],
    });
  });

  it('reads the namespaceManifest from the Operator (that template may be a Namespace)', async () => {
    const ov = goodOperatorVersion();
    ov.spec!.templates!['ns.yaml'] = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n';
    const without = await run(validator(usage({}), 'strict'), request('CREATE', ov));
    expect(without.kind).toBe('deny');
    const handler = operatorVersionValidator({
      verify: (o, namespaceManifest) =>
        Promise.resolve(verifyOperatorVersion(o, { namespaceManifest })),
      operators: {
        get: (namespace, name) =>
          Promise.resolve({
            metadata: { namespace, name },
            spec: { namespaceManifest: 'ns.yaml' },
          }),
      },
      usage: usage({}),
      policy: 'strict',
    });
    expect((await run(handler, request('CREATE', ov))).kind).toBe('allow');
  });
});

describe('OperatorVersion webhook: what it still refuses', () => {
  it("refuses Planwright's own probe (annotated), dry run or not, with a 403", async () => {
    const ov = goodOperatorVersion();
    ov.metadata.annotations = { [WEBHOOK_PROBE_ANNOTATION]: 'true' };
    const result = await run(validator(), request('CREATE', ov));
    expect(result).toMatchObject({
      kind: 'deny',
      status: { code: 403, message: expect.stringContaining("it is Planwright's webhook probe") },
    });
  });

  it('refuses a request without a readable object (422), never a 500', async () => {
    for (const object of [null, 'text', { metadata: 'x' }, { metadata: {}, spec: [] }]) {
      const result = await run(validator(), request('CREATE', object));
      expect(result.kind === 'deny' && result.status.code).toBe(422);
    }
  });
});

describe('Operator validating webhook', () => {
  it('refuses deleting an Operator whose OperatorVersions Instances use', async () => {
    const ov = goodOperatorVersion();
    ov.spec!.operator = { name: 'good', kind: 'Operator' };
    const handler = operatorValidator({
      usage: usage({ 'ns/good-0.1.0': [user('one', 'good-0.1.0')] }, [ov]),
    });
    const operator = { metadata: { name: 'good', namespace: 'ns' } };
    const refused = await handler(request('DELETE', null, operator, 'operators'), context);
    expect(refused).toMatchObject({
      kind: 'deny',
      status: {
        code: 403,
        message: expect.stringContaining(
          'Operator ns/good is used by Instance ns/one (through its OperatorVersions)',
        ),
      },
    });
    const other = { metadata: { name: 'other', namespace: 'ns' } };
    expect((await handler(request('DELETE', null, other, 'operators'), context)).kind).toBe(
      'allow',
    );
    // Only deletions are judged.
    expect((await handler(request('CREATE', operator, null, 'operators'), context)).kind).toBe(
      'allow',
    );
  });
});
