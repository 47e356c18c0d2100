// The plan ledger of an in-cluster test: an Instance of a one-ConfigMap package
// (test/fixtures/packages/dependency-child, its deploy plan writes the parameter MESSAGE into
// ConfigMap <name>-config) whose every state, and every state of its ConfigMap, is watched
// while a disruption happens; then the verdicts of plan-ledger.ts over what was written.
import { expect } from '@jest/globals';
import type { KubeClient } from '../../../src/kube/index.ts';
import type { Instance } from '../../../src/kudo/api/index.ts';
import { loadPackage } from '../../../src/kudo/package/index.ts';
import { waitFor } from '../../support/wait.ts';
import { repeatedRuns, valueChanges, watchRevisions, type Revisions } from './plan-ledger.ts';
import type { PlanWrite } from './plan-writes.ts';

const PACKAGE = new URL('../../fixtures/packages/dependency-child', import.meta.url).pathname;

/** Creates `namespace` and the package's Operator and OperatorVersion; returns its Instance. */
export async function createConfigPackage(
  client: KubeClient,
  namespace: string,
): Promise<Instance> {
  await client.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { metadata: { name: namespace } },
  });
  const pkg = await loadPackage(PACKAGE, { namespace });
  for (const [plural, body] of [
    ['operators', pkg.operator],
    ['operatorversions', pkg.operatorVersion],
  ] as const) {
    await client.request({
      method: 'POST',
      path: `/apis/kudo.dev/v1beta1/namespaces/${namespace}/${plural}`,
      body,
    });
  }
  return pkg.instance;
}

export interface Ledger {
  readonly name: string;
  /** The Instance's current plan run COMPLETE when the watches started. */
  readonly deployed: Instance;
  readonly instanceStates: Revisions<Instance>;
  readonly configStates: Revisions<{ data?: Record<string, string> }>;
  /**
   * After the writes stopped: waits until both watches saw the end, stops them, and checks
   * that no plan was lost (every write's run COMPLETE and seen, the ConfigMap took every value
   * once and in the order written) and none ran twice.
   */
  judge(written: readonly PlanWrite[]): Promise<void>;
  /** Ends both watches (a test that failed before judging). */
  stop(): Promise<void>;
}

/** Waits for the ledger Instance `name` of `namespace` to be COMPLETE, then watches it. */
export async function openLedger(
  client: KubeClient,
  namespace: string,
  name: string,
  timeoutMs: number,
): Promise<Ledger> {
  const instances = `/apis/kudo.dev/v1beta1/namespaces/${namespace}/instances`;
  const configMaps = `/api/v1/namespaces/${namespace}/configmaps`;
  const deployed = await waitFor(
    `the ledger Instance ${name} COMPLETE`,
    async () => {
      const i = await client.request<Instance>({ path: `${instances}/${name}` });
      const ps = i.status?.planStatus?.['deploy'];
      return ps?.status === 'COMPLETE' && ps.uid === i.spec?.planExecution?.uid ? i : undefined;
    },
    { timeoutMs, intervalMs: 500 },
  );
  const configMap = await client.request<{ metadata: { resourceVersion: string } }>({
    path: `${configMaps}/${name}-config`,
  });
  const instanceStates = watchRevisions<Instance>({
    client,
    collection: instances,
    name,
    resourceVersion: deployed.metadata.resourceVersion ?? '',
  });
  const configStates = watchRevisions<{ data?: Record<string, string> }>({
    client,
    collection: configMaps,
    name: `${name}-config`,
    resourceVersion: configMap.metadata.resourceVersion,
  });
  return {
    name,
    deployed,
    instanceStates,
    configStates,
    stop: async () => {
      await Promise.allSettled([instanceStates.stop(), configStates.stop()]);
    },
    judge: async (written) => {
      const last = written.at(-1);
      const settled = await client.request<Instance>({ path: `${instances}/${name}` });
      await waitFor('the watches caught up', () =>
        instanceStates.seen.some(
          (i) => i.metadata.resourceVersion === settled.metadata.resourceVersion,
        ),
      );
      await waitFor('the ConfigMap watch caught up', () =>
        configStates.seen.some((c) => c.data?.['message'] === last?.value),
      );
      await instanceStates.stop();
      await configStates.stop();
      // No plan lost: each write's run reached COMPLETE (the writer waited for it), the
      // ConfigMap took every written value once and in the order written (a stale or repeated
      // run would bring an older value back), and the Instance ends with the last one.
      expect(valueChanges(configStates.seen.map((c) => c.data?.['message'] ?? ''))).toEqual(
        written.map((w) => w.value),
      );
      expect(settled.status?.planStatus?.['deploy']).toMatchObject({
        uid: last?.uid,
        status: 'COMPLETE',
      });
      // Each run recorded once: one start per plan execution uid, and nothing after its end.
      const seenUids = new Set(
        instanceStates.seen.map((i) => i.status?.planStatus?.['deploy']?.uid ?? ''),
      );
      expect(written.filter((w) => !seenUids.has(w.uid))).toEqual([]);
      expect(repeatedRuns(instanceStates.seen, 'deploy')).toEqual([]);
    },
  };
}
