// KUDO's own declarative test cases (../shared/kudo-cases) against the real control plane,
// the real Instance webhook (called by the apiserver over TLS) and the Instance controller,
// all running in-process. The manifests (OperatorVersions in namespace default) are installed
// first; each case runs in its own namespace, so cases that reuse object names (Service
// my-service) cannot see each other. They run one after another: the machine is small and
// the kuttl steps are short.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { KubeClient, ResourceMapper } from '../../../src/kube/index.ts';
import { loadCase, readManifests } from '../../conformance/kuttl/discover.ts';
import { applyObject, runCase, type ClusterAccess } from '../../conformance/kuttl/runner.ts';
import { createTestNamespace, kubeConfig } from '../../support/cluster.ts';
import { installKudoCrds } from '../../support/kudo.ts';
import { KUDO_CASES_DIR } from '../../support/shared.ts';
import {
  startPlanwright,
  waitForWebhook,
  type RunningPlanwright,
} from '../kudo-engine/planwright.ts';

const CASES_DIR = KUDO_CASES_DIR;
const caseNames = existsSync(join(CASES_DIR, 'integration'))
  ? readdirSync(join(CASES_DIR, 'integration')).sort()
  : [];

describe('KUDO conformance cases', () => {
  let access: ClusterAccess;
  let planwright: RunningPlanwright;
  const namespaces = new Map<string, string>();

  beforeAll(async () => {
    await installKudoCrds();
    const client = new KubeClient(kubeConfig());
    access = { client, mapper: new ResourceMapper(client) };
    for (const name of caseNames) namespaces.set(name, await createTestNamespace('kudo-case'));
    for (const file of readdirSync(join(CASES_DIR, 'manifests')).sort()) {
      for (const obj of readManifests(join(CASES_DIR, 'manifests', file))) {
        await applyObject(access, obj, 'default');
      }
    }
    planwright = await startPlanwright({
      kubeConfig: kubeConfig(),
      namespaces: [...namespaces.values()],
    });
    for (const ns of namespaces.values()) await waitForWebhook(kubeConfig(), ns);
  }, 120_000);

  afterAll(async () => {
    await planwright?.stop();
    access?.client.close();
  });

  it('finds the cases', () => {
    expect(caseNames.length).toBeGreaterThanOrEqual(6);
  });

  it.each(caseNames)(
    '%s',
    async (name) => {
      const namespace = namespaces.get(name) ?? '';
      try {
        await runCase(access, loadCase(join(CASES_DIR, 'integration', name)), {
          namespace,
          stepTimeoutMs: 30_000,
        });
      } catch (err) {
        const tail = planwright.logLines
          .filter((l) => l.includes(namespace))
          .slice(-10)
          .join('\n');
        throw new Error(`${(err as Error).message}\nPlanwright log for ${namespace}:\n${tail}`);
      }
    },
    90_000,
  );
});
