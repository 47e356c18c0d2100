// The Instance admission webhook behind the real registration (manifests/webhook), called by
// the real apiserver, driven with the real kubectl: plans scheduled on create, parameter change
// and upgrade; refusals while a plan runs (patch, apply, scripted edit that reopens with the
// user's edits); status writes always pass; terminal plans unblock; abort; dry-run.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { stringify } from 'yaml';
import type { Instance, OperatorVersion, Parameter } from '../../../../src/kudo/api/index.ts';
import {
  createTestNamespace,
  kubeConfig,
  kubectl,
  type KubectlResult,
} from '../../../support/cluster.ts';
import {
  INSTANCE_WEBHOOK_NAME,
  installKudoCrds,
  startInstanceWebhook,
  type InstanceWebhook,
  mergePatchInstance,
} from '../../../support/kudo.ts';
import { waitFor } from '../../../support/wait.ts';
import { scriptedEditor } from '../../../support/kubectl-edit.ts';
import { operatorVersionObject } from '../../../support/kudo-objects.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PARAMETERS: Parameter[] = [
  { name: 'SIZE', 'value-type': 'integer', default: '3' },
  { name: 'MODE', enum: ['fast', 'safe'], default: 'fast', trigger: 'deploy' },
  { name: 'BACKUP_TARGET', default: 's3', trigger: 'backup' },
];

function ov(name: string, plans: readonly string[]): OperatorVersion {
  return operatorVersionObject(name, {
    operator: { name: 'app', kind: 'Operator' },
    version: name,
    parameters: PARAMETERS,
    plans: Object.fromEntries(plans.map((p) => [p, { strategy: 'serial', phases: [] }])),
  });
}

function instanceYaml(
  name: string,
  operatorVersion: string,
  parameters: Record<string, string> = {},
): string {
  return stringify({
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'Instance',
    metadata: { name, labels: { 'kudo.dev/operator': 'app' } },
    spec: { operatorVersion: { name: operatorVersion }, parameters },
  });
}

describe('Instance admission webhook through the real apiserver and kubectl', () => {
  let ns: string;
  let webhook: InstanceWebhook;
  const denied = `admission webhook "${INSTANCE_WEBHOOK_NAME}" denied the request: `;

  const k = (
    args: string[],
    options: { input?: string; env?: NodeJS.ProcessEnv } = {},
  ): Promise<KubectlResult> => kubectl([...args, '-n', ns], options);

  async function get(name: string): Promise<Instance> {
    const res = await k(['get', 'instance', name, '-o', 'json']);
    if (res.code !== 0) throw new Error(res.stderr);
    return JSON.parse(res.stdout) as Instance;
  }

  async function mergePatch(
    name: string,
    patch: unknown,
    extra: string[] = [],
  ): Promise<KubectlResult> {
    return k(['patch', 'instance', name, '--type=merge', '-p', JSON.stringify(patch), ...extra]);
  }

  /** Writes the plan status the controller would write, through /status. */
  async function reportPlan(name: string, status: string): Promise<void> {
    const pe = (await get(name)).spec?.planExecution;
    const res = await mergePatch(
      name,
      {
        status: {
          planExecution: {
            planName: pe?.planName,
            uid: pe?.uid,
            status,
            startedAt: '2026-11-21T10:00:00Z',
          },
          planStatus: {
            [pe?.planName ?? '']: {
              name: pe?.planName,
              uid: pe?.uid,
              status,
              startedAt: '2026-11-21T10:00:00Z',
              phases: [
                {
                  name: 'main',
                  status,
                  steps: [{ name: 'app', status }],
                },
              ],
            },
          },
        },
      },
      ['--subresource=status'],
    );
    if (res.code !== 0) throw new Error(`status write failed: ${res.stderr}`);
  }

  async function create(
    name: string,
    operatorVersion = 'app-1',
    parameters: Record<string, string> = {},
  ): Promise<Instance> {
    const res = await k(['apply', '-f', '-'], {
      input: instanceYaml(name, operatorVersion, parameters),
    });
    if (res.code !== 0) throw new Error(`create ${name} failed: ${res.stderr}`);
    return get(name);
  }

  beforeAll(async () => {
    await installKudoCrds();
    ns = await createTestNamespace('kudo-webhook');
    const objects = [
      { apiVersion: 'kudo.dev/v1beta1', kind: 'Operator', metadata: { name: 'app' } },
      ov('app-1', ['deploy', 'update', 'backup']),
      ov('app-2', ['deploy', 'update', 'upgrade', 'backup']),
      ov('app-update-only', ['deploy', 'update', 'backup']),
      ov('app-deploy-only', ['deploy', 'backup']),
    ];
    const res = await k(['create', '-f', '-'], {
      input: objects.map((o) => stringify(o)).join('---\n'),
    });
    expect(res.stderr).toBe('');
    webhook = await startInstanceWebhook({ namespaces: [ns] });
    // The apiserver picks up a new webhook configuration asynchronously.
    let last = '';
    await waitFor('instance webhook active', async () => {
      const r = await k(['create', '--dry-run=server', '-f', '-'], {
        input: instanceYaml('probe', 'missing'),
      });
      last = r.stderr;
      return r.stderr.includes('not found; install the operator package first');
    }).catch((err: unknown) => {
      throw new Error(
        `${String(err)}; last kubectl output: ${last}; webhook log: ${JSON.stringify(webhook.logLines.slice(-5))}`,
      );
    });
  });

  afterAll(async () => {
    await webhook?.unregister();
    await webhook?.stop();
  });

  it('create schedules deploy with a fresh uid', async () => {
    const instance = await create('created');
    expect(instance.spec?.planExecution?.planName).toBe('deploy');
    expect(instance.spec?.planExecution?.uid).toMatch(UUID);
    // The OperatorVersion came from the shared cache: no live GET for it.
    expect(webhook.liveGets).not.toContain(`${ns}/app-1`);
    const table = await k(['get', 'instance', 'created']);
    expect(table.stdout).toMatch(/^created\s+app-1\s+deploy\s+/m);
  });

  it('create with an invalid parameter or a missing OperatorVersion is refused with the reason', async () => {
    const bad = await k(['create', '-f', '-'], {
      input: instanceYaml('bad', 'app-1', { SIZE: 'big', COLOUR: 'red' }),
    });
    expect(bad.code).toBe(1);
    // kubectl prints the causes of a 422 Invalid, one line per field.
    expect(bad.stderr).toBe(
      `The request is invalid: \n* spec.parameters.SIZE: "big" is not an integer (value-type integer)\n* spec.parameters.COLOUR: unknown parameter: OperatorVersion ${ns}/app-1 defines SIZE, MODE, BACKUP_TARGET\n`,
    );
    const missing = await k(['create', '-f', '-'], { input: instanceYaml('orphan', 'nope') });
    // A cache miss costs one live GET before the denial.
    expect(webhook.liveGets).toContain(`${ns}/nope`);
    expect(missing.stderr).toBe(
      `The request is invalid: spec.operatorVersion: OperatorVersion ${ns}/nope not found; install the operator package first or correct spec.operatorVersion\n`,
    );
  });

  it('a parameter change after the plan finished schedules its trigger plan', async () => {
    const before = await create('params');
    await reportPlan('params', 'COMPLETE');
    const res = await mergePatch('params', { spec: { parameters: { SIZE: '5' } } });
    expect(res.stderr).toBe('');
    const after = await get('params');
    expect(after.spec?.planExecution?.planName).toBe('update');
    expect(after.spec?.planExecution?.uid).not.toBe(before.spec?.planExecution?.uid);
  });

  it.each([
    ['app-2', 'upgrade'],
    ['app-update-only', 'update'],
    ['app-deploy-only', 'deploy'],
  ])('an upgrade to %s schedules %s', async (target, plan) => {
    const name = `up-${target}`;
    await create(name);
    await reportPlan(name, 'COMPLETE');
    const res = await mergePatch(name, { spec: { operatorVersion: { name: target } } });
    expect(res.stderr).toBe('');
    expect((await get(name)).spec?.planExecution?.planName).toBe(plan);
  });

  describe('while a plan is running', () => {
    const name = 'busy';
    const cause = (): string =>
      `spec.parameters.BACKUP_TARGET: this change would schedule plan "backup" while plan "deploy" (IN_PROGRESS, phase "main", step "app", started 2026-11-21T10:00:00Z) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance ${name} -n ${ns} -w) and make the change again, or abort the plan first: kubectl patch instance ${name} -n ${ns} --type merge -p '{"spec":{"planExecution":{"abort":true}}}'`;
    const refusal = (): string => `The request is invalid: ${cause()}\n`;

    beforeAll(async () => {
      await create(name);
      await reportPlan(name, 'IN_PROGRESS');
    });

    it('kubectl patch is refused with the running plan, its phase/step, start and the way out', async () => {
      const res = await mergePatch(name, { spec: { parameters: { BACKUP_TARGET: 'gcs' } } });
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(refusal());
      expect((await get(name)).spec?.parameters).toEqual({});
    });

    it('kubectl apply is refused the same way', async () => {
      const res = await k(['apply', '-f', '-'], {
        input: instanceYaml(name, 'app-1', { BACKUP_TARGET: 'gcs' }),
      });
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(refusal());
    });

    it('an upgrade is refused', async () => {
      const res = await mergePatch(name, { spec: { operatorVersion: { name: 'app-2' } } });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(
        `The request is invalid: spec.operatorVersion: the upgrade to ${ns}/app-2 cannot start while plan "deploy" (IN_PROGRESS`,
      );
    });

    it('API clients get the whole message, reason Invalid, code 422 and the causes', async () => {
      const api = kubeConfig().makeApiClient(k8s.CustomObjectsApi);
      const err = await mergePatchInstance(api, ns, name, {
        spec: { parameters: { BACKUP_TARGET: 'gcs' } },
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(k8s.ApiException);
      const status = JSON.parse((err as k8s.ApiException<string>).body) as {
        code: number;
        reason: string;
        message: string;
        details: { causes: Array<{ field: string; message: string }> };
      };
      expect(status.code).toBe(422);
      expect(status.reason).toBe('Invalid');
      expect(status.message).toBe(
        `${denied}Instance ${ns}/${name}: cannot accept this change now: changing spec.parameters.BACKUP_TARGET would schedule plan "backup", because plan "deploy" (IN_PROGRESS, phase "main", step "app", started 2026-11-21T10:00:00Z) is running. Wait until plan "deploy" is finished (watch it: kubectl get instance ${name} -n ${ns} -w) and make the change again, or abort the plan first: kubectl patch instance ${name} -n ${ns} --type merge -p '{"spec":{"planExecution":{"abort":true}}}'`,
      );
      expect(status.details.causes.map((c) => `${c.field}: ${c.message}`)).toEqual([cause()]);
    });

    it('kubectl edit reopens the editor with the reason on top of the user edits', async () => {
      const editor = await scriptedEditor(
        'sed -i -e "s/^  parameters: {}$/  parameters:\\n    BACKUP_TARGET: gcs/" "$1"',
      );
      const res = await k(['edit', `instance/${name}`], { env: editor.env });
      expect(await editor.calls()).toBe(2);
      const reopened = await editor.reopened();
      expect(reopened).toContain(`# instances.kudo.dev "${name}" was not valid:`);
      expect(reopened).toContain(`# * ${cause()}\n`);
      expect(reopened).toMatch(/^ {4}BACKUP_TARGET: gcs$/m);
      expect(res.stderr).toContain(`error: instances.kudo.dev "${name}" is invalid`);
      expect((await get(name)).spec?.parameters).toEqual({});
    });

    it('status writes and metadata changes pass', async () => {
      await reportPlan(name, 'IN_PROGRESS');
      const label = await k(['label', 'instance', name, 'team=blue']);
      expect(label.stderr).toBe('');
      expect((await get(name)).metadata.labels?.['team']).toBe('blue');
    });

    it('re-triggering the running plan passes with a warning and a new uid', async () => {
      const before = await get(name);
      const res = await mergePatch(name, { spec: { parameters: { MODE: 'safe' } } });
      expect(res.code).toBe(0);
      expect(res.stderr).toContain(
        'Warning: plan "deploy" was IN_PROGRESS at phase "main", step "app"; it restarts from the beginning as a new run',
      );
      const after = await get(name);
      expect(after.spec?.planExecution?.planName).toBe('deploy');
      expect(after.spec?.planExecution?.uid).not.toBe(before.spec?.planExecution?.uid);
      await reportPlan(name, 'IN_PROGRESS'); // the controller picks up the new run
    });

    it('dry-run requests are refused alike, and an allowed dry-run stores nothing', async () => {
      const refused = await mergePatch(name, { spec: { parameters: { BACKUP_TARGET: 'gcs' } } }, [
        '--dry-run=server',
      ]);
      expect(refused.stderr).toBe(refusal());
      const before = await get(name);
      const allowed = await mergePatch(name, { spec: { parameters: { MODE: 'fast' } } }, [
        '--dry-run=server',
        '-o',
        'json',
      ]);
      expect(allowed.code).toBe(0);
      const shown = JSON.parse(allowed.stdout) as Instance;
      expect(shown.spec?.planExecution?.planName).toBe('deploy');
      expect(shown.spec?.planExecution?.uid).not.toBe(before.spec?.planExecution?.uid);
      expect(await get(name)).toEqual(before);
    });

    it('after the plan is terminal the same change passes', async () => {
      await reportPlan(name, 'COMPLETE');
      const res = await mergePatch(name, { spec: { parameters: { BACKUP_TARGET: 'gcs' } } });
      expect(res.stderr).toBe('');
      expect((await get(name)).spec?.planExecution?.planName).toBe('backup');
    });
  });

  describe('abort', () => {
    const name = 'stuck';
    const abort = { spec: { planExecution: { abort: true } } };

    it('is refused when no plan runs', async () => {
      await create(name);
      await reportPlan(name, 'COMPLETE');
      const res = await mergePatch(name, abort);
      expect(res.stderr).toBe(
        'The request is invalid: spec.planExecution.abort: nothing to abort: plan "deploy" is not running (COMPLETE)\n',
      );
    });

    it('is accepted while the plan runs, records who and when, and unblocks once ABORTED', async () => {
      await reportPlan(name, 'IN_PROGRESS');
      const res = await mergePatch(name, abort);
      expect(res.code).toBe(0);
      expect(res.stderr).toContain(
        'Warning: plan "deploy" will be stopped and marked ABORTED by the controller; objects it already applied stay as they are. The next change is accepted once its status is ABORTED.',
      );
      const whoami = await kubectl([
        'auth',
        'whoami',
        '-o',
        'jsonpath={.status.userInfo.username}',
      ]);
      const pe = (await get(name)).spec?.planExecution;
      expect(pe?.abort).toBe(true);
      expect(pe?.abortRequestedBy).toBe(whoami.stdout);
      expect(pe?.abortRequestedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

      const early = await mergePatch(name, { spec: { parameters: { BACKUP_TARGET: 'gcs' } } });
      expect(early.stderr).toContain(
        `abort requested by ${whoami.stdout} at ${pe?.abortRequestedAt}`,
      );

      await reportPlan(name, 'ABORTED'); // what the controller (issue 7) writes
      const next = await mergePatch(name, { spec: { parameters: { BACKUP_TARGET: 'gcs' } } });
      expect(next.stderr).toBe('');
      const after = (await get(name)).spec?.planExecution;
      expect(after?.planName).toBe('backup');
      expect(after?.abort).toBeUndefined();
    });
  });
});
