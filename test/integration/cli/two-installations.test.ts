// Two Planwright installations on one cluster (shared control plane, the built CLI as users
// run it, short Lease timings): only the installation the webhook registration belongs to
// reconciles.
// - A `planwright start` of another namespace beside the registered one says so at start,
//   naming the other, and reconciles nothing (it never joins a shard ring; the registered
//   one completes the plan);
// - `planwright start --install` of another namespace refuses to start while the registered
//   one answers, naming it;
// - when the registration comes to name another installation, the running one stops
//   reconciling (its shard is let go) and says so; named again, it takes it back.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import * as k8s from '@kubernetes/client-node';
import { KubeClient } from '../../../src/kube/index.ts';
import { createTestNamespace, kubeConfig, testCluster } from '../../support/cluster.ts';
import { installKudoCrds, kudoObjects } from '../../support/kudo.ts';
import { applyStepsOperatorVersion, instanceObject } from '../../support/kudo-objects.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../support/planwright-start.ts';
import { waitFor } from '../../support/wait.ts';
import { PLANWRIGHT, runBuilt, runKudo } from './built-cli.ts';

const TIMINGS = [
  '--leader-elect-lease-duration',
  '3s',
  '--leader-elect-renew-deadline',
  '2s',
  '--leader-elect-retry-period',
  '500ms',
];
const REGISTRATION =
  '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/planwright-instances';

describe('two installations in one cluster', () => {
  let registered: StartedPlanwright | undefined;
  let ns: string;
  let home: string;
  let other: string;
  let admin: KubeClient;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    await installKudoCrds();
    admin = new KubeClient(kubeConfig());
    ns = await createTestNamespace('two-inst');
    home = await createTestNamespace('inst-home');
    other = await createTestNamespace('inst-other');
    registered = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [ns],
      args: ['--namespace', home, ...TIMINGS],
    });
  }, 180_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await registered?.stop();
    admin?.close();
  });

  const shardHolder = async (namespace: string): Promise<string | undefined> => {
    try {
      const lease = await admin.request<{ spec?: { holderIdentity?: string } }>({
        path: `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/planwright-shard-0`,
      });
      return lease.spec?.holderIdentity ?? '';
    } catch {
      return undefined;
    }
  };

  it('a second installation says so at start, naming the registered one, and reconciles nothing', async () => {
    expect(registered?.log()).toContain('Planwright is running');
    const child = spawn(
      process.execPath,
      [
        PLANWRIGHT,
        'start',
        '--kubeconfig',
        testCluster().kubeconfigPath,
        '--webhook-port',
        '0',
        '--namespace',
        other,
        '--watch-namespaces',
        ns,
        ...TIMINGS,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    await waitFor('the second to say so', () =>
      stderr.includes(
        `Another Planwright installation runs this cluster's Instances: the webhook registration planwright-instances belongs to the installation of namespace ${home}`,
      ),
    );
    // The registered one reconciles an Instance; the other never joins a ring (no Lease of
    // its own namespace), however long it runs.
    const objects = kudoObjects(kubeConfig().makeApiClient(k8s.CustomObjectsApi));
    await objects.create(
      ns,
      'operatorversions',
      applyStepsOperatorVersion('two', {
        'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-cm\n',
      }),
    );
    await objects.create(ns, 'instances', instanceObject('two', 'two'));
    await waitFor('the plan COMPLETE', async () => {
      const i = await objects.getInstance(ns, 'two');
      return i?.status?.planStatus?.['deploy']?.status === 'COMPLETE';
    });
    const holder = (await shardHolder(home)) ?? '';
    expect(holder).toMatch(/.+/);
    expect(await shardHolder(other)).toBeUndefined();
    // Who reconciles it: its shard, and the replica whose Lease holds the shard.
    const wide = await runKudo(['get', 'instances', '-o', 'wide'], {
      namespace: ns,
      kubeconfig: testCluster().kubeconfigPath,
    });
    expect([wide.code, wide.stderr]).toEqual([0, '']);
    expect(wide.stdout.split('\n').map((l) => l.trim().split(/\s+/))).toEqual([
      ['NAME', 'SHARD', 'REPLICA'],
      ['two', '0', holder],
      [''],
    ]);
    child.kill('SIGTERM');
    expect(await new Promise((r) => child.once('exit', r))).toBe(0);
  }, 120_000);

  it('start --install of another installation refuses to start while the registered one answers', async () => {
    const result = await runBuilt(
      PLANWRIGHT,
      [
        'start',
        '--kubeconfig',
        testCluster().kubeconfigPath,
        '--install',
        '--webhook-port',
        '0',
        '--namespace',
        other,
        '--watch-namespaces',
        ns,
      ],
      { timeoutMs: 60_000 },
    );
    expect(result.code).toBe(255);
    expect(result.stderr).toContain(
      `another Planwright installation runs in this cluster: the webhook registration planwright-instances belongs to the installation of namespace ${home}`,
    );
    expect(result.stderr).toContain('which answers');
    // The registration still names the first.
    const registration = await admin.request<{
      metadata: { annotations?: Record<string, string> };
    }>({
      path: REGISTRATION,
    });
    expect(registration.metadata.annotations?.['planwright.dev/installation']).toBe(home);
  }, 120_000);

  it('when the registration names another installation, the running one lets its shard go; named again, it takes it back', async () => {
    const setInstallation = (installation: string): Promise<unknown> =>
      admin.request({
        method: 'PATCH',
        path: REGISTRATION,
        contentType: 'application/merge-patch+json',
        body: { metadata: { annotations: { 'planwright.dev/installation': installation } } },
      });
    const before = (await shardHolder(home)) ?? '';
    expect(before).not.toBe('');
    await setInstallation('somewhere-else');
    await waitFor('shard 0 let go', async () => (await shardHolder(home)) === '', {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    expect(registered?.log()).toContain(
      'the webhook registration planwright-instances belongs to the installation of namespace somewhere-else',
    );
    await setInstallation(home);
    // Named again: after a lease duration it runs the shard again, under a new identity.
    await waitFor(
      'shard 0 taken back',
      async () => {
        const holder = (await shardHolder(home)) ?? '';
        return holder !== '' && holder !== before;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(registered?.log()).toContain(
      'The webhook registration planwright-instances names this installation now: running controllers.',
    );
  }, 120_000);
});
