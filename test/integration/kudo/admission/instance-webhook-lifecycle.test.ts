// Admission rules that depend on who writes and how: only the controller's identity may
// schedule cleanup on a deleted Instance (checked with real client-certificate users), the
// finalizer can always come off, and a repeated server-side apply that drops
// spec.planExecution from its field set does not clear the record of a running plan.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import type { Instance } from '../../../../src/kudo/api/index.ts';
import { createTestNamespace, kubectl, mintUser } from '../../../support/cluster.ts';
import {
  installKudoCrds,
  startInstanceWebhook,
  type InstanceWebhook,
} from '../../../support/kudo.ts';
import { waitFor } from '../../../support/wait.ts';
import { operatorVersionObject } from '../../../support/kudo-objects.ts';

const CONTROLLER = 'planwright-controller-test';

const FINALIZER_WARNING =
  'Warning: metadata.finalizers: "kudo.dev.instance.cleanup": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers\n';

describe('Instance admission across users and apply modes', () => {
  let ns: string;
  let webhook: InstanceWebhook;
  let controllerKubeconfig: string;
  let userKubeconfig: string;

  async function get(name: string): Promise<Instance> {
    const res = await kubectl(['get', 'instance', name, '-n', ns, '-o', 'json']);
    if (res.code !== 0) throw new Error(res.stderr);
    return JSON.parse(res.stdout) as Instance;
  }

  const instance = (name: string, extra: Record<string, unknown> = {}): string =>
    stringify({
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'Instance',
      metadata: { name, ...extra },
      spec: { operatorVersion: { name: 'app-1' }, parameters: { A: '1' } },
    });

  beforeAll(async () => {
    await installKudoCrds();
    ns = await createTestNamespace('kudo-lifecycle');
    const rbac = [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'instances-editor' },
        rules: [
          {
            apiGroups: ['kudo.dev'],
            resources: ['instances'],
            verbs: ['get', 'list', 'patch', 'update'],
          },
        ],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'instances-editors' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'instances-editor' },
        subjects: [
          { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: CONTROLLER },
          { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'dana' },
        ],
      },
      operatorVersionObject('app-1', {
        operator: { name: 'app' },
        plans: { deploy: {}, update: {}, cleanup: {} },
        parameters: [{ name: 'A' }],
      }),
    ];
    const res = await kubectl(['create', '-n', ns, '-f', '-'], {
      input: rbac.map((o) => stringify(o)).join('---\n'),
    });
    expect(res.stderr).toBe('');
    controllerKubeconfig = (await mintUser(CONTROLLER)).kubeconfigPath;
    userKubeconfig = (await mintUser('dana')).kubeconfigPath;
    webhook = await startInstanceWebhook({ namespaces: [ns], controllerUsers: [CONTROLLER] });
    await waitFor('instance webhook active', async () => {
      const r = await kubectl(['create', '--dry-run=server', '-o', 'json', '-n', ns, '-f', '-'], {
        input: instance('probe'),
      });
      return r.stdout.includes('"planName": "deploy"');
    });
  });

  afterAll(async () => {
    await webhook?.unregister();
    await webhook?.stop();
  });

  describe('a deleted Instance held by the cleanup finalizer', () => {
    const name = 'leaving';
    /** A merge patch of one Instance, as the user behind `kubeconfig`. */
    const patchAs = (kubeconfig: string, patch: string): ReturnType<typeof kubectl> =>
      kubectl(['patch', 'instance', name, '-n', ns, '--type=merge', '-p', patch], { kubeconfig });

    const cleanup = JSON.stringify({ spec: { planExecution: { planName: 'cleanup', uid: null } } });

    beforeAll(async () => {
      const created = await kubectl(['create', '-n', ns, '-f', '-'], {
        input: instance(name, { finalizers: ['kudo.dev.instance.cleanup'] }),
      });
      // The apiserver warns that KUDO's finalizer name has no "/"; compatibility keeps it.
      expect(created.code).toBe(0);
      const deleted = await kubectl(['delete', 'instance', name, '-n', ns, '--wait=false']);
      expect(deleted.code).toBe(0);
      expect((await get(name)).metadata.deletionTimestamp).toBeDefined();
    });

    it('a user cannot schedule cleanup, nor change parameters', async () => {
      const res = await patchAs(userKubeconfig, cleanup);
      expect(res.stderr).toBe(
        'The request is invalid: spec.planExecution.planName: the Instance is being deleted; no plan can start now (the controller runs "cleanup")\n',
      );
      const params = await patchAs(userKubeconfig, '{"spec":{"parameters":{"A":"2"}}}');
      expect(params.stderr).toBe(
        'The request is invalid: spec.parameters.A: the Instance is being deleted; its spec can no longer change\n',
      );
    });

    it('the controller schedules cleanup, which the user can then neither replace nor abort', async () => {
      const before = (await get(name)).spec?.planExecution;
      const res = await patchAs(controllerKubeconfig, cleanup);
      expect(res.stderr).toBe('');
      const after = (await get(name)).spec?.planExecution;
      expect(after?.planName).toBe('cleanup');
      expect(after?.uid).not.toBe(before?.uid);
      const replace = await patchAs(
        userKubeconfig,
        '{"spec":{"planExecution":{"planName":"deploy"}}}',
      );
      expect(replace.stderr).toBe(
        'The request is invalid: spec.planExecution.planName: plan "cleanup" runs and cannot be replaced or cleared\n',
      );
      const abort = await patchAs(userKubeconfig, '{"spec":{"planExecution":{"abort":true}}}');
      expect(abort.stderr).toBe(
        'The request is invalid: spec.planExecution.abort: plan "cleanup" runs because the Instance is being deleted and cannot be aborted; wait for the deletion to finish\n',
      );
    });

    it('removing the finalizer passes and the Instance goes', async () => {
      const res = await patchAs(controllerKubeconfig, '{"metadata":{"finalizers":null}}');
      expect(res.stderr).toBe('');
      await waitFor('instance gone', async () => {
        const r = await kubectl(['get', 'instance', name, '-n', ns]);
        return r.code !== 0 && r.stderr.includes('NotFound');
      });
    });
  });

  it('a repeated server-side apply keeps the record of the running plan', async () => {
    const name = 'ssa';
    const apply = (): Promise<{ code: number; stderr: string }> =>
      kubectl(['apply', '--server-side', '--field-manager=team', '-n', ns, '-f', '-'], {
        input: instance(name),
      });
    // The webhook adds KUDO's cleanup finalizer (the OperatorVersion has a cleanup plan); the
    // apiserver warns that its name has no "/", and compatibility keeps the name.
    expect((await apply()).stderr).toBe(FINALIZER_WARNING);
    const first = (await get(name)).spec?.planExecution;
    expect(first?.planName).toBe('deploy');
    const again = await apply();
    // The finalizer stays (the webhook puts it back should an apply drop it), and nothing new
    // is added: no warning this time.
    expect(again.stderr).toBe('');
    const stored = await get(name);
    expect(stored.spec?.planExecution).toEqual(first);
    expect(stored.metadata.finalizers).toEqual(['kudo.dev.instance.cleanup']);
  });
});
