// A hostile Instance status must not hurt anyone. The Instance CRD stores `status` untyped
// (x-kubernetes-preserve-unknown-fields, issue 18), so anyone with rights on
// `instances/status` can store JSON of any shape there. Planwright runs in-process against the
// shared control plane; Instances complete their deploy plan, then malformed statuses are
// written through `/status` while bystanders run. Asserted: each malformed Instance is
// repaired (status back in its shape, plan COMPLETE) with a Warning Event naming the Instance
// and the field; its applied object is neither pruned nor deleted (a garbage inventory is read
// as absent: nothing it cannot read is touched); bystanders complete; no reconcile error and
// no hot retry loop; a spec update on a malformed Instance is never answered with a 500.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import type { Instance } from '../../../../src/kudo/api/types.ts';
import { createTestNamespace, kubeConfig, testCluster } from '../../../support/cluster.ts';
import { installKudoCrds, kudoObjects } from '../../../support/kudo.ts';
import { waitFor } from '../../../support/wait.ts';
import {
  metricSum,
  startPlanwrightCli,
  type StartedPlanwright,
} from '../../../support/planwright-start.ts';
import { applyStepsOperatorVersion } from '../../../support/kudo-objects.ts';

const GROUP = { group: 'kudo.dev', version: 'v1beta1' } as const;

/** Instance name → the status written to it, and the field its Event must name. */
const HOSTILE: Record<string, { status: unknown; field: string }> = {
  'h-plans-number': { status: { planStatus: 5 }, field: 'status.planStatus' },
  'h-phases-string': {
    status: { planStatus: { deploy: { phases: 'x' } } },
    field: 'status.planStatus.deploy.phases',
  },
  'h-exec-list': { status: { planExecution: [] }, field: 'status.planExecution' },
  'h-conditions-string': { status: { conditions: 'y' }, field: 'status.conditions' },
  'h-inventory-string': { status: { inventory: 'z' }, field: 'status.inventory' },
  'h-inventory-kind': {
    status: { inventory: [{ kind: 7 }, null] },
    field: 'status.inventory[0].version',
  },
};
const BYSTANDERS = ['b-before', 'b-after'];

describe('hostile Instance status', () => {
  let planwright: StartedPlanwright;
  let custom: k8s.CustomObjectsApi;
  let core: k8s.CoreV1Api;
  let ns: string;

  const get = (name: string): Promise<Instance | undefined> =>
    kudoObjects(custom).getInstance(ns, name);
  const create = (name: string): Promise<unknown> =>
    kudoObjects(custom).create(ns, 'instances', {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'Instance',
      metadata: { name, labels: { 'kudo.dev/operator': 'plain' } },
      spec: { operatorVersion: { name: 'plain' } },
    });
  const complete = async (name: string): Promise<boolean> => {
    const i = await get(name);
    const plans: unknown = i?.status?.planStatus;
    return (
      typeof plans === 'object' &&
      plans !== null &&
      (plans as Record<string, { status?: unknown }>)['deploy']?.status === 'COMPLETE'
    );
  };
  const metric = async (name: string): Promise<number> => {
    return metricSum(await planwright.metrics(), name);
  };
  /** PUT /status with the given raw status (retried on a conflict with the controller). */
  const writeStatus = async (name: string, status: unknown): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      const current = await get(name);
      try {
        await custom.replaceNamespacedCustomObjectStatus({
          ...GROUP,
          namespace: ns,
          plural: 'instances',
          name,
          body: { ...current, status },
        });
        return;
      } catch (err) {
        if (attempt >= 10 || (err as { code?: number }).code !== 409) throw err;
      }
    }
  };

  beforeAll(async () => {
    await installKudoCrds();
    const kc = kubeConfig();
    custom = kc.makeApiClient(k8s.CustomObjectsApi);
    core = kc.makeApiClient(k8s.CoreV1Api);
    ns = await createTestNamespace('hostile-status');
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [ns],
    });
    await kudoObjects(custom).create(
      ns,
      'operatorversions',
      applyStepsOperatorVersion(
        'plain',
        {
          'cm.yaml':
            'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-cm\ndata:\n  a: "1"\n',
        },
        { parameters: [{ name: 'X', default: 'x' }] },
      ),
    );
  });

  afterAll(async () => {
    await planwright?.stop();
  });

  it('repairs each malformed status, names the field, prunes nothing, keeps everyone else running', async () => {
    const hostile = Object.keys(HOSTILE);
    for (const name of [...hostile, BYSTANDERS[0]!]) await create(name);
    for (const name of [...hostile, BYSTANDERS[0]!])
      await waitFor(`${name} COMPLETE`, () => complete(name));
    const errorsBefore = await metric('controller_runtime_reconcile_errors_total');

    for (const [name, { status }] of Object.entries(HOSTILE)) await writeStatus(name, status);
    await create(BYSTANDERS[1]!);

    for (const name of BYSTANDERS) await waitFor(`${name} COMPLETE`, () => complete(name));
    for (const [name, { field }] of Object.entries(HOSTILE)) {
      // Repaired: the status is back in its shape and the plan reads COMPLETE.
      await waitFor(`${name} repaired`, async () => {
        const i = await get(name);
        const s = i?.status as Record<string, unknown> | undefined;
        return (
          (await complete(name)) &&
          Array.isArray(s?.['conditions']) &&
          (s?.['inventory'] === undefined || Array.isArray(s['inventory'])) &&
          typeof s?.['planExecution'] === 'object' &&
          !Array.isArray(s['planExecution'])
        );
      }).catch(async (err: unknown) => {
        throw new Error(
          `${String(err)}; status: ${JSON.stringify((await get(name))?.status)}; log: ${planwright.tail(10)}`,
        );
      });
      const repaired = (await get(name))!;
      const deploy = repaired.status!.planStatus!['deploy']!;
      expect(Array.isArray(deploy.phases)).toBe(true);
      expect(deploy.phases![0]!.steps![0]!.status).toBe('COMPLETE');
      for (const item of repaired.status!.inventory ?? []) {
        expect(typeof item['kind']).toBe('string');
        expect(typeof item['name']).toBe('string');
      }
      // Its object was neither pruned nor deleted.
      const cm = await core.readNamespacedConfigMap({ name: `${name}-cm`, namespace: ns });
      expect(cm.data?.['a']).toBe('1');
      // A Warning Event names the Instance and the field.
      await waitFor(`${name} MalformedStatus Event`, async () => {
        const events = await core.listNamespacedEvent({
          namespace: ns,
          fieldSelector: `involvedObject.name=${name},reason=MalformedStatus`,
        });
        return events.items.some(
          (e) =>
            e.type === 'Warning' &&
            (e.message ?? '').includes(`Instance ${ns}/${name}`) &&
            (e.message ?? '').includes(`${field} must be`),
        );
      });
    }

    // No reconcile failed, and once repaired the Instances stay quiet (no hot retry loop).
    expect(await metric('controller_runtime_reconcile_errors_total')).toBe(errorsBefore);
    const settled = await metric('controller_runtime_reconcile_total');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await metric('controller_runtime_reconcile_total')) - settled).toBeLessThan(
      hostile.length + BYSTANDERS.length,
    );
    expect(/unhandled|uncaught/i.test(planwright.log())).toBe(false);
  });

  it('a spec update on an Instance whose status is malformed is never a 500', async () => {
    const name = 'h-spec-update';
    await create(name);
    await waitFor(`${name} COMPLETE`, () => complete(name));
    const statuses = [{ planStatus: 5 }, { planStatus: { deploy: { phases: 'x' } } }];
    for (const [attempt, status] of statuses.entries()) {
      await writeStatus(name, status);
      try {
        await custom.patchNamespacedCustomObject(
          {
            ...GROUP,
            namespace: ns,
            plural: 'instances',
            name,
            body: { spec: { parameters: { X: String(attempt) } } },
          },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        );
      } catch (err) {
        const e = err as { code?: number; body?: unknown };
        // Denied: a 4xx naming the status field, never a server error.
        expect(e.code).toBeGreaterThanOrEqual(400);
        expect(e.code).toBeLessThan(500);
        expect(String(e.body)).toMatch(/status\.planStatus/);
      }
    }
    // And the controller brings it back to COMPLETE in its shape.
    await waitFor(`${name} repaired`, async () => {
      const i = await get(name);
      return (await complete(name)) && Array.isArray(i?.status?.planStatus?.['deploy']?.phases);
    }).catch(async (err: unknown) => {
      throw new Error(
        `${String(err)}; status: ${JSON.stringify((await get(name))?.status)}; log: ${planwright.tail(15)}`,
      );
    });
  });
});
