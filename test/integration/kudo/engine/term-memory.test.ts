// The Instance controller's memory lives for one term of the shard its Instance is in (shared
// control plane, real Leases): a Warning recorded once per plan run is not recorded again by
// later passes of the same term, and is recorded again once the shard's Lease was lost and
// won back — the new term's reconciler starts knowing nothing. The warning: a template of a removed API version
// (apps/v1beta1 Deployment), converted and applied; nothing runs pods here, so the step waits
// on the Deployment and the run stays IN_PROGRESS across both terms.
import { beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { LiveOperatorVersionSource } from '../../../../src/kudo/admission/index.ts';
import { registerInstanceController } from '../../../../src/kudo/controller/index.ts';
import { EXIT_OK, Manager } from '../../../../src/runtime/manager.ts';
import { createTestNamespace, kubeConfig, uniqueName } from '../../../support/cluster.ts';
import { installKudoCrds, kudoObjects } from '../../../support/kudo.ts';
import { applyStepsOperatorVersion, instanceObject } from '../../../support/kudo-objects.ts';
import { takeLease } from '../../../support/lease.ts';
import { waitFor } from '../../../support/wait.ts';
import { LEASE_TIMINGS } from '../../runtime/fixtures/timings.ts';

const DEPLOYMENT = [
  'apiVersion: apps/v1beta1',
  'kind: Deployment',
  'metadata:',
  '  name: {{ .Name }}-web',
  'spec:',
  '  replicas: 1',
  '  template:',
  '    metadata:',
  '      labels:',
  '        app: {{ .Name }}-web',
  '    spec:',
  '      containers:',
  '        - name: web',
  '          image: registry.k8s.io/pause:3.10',
  '',
].join('\n');

describe('Instance controller memory per term of its shard', () => {
  let ns: string;
  let core: k8s.CoreV1Api;
  let apps: k8s.AppsV1Api;
  let leases: k8s.CoordinationV1Api;

  beforeAll(async () => {
    await installKudoCrds();
    const kc = kubeConfig();
    core = kc.makeApiClient(k8s.CoreV1Api);
    apps = kc.makeApiClient(k8s.AppsV1Api);
    leases = kc.makeApiClient(k8s.CoordinationV1Api);
    ns = await createTestNamespace('term');
  });

  const warningCount = async (instance: string): Promise<number> => {
    const events = await core.listNamespacedEvent({
      namespace: ns,
      fieldSelector: `involvedObject.name=${instance},reason=ConvertedRemovedAPI`,
    });
    return events.items.reduce((sum, e) => sum + (e.count ?? 1), 0);
  };

  it('a warning suppressed for the rest of term 1 is recorded again in term 2 of the shard', async () => {
    const registry = new Registry();
    const lease = uniqueName('term-lease');
    const manager = new Manager({
      kubeConfig: kubeConfig(),
      logger: pino({ level: 'silent' }),
      registry,
      leaderElection: { namespace: ns, name: lease, identity: 'leader', ...LEASE_TIMINGS },
    });
    registerInstanceController({
      manager,
      logger: pino({ level: 'silent' }),
      operatorVersions: new LiveOperatorVersionSource({
        client: manager.client,
        timeoutMs: 5_000,
      }),
      filter: (i) => i.metadata.namespace === ns,
      waitMinMs: 200,
      waitMaxMs: 1_000,
    });
    const reconciles = async (): Promise<number> => {
      const metric = await registry.getSingleMetric('controller_runtime_reconcile_total')?.get();
      return (metric?.values ?? [])
        .filter((v) => v.labels['controller'] === 'instances')
        .reduce((sum, v) => sum + v.value, 0);
    };
    const stop = new AbortController();
    const run = manager.start(stop.signal);
    try {
      // One shard (the default): this replica runs it once its ring has taken shard 0.
      const runsShard = (): boolean => manager.shards.runs('0');
      await waitFor('shard 0 taken', runsShard);
      const custom = kubeConfig().makeApiClient(k8s.CustomObjectsApi);
      const objects = kudoObjects(custom);
      await objects.create(
        ns,
        'operatorversions',
        applyStepsOperatorVersion('termop', { 'web.yaml': DEPLOYMENT }),
      );
      // No webhook here: the Instance is created with its plan already scheduled.
      const name = 'termop';
      await objects.create(
        ns,
        'instances',
        instanceObject(name, 'termop', { planExecution: { planName: 'deploy', uid: 'run-1' } }),
      );
      await waitFor('the warning of term 1', async () => (await warningCount(name)) === 1);
      await waitFor('the step waiting on the Deployment', async () => {
        const got = await objects.getInstance(ns, name);
        return got?.status?.planStatus?.['deploy']?.status === 'IN_PROGRESS';
      });

      // More passes of the same run in this term: each touch of the Deployment wakes the
      // Instance, the pass applies the template again and warns again, and memory holds it.
      for (let i = 0; i < 3; i++) {
        const before = await reconciles();
        await apps.patchNamespacedDeployment(
          {
            namespace: ns,
            name: `${name}-web`,
            body: { metadata: { annotations: { touched: String(i) } } },
          },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        );
        await waitFor(`pass ${i + 2} of term 1`, async () => (await reconciles()) > before);
      }
      expect(await warningCount(name)).toBe(1);

      // The shard's Lease is taken by someone who is no member of the ring: term 1 ends at
      // once; the ring takes the shard back (its holder is no live member), and the new
      // term's reconciler warns anew.
      await takeLease(leases, { namespace: ns, name: 'planwright-shard-0', holder: 'thief' });
      const takeovers = async (): Promise<number> => {
        const metric = await registry.getSingleMetric('planwright_shard_transitions_total')?.get();
        return (metric?.values ?? [])
          .filter((v) => v.labels['reason'] === 'takeover')
          .reduce((sum, v) => sum + v.value, 0);
      };
      await waitFor('shard 0 taken back', async () => (await takeovers()) === 1, {
        timeoutMs: 30_000,
      });
      await waitFor('term 2', runsShard, { timeoutMs: 30_000, intervalMs: 50 });
      await waitFor('the warning of term 2', async () => (await warningCount(name)) === 2, {
        timeoutMs: 30_000,
      });
      const got = await objects.getInstance(ns, name);
      expect(got?.status?.planStatus?.['deploy']?.uid).toBe('run-1');
    } finally {
      stop.abort();
      expect(await run).toBe(EXIT_OK);
    }
  });
});
