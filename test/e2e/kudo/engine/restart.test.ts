// Restart safety of Pipe and KudoOperator tasks: the manager (the real entry point, `src/main.ts
// start --install`, webhooks included) runs as a child process on a dedicated workloads cluster
// with mixed nodes and is killed with SIGKILL at the two moments that matter, caught there on
// purpose:
// * during a pipe copy — the Pipe pod runs on the real node with a waiter image
//   (test/support/holding-waiter.ts, passed by `--pipe-waiter-image`) whose `tar` waits while
//   a hold file the init container wrote lies in the pipe volume;
// * during a child Instance's creation — either while the CREATE is in flight (a validating
//   webhook of this test holds it inside the apiserver and refuses it once the manager is dead;
//   the apiserver drops a write whose client went away anyway), or the moment the child exists
//   (created, but the dead manager may not have heard so).
// After a restart each plan finishes once, with one artifact, one child, no second copy of a
// COMPLETE step, and a further restart writes nothing.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { Instance, PlanStatus } from '../../../../src/kudo/api/types.ts';
import type { InventoryEntry } from '../../../../src/kudo/inventory/index.ts';
import {
  loadPackage,
  packageResolver,
  resolveDependencies,
} from '../../../../src/kudo/package/index.ts';
import { startLocalCluster, type LocalCluster } from '../../../../src/localcluster/index.ts';
import { repositoryRoot } from '../../../../src/localcluster/paths.ts';
import { freeLoopbackPort } from '../../../../src/localcluster/ports.ts';
import {
  allow,
  denyForbidden,
  StaticCertificateSource,
  type AdmissionResult,
} from '../../../../src/server/index.ts';
import { kubeConfig, kubectl, testCluster } from '../../../support/cluster.ts';
import { capturingLogger } from '../../../support/https.ts';
import { holdFiles, pushHoldingWaiter } from '../../../support/holding-waiter.ts';
import { kudoObjects } from '../../../support/kudo.ts';
import {
  apiserverWriteCounts,
  startManagerProcess,
  waitForControllerStarted,
  waitForManagerCaughtUp,
  type ManagerProcess,
} from '../../../support/manager-process.ts';
import { offlineCowsay, type OfflineCowsay } from '../../../support/offline-cowsay.ts';
import { requireRealNode } from '../../../support/real-node.ts';
import { waitFor } from '../../../support/wait.ts';
import { loopbackWebhookServer } from '../../../support/admission.ts';

const PAGE = '<html><body><pre>moo, once</pre></body></html>';
// cowsay's pipe volume is mounted at /tmp.
const HOLD = holdFiles('/tmp');
const FIXTURE_PACKAGES = join(repositoryRoot(), 'test', 'fixtures', 'packages');
const noRepository = (): Promise<never> => Promise.reject(new Error('no repository in tests'));

/** A child CREATE the test's webhook holds until the test says how it ends. */
interface Gate {
  readonly namespace: string;
  readonly name: string;
  /** Hold the first CREATE (else only count). */
  readonly hold: boolean;
  /** When each CREATE came (ISO time): how many, and when, for a failed count's message. */
  readonly calls: string[];
  held: boolean;
  release?: (result: AdmissionResult) => void;
}

describe('restart safety of Pipe and KudoOperator tasks (dedicated workloads cluster, manager as a child process)', () => {
  const stop = new AbortController();
  const managers: ManagerProcess[] = [];
  const gates = new Map<string, Gate>();
  let cluster: LocalCluster;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;
  let custom: k8s.CustomObjectsApi;
  let objects: ReturnType<typeof kudoObjects>;
  let webhookPort: number;
  let waiterImage = '';
  let cowsay: OfflineCowsay | undefined;

  beforeAll(async () => {
    cluster = await startLocalCluster({
      mode: 'workloads',
      nodeKind: 'mixed',
      binaries: testCluster().binaries,
      nodes: 1,
    });
    requireRealNode('a pipe copy caught in the middle', cluster);
    waiterImage = await pushHoldingWaiter(cluster.imageRegistry ?? '', HOLD);
    kc = kubeConfig(cluster.kubeconfigPath);
    core = kc.makeApiClient(k8s.CoreV1Api);
    custom = kc.makeApiClient(k8s.CustomObjectsApi);
    objects = kudoObjects(custom);
    webhookPort = await freeLoopbackPort();

    // The holding webhook: validating, so it runs after Planwright's mutating webhook has
    // scheduled the child's deploy plan; it answers within the apiserver's 30 s at most.
    const loopback = StaticCertificateSource.forLoopback('restart-test-hold');
    const server = loopbackWebhookServer(loopback.source, capturingLogger().logger, {
      handlerTimeoutMs: 28_000,
    });
    server.registerValidating('instances', async (request) => {
      const gate = gates.get(request.namespace ?? '');
      const name = (request.object?.['metadata'] as { name?: string } | undefined)?.name;
      if (!gate || name !== gate.name || request.operation !== 'CREATE') return allow();
      gate.calls.push(new Date().toISOString());
      if (!gate.hold || gate.calls.length > 1) return allow();
      return new Promise<AdmissionResult>((resolve) => {
        gate.release = resolve;
        gate.held = true;
      });
    });
    const { port } = await server.listen(stop.signal);
    await kc.makeApiClient(k8s.AdmissionregistrationV1Api).createValidatingWebhookConfiguration({
      body: {
        metadata: { name: 'restart-test-hold' },
        webhooks: [
          {
            name: 'hold.restart-test.planwright.dev',
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            failurePolicy: 'Fail',
            timeoutSeconds: 30,
            namespaceSelector: {
              matchExpressions: [
                { key: 'planwright.dev/restart-test', operator: 'In', values: ['hold'] },
              ],
            },
            rules: [
              {
                apiGroups: ['kudo.dev'],
                apiVersions: ['v1beta1'],
                resources: ['instances'],
                operations: ['CREATE'],
                scope: 'Namespaced',
              },
            ],
            clientConfig: {
              url: `https://127.0.0.1:${port}/validate/instances`,
              caBundle: Buffer.from(loopback.caPem).toString('base64'),
            },
          },
        ],
      },
    });
  });

  // A test that failed leaves its manager running, on the webhook port every manager of this
  // file listens on: the next test's manager could not listen (EADDRINUSE) and would fail too.
  afterEach(async () => {
    const running = managers.filter((m) => m.proc.exitCode === null && m.proc.signalCode === null);
    await Promise.all(running.map((m) => kill9(m)));
  });

  afterAll(async () => {
    for (const m of managers) if (m.proc.exitCode === null) m.proc.kill('SIGKILL');
    stop.abort();
    await cluster?.stop();
    await cowsay?.remove();
  });

  /**
   * Every manager of this file listens on one port, as replicas behind one Service would: a
   * restart leaves the webhook registration as it was, so no CREATE (the child's included) is
   * refused because the API server has not yet reloaded a registration naming a new port.
   */
  async function startManager(): Promise<ManagerProcess> {
    const manager = await startManagerProcess(
      cluster.kubeconfigPath,
      ['--install', '--pipe-waiter-image', waiterImage],
      { webhookPort },
    );
    managers.push(manager);
    await waitForControllerStarted(manager, 90_000);
    // `--install` says it runs once the API server calls its webhooks.
    await waitFor('the manager’s webhooks answering', () =>
      manager.log.includes('Planwright is running'),
    );
    return manager;
  }

  async function kill9(manager: ManagerProcess): Promise<void> {
    manager.proc.kill('SIGKILL');
    await manager.exited;
  }

  async function namespace(name: string, labels: Record<string, string> = {}): Promise<string> {
    await core.createNamespace({ body: { metadata: { name, labels } } });
    return name;
  }

  const terminal = (ns: string, name: string): Promise<PlanStatus> =>
    waitFor(
      `${ns}/${name} deploy terminal`,
      async () => {
        const i = await objects.getInstance(ns, name);
        const pe = i?.spec?.planExecution;
        const ps = i?.status?.planStatus?.['deploy'];
        return ps && ps.uid === pe?.uid && ['COMPLETE', 'FATAL_ERROR'].includes(ps.status ?? '')
          ? ps
          : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );

  /** PlanFinished Events of one Instance, counted (an Event may carry a count). */
  async function planFinished(ns: string, name: string): Promise<number> {
    const events = await core.listNamespacedEvent({
      namespace: ns,
      fieldSelector: `involvedObject.name=${name},reason=PlanFinished`,
    });
    return events.items.reduce((n, e) => n + (e.count ?? 1), 0);
  }

  /** Inventory entries as `kind namespace/name`, duplicates kept. */
  const inventoryOf = (i: Instance | undefined): string[] =>
    ((i?.status?.inventory ?? []) as unknown as InventoryEntry[]).map(
      (e) => `${e.kind} ${e.namespace ?? ''}/${e.name}`,
    );

  async function allInstances(): Promise<Instance[]> {
    const list = (await custom.listClusterCustomObject({
      group: 'kudo.dev',
      version: 'v1beta1',
      plural: 'instances',
    })) as { items: Instance[] };
    return list.items;
  }

  it('SIGKILL during a pipe copy: after a restart the file is copied again, the plan completes once, and a COMPLETE step never runs again', async () => {
    const ns = await namespace('pipe-restart');
    const pod = 'cowsayinstance.deploy.main.genfiles.genwww.pipepod';
    const artifact = 'cowsayinstance.deploy.main.genfiles.genwww.indexhtml';
    // cowsay, its init command writing the page and the hold file instead of downloading.
    cowsay = await offlineCowsay(`echo '${PAGE}' > /tmp/index.html && : > ${HOLD.hold}`);
    const inPod = (...command: string[]) =>
      kubectl(['exec', '-n', ns, pod, '-c', 'waiter', '--', ...command], {
        kubeconfig: cluster.kubeconfigPath,
      });
    const tarRuns = async (): Promise<number> => {
      const out = await inPod('cat', HOLD.runs);
      return out.code === 0 ? out.stdout.split('\n').filter(Boolean).length : 0;
    };

    const first = await startManager();
    const pkg = await loadPackage(cowsay.dir, { namespace: ns });
    await objects.create(ns, 'operators', pkg.operator);
    await objects.create(ns, 'operatorversions', pkg.operatorVersion);
    await objects.create(ns, 'instances', pkg.instance);
    await waitFor(
      'the copy under way (tar started in the pipe pod)',
      async () => (await inPod('test', '-e', HOLD.held)).code === 0,
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    await kill9(first);
    expect(await tarRuns()).toBe(1);
    const none = await core.listNamespacedConfigMap({
      namespace: ns,
      fieldSelector: `metadata.name=${artifact}`,
    });
    expect(none.items).toEqual([]);

    const second = await startManager();
    // The restarted manager copies again (held too), then the copy may finish.
    await waitFor('the second copy started', async () => (await tarRuns()) === 2, {
      timeoutMs: 120_000,
      intervalMs: 500,
    });
    expect((await inPod('rm', HOLD.hold)).code).toBe(0);
    const ps = await terminal(ns, 'cowsay-instance');
    expect(`${ps.status} ${ps.message ?? ''}`).toBe('COMPLETE ');
    const cm = await core.readNamespacedConfigMap({ namespace: ns, name: artifact });
    expect(cm.binaryData).toEqual({ 'index.html': Buffer.from(`${PAGE}\n`).toString('base64') });
    const instance = await objects.getInstance(ns, 'cowsay-instance');
    const inventory = inventoryOf(instance);
    expect(new Set(inventory).size).toBe(inventory.length);
    expect(inventory.filter((e) => e === `ConfigMap ${ns}/${artifact}`)).toHaveLength(1);
    await waitFor('the pipe pod deleted', async () => {
      const left = await core.listNamespacedPod({
        namespace: ns,
        fieldSelector: `metadata.name=${pod}`,
      });
      return left.items.length === 0;
    });
    expect(await planFinished(ns, 'cowsay-instance')).toBe(1);

    // Restarted with everything COMPLETE: no pipe pod again, no copy, no write.
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    // Pod status is the kubelet's to write; everything else on these kinds would be Planwright's
    // (a pipe pod created again shows as a pod write).
    const writes = async (): Promise<Record<string, number>> =>
      Object.fromEntries(
        Object.entries(
          await apiserverWriteCounts(cluster.kubeconfigPath, [
            'pods',
            'configmaps',
            'secrets',
            'instances',
          ]),
        ).filter(([key]) => !key.endsWith(' pods/status')),
      );
    const before = await writes();
    const third = await startManager();
    const count = (await allInstances()).length;
    await waitForManagerCaughtUp(third, count, 60_000);
    const after = await writes();
    third.proc.kill('SIGTERM');
    expect(await third.exited).toBe(0);
    expect(after).toEqual(before);
    expect(await planFinished(ns, 'cowsay-instance')).toBe(1);
  }, 400_000);

  it.each(['in flight', 'just created'] as const)(
    'SIGKILL during a child Instance’s creation (%s): one child, each plan finishes once',
    async (moment) => {
      const inFlight = moment === 'in flight';
      const ns = await namespace(`children-${inFlight ? 'in-flight' : 'created'}`, {
        'planwright.dev/restart-test': 'hold',
      });
      const child = 'web-dependency-child';
      const gate: Gate = {
        namespace: ns,
        name: child,
        hold: inFlight,
        calls: [],
        held: false,
      };
      gates.set(ns, gate);
      // First: Planwright's webhooks (on a port of this process) admit the packages too.
      const first = await startManager();
      const resolver = packageResolver({ cwd: FIXTURE_PACKAGES, repository: noRepository });
      const resolved = await resolveDependencies(await resolver.resolve('./dependency-parent'));
      for (const pkg of resolved.creationOrder) {
        const { operator, operatorVersion } = pkg.resources;
        await objects.create(ns, 'operators', { ...operator, metadata: { ...operator.metadata } });
        await objects.create(ns, 'operatorversions', {
          ...operatorVersion,
          metadata: { ...operatorVersion.metadata },
        });
      }

      await objects.create(ns, 'instances', {
        apiVersion: 'kudo.dev/v1beta1',
        kind: 'Instance',
        metadata: { name: 'web', labels: { 'kudo.dev/operator': 'dependency-parent' } },
        spec: { operatorVersion: { name: 'dependency-parent-1.0.0-0.1.0' } },
      });
      if (inFlight) {
        await waitFor('the child’s CREATE held in the apiserver', () => gate.held, {
          timeoutMs: 90_000,
        });
        await kill9(first);
        gate.release?.(denyForbidden('refused by the restart test: its client was killed'));
        expect(await objects.getInstance(ns, child)).toBeUndefined();
      } else {
        await waitFor(
          'the child created',
          async () => ((await objects.getInstance(ns, child)) ? true : undefined),
          { timeoutMs: 90_000, intervalMs: 5 },
        );
        await kill9(first);
      }

      const second = await startManager();
      const parentPlan = await terminal(ns, 'web');
      expect(`${parentPlan.status} ${parentPlan.message ?? ''}`).toBe('COMPLETE ');
      const childPlan = await terminal(ns, child);
      expect(childPlan.status).toBe('COMPLETE');
      const names = (await allInstances())
        .filter((i) => i.metadata.namespace === ns)
        .map((i) => i.metadata.name)
        .sort();
      expect(names).toEqual(['web', child]);
      const inventory = inventoryOf(await objects.getInstance(ns, 'web'));
      expect(new Set(inventory).size).toBe(inventory.length);
      expect(inventory.filter((e) => e.startsWith('Instance '))).toEqual([
        `Instance ${ns}/${child}`,
      ]);
      expect((await objects.getInstance(ns, child))?.spec?.parameters).toEqual({
        MESSAGE: 'hello from web',
        REPLICAS: '2',
      });
      expect(await planFinished(ns, 'web')).toBe(1);
      expect(await planFinished(ns, child)).toBe(1);
      // Created once: a second CREATE reached the apiserver only when the first was dropped.
      // Checked after the outcome, and with the restarted manager's log, so that a failure here
      // tells an extra attempt from an extra child or plan.
      if (gate.calls.length !== (inFlight ? 2 : 1)) {
        throw new Error(
          `${gate.calls.length} CREATEs of ${child} reached the apiserver (at ${gate.calls.join(', ')}), ${inFlight ? 2 : 1} expected; the restarted manager's log (tail):\n${second.log.slice(-3000)}`,
        );
      }
      second.proc.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    },
    300_000,
  );
});
