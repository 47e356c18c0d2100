// package list parameters|plans|tasks data.
import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import {
  listParameters,
  listPlans,
  listTasks,
  loadPackage,
} from '../../../../src/kudo/package/index.ts';
import { KUDO_PACKAGES_DIR } from '../../../support/shared.ts';
import { serialPlan } from '../../../support/kudo-objects.ts';

describe('package list', () => {
  it('lists parameters by name, and with requiredOnly those required without default', async () => {
    const { operatorVersion: ov } = await loadPackage(join(KUDO_PACKAGES_DIR, 'zookeeper'));
    const rows = listParameters(ov);
    expect(rows.map((r) => r.name)).toEqual([...rows.map((r) => r.name)].sort());
    expect(rows.find((r) => r.name === 'STORAGE_CLASS')).toEqual({
      name: 'STORAGE_CLASS',
      default: undefined,
      required: false,
      immutable: false,
      description:
        'The storage class to be used in volumeClaimTemplates. By default its not required and the default storage class is used.',
      displayName: undefined,
    });
    expect(rows.find((r) => r.name === 'NODE_COUNT')).toMatchObject({
      default: '3',
      required: true,
      displayName: 'Node Count',
    });
    expect(listParameters(ov, { requiredOnly: true })).toEqual([]);
    ov.spec!.parameters!.push({ name: 'A_SECRET', required: true });
    expect(listParameters(ov, { requiredOnly: true }).map((r) => r.name)).toEqual(['A_SECRET']);
  });

  it('lists tasks with their templates and plans as trees by name', async () => {
    const { operatorVersion: ov } = await loadPackage(join(KUDO_PACKAGES_DIR, 'cowsay'));
    expect(listTasks(ov)).toEqual([
      { name: 'app', kind: 'Apply', resources: ['deployment.yaml'] },
      { name: 'genwww', kind: 'Pipe', resources: ['pipe-pod.yaml'] },
    ]);
    expect(listPlans(ov)).toEqual([
      {
        name: 'deploy',
        ...serialPlan([
          { name: 'genfiles', tasks: ['genwww'] },
          { name: 'app', tasks: ['app'] },
        ]),
      },
    ]);
    const { operatorVersion: zk } = await loadPackage(join(KUDO_PACKAGES_DIR, 'zookeeper'));
    expect(listPlans(zk).map((p) => p.name)).toEqual(['deploy', 'not-allowed', 'validation']);
  });
});
