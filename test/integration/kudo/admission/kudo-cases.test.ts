// KUDO's own declarative test cases, replayed step by step through the real apiserver and our
// Instance webhook: each step's objects are created or merged like kuttl does, the controller's
// part is played by writing the scheduled plan COMPLETE through /status, and the plan the
// step's assert file expects (its Instance status.planStatus key) must be the plan the webhook
// scheduled.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Instance } from '../../../../src/kudo/api/index.ts';
import { createTestNamespace, kubectl } from '../../../support/cluster.ts';
import {
  installKudoCrds,
  readYamlObjects,
  startInstanceWebhook,
  type InstanceWebhook,
} from '../../../support/kudo.ts';
import { waitFor } from '../../../support/wait.ts';
import { KUDO_CASES_DIR } from '../../../support/shared.ts';
import { instanceObject } from '../../../support/kudo-objects.ts';

const CASES = KUDO_CASES_DIR;
const REPLAYED = [
  'update-parameters',
  'instance-controller-param-change-custom-trigger',
  'instance-controller-param-change-no-trigger',
  'instance-controller-upgrade',
  'step-delete',
];

type Obj = Record<string, unknown> & { kind?: string; metadata?: Record<string, unknown> };

describe("KUDO's test cases through the Instance webhook", () => {
  let ns: string;
  let webhook: InstanceWebhook;

  beforeAll(async () => {
    await installKudoCrds();
    ns = await createTestNamespace('kudo-cases');
    // update-parameters refers to the toy OperatorVersion in namespace "default", as KUDO's
    // suite installs it; create it there once (other runs may have done so already).
    const toy = await readYamlObjects(join(CASES, 'manifests/toy-operator.yaml'));
    for (const obj of toy) {
      const res = await kubectl(['create', '-n', 'default', '--validate=warn', '-f', '-'], {
        input: stringify(obj),
      });
      if (res.code !== 0 && !res.stderr.includes('AlreadyExists')) throw new Error(res.stderr);
    }
    // The default (kudo) posture uses another namespace's OperatorVersion, as KUDO did.
    webhook = await startInstanceWebhook({ namespaces: [ns] });
    await waitFor('instance webhook active', async () => {
      const r = await kubectl(['create', '--dry-run=server', '-n', ns, '-f', '-'], {
        input: stringify(instanceObject('probe', 'missing')),
      });
      return r.stderr.includes('not found; install the operator package first');
    });
  });

  afterAll(async () => {
    await webhook?.unregister();
    await webhook?.stop();
  });

  async function exists(obj: Obj): Promise<boolean> {
    const r = await kubectl(['get', String(obj.kind), String(obj.metadata?.['name']), '-n', ns]);
    return r.code === 0;
  }

  /** kuttl semantics: create what is new, merge into what exists. */
  async function applyStep(obj: Obj): Promise<void> {
    if (await exists(obj)) {
      const { kind, metadata } = obj;
      // Status is a subresource: a spec write ignores it, so it is left out of the merge.
      const rest = Object.fromEntries(
        Object.entries(obj).filter(
          ([key]) => !['apiVersion', 'kind', 'metadata', 'status'].includes(key),
        ),
      );
      const res = await kubectl([
        'patch',
        String(kind),
        String(metadata?.['name']),
        '-n',
        ns,
        '--type=merge',
        '-p',
        JSON.stringify(rest),
      ]);
      if (res.code !== 0) throw new Error(`merge into ${String(kind)} failed: ${res.stderr}`);
    } else {
      const res = await kubectl(['create', '-n', ns, '--validate=warn', '-f', '-'], {
        input: stringify(obj),
      });
      if (res.code !== 0) throw new Error(`create ${String(obj.kind)} failed: ${res.stderr}`);
    }
  }

  async function instance(name: string): Promise<Instance> {
    const r = await kubectl(['get', 'instance', name, '-n', ns, '-o', 'json']);
    if (r.code !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout) as Instance;
  }

  /** The controller's part: the scheduled run finishes. */
  async function complete(name: string): Promise<void> {
    const pe = (await instance(name)).spec?.planExecution;
    const status = {
      planStatus: {
        [pe?.planName ?? '']: { name: pe?.planName, uid: pe?.uid, status: 'COMPLETE' },
      },
    };
    const r = await kubectl([
      'patch',
      'instance',
      name,
      '-n',
      ns,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status }),
    ]);
    if (r.code !== 0) throw new Error(r.stderr);
  }

  it.each(REPLAYED)('%s', async (name) => {
    const dir = join(CASES, 'integration', name);
    const files = (await readdir(dir)).sort();
    const steps = [...new Set(files.map((f) => f.slice(0, 2)))];
    for (const step of steps) {
      for (const file of files.filter((f) => f.startsWith(step) && !f.includes('assert'))) {
        for (const obj of (await readYamlObjects(join(dir, file))) as Obj[]) await applyStep(obj);
      }
      const asserts = (await readYamlObjects(join(dir, `${step}-assert.yaml`))) as Obj[];
      for (const expected of asserts.filter((o) => o.kind === 'Instance')) {
        const instanceName = String(expected.metadata?.['name']);
        const plans = Object.keys(
          (expected['status'] as { planStatus?: Record<string, unknown> } | undefined)
            ?.planStatus ?? {},
        );
        expect([name, step, plans.length]).toEqual([name, step, 1]);
        const scheduled = (await instance(instanceName)).spec?.planExecution?.planName;
        expect([name, step, scheduled]).toEqual([name, step, plans[0]]);
        await complete(instanceName);
      }
    }
  });
});
