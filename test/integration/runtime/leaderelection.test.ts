// Leader election on the shared control plane: one leader at a time, takeover after a graceful
// release without waiting out the lease, takeover only once the lease of a SIGKILLed leader
// process has expired, and a
// lost lease aborting in-flight reconciles, stopping the controllers and rejoining the
// election (the process does not exit).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import * as k8s from '@kubernetes/client-node';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { RuntimeConfigError } from '../../../src/runtime/errors.ts';
import { LeaderElector } from '../../../src/runtime/leaderelection.ts';
import { EXIT_OK, Manager } from '../../../src/runtime/manager.ts';
import { KubeClient } from '../../../src/kube/index.ts';
import { createTestNamespace, kubeConfig, testCluster, uniqueName } from '../../support/cluster.ts';
import { takeLease } from '../../support/lease.ts';
import { waitFor } from '../../support/wait.ts';
import { LEASE_TIMINGS } from './fixtures/timings.ts';

const logger = pino({ level: 'silent' });

/** Timings for a lease that only a release can hand over within a test's wait. */
const LONG_LEASE = { leaseDurationMs: 60_000, renewDeadlineMs: 40_000, retryPeriodMs: 500 };

function manager(
  namespace: string,
  name: string,
  identity: string,
  timings: typeof LEASE_TIMINGS | typeof LONG_LEASE = LEASE_TIMINGS,
): Manager {
  return new Manager({
    kubeConfig: kubeConfig(),
    logger,
    registry: new Registry(),
    leaderElection: { namespace, name, identity, ...timings },
  });
}

describe('leader election', () => {
  let namespace: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    namespace = await createTestNamespace('leader');
  });

  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('validates lease > renew deadline > 1.2 × retry period', () => {
    const client = new KubeClient(kubeConfig());
    const base = { client, namespace: 'x', name: 'y', logger };
    expect(
      () => new LeaderElector({ ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }),
    ).toThrow(RuntimeConfigError);
    expect(
      () => new LeaderElector({ ...base, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 }),
    ).toThrow(/1\.2 × retry period/);
    client.close();
  });

  it('the leader renews with one PUT from the record it wrote; a Lease written by someone else sends it back to reading, and it steps down', async () => {
    class CountingClient extends KubeClient {
      readonly calls: string[] = [];
      override request<T>(options: Parameters<KubeClient['request']>[0]): Promise<T> {
        this.calls.push(options.method ?? 'GET');
        return super.request<T>(options);
      }
    }
    const client = new CountingClient(kubeConfig());
    const name = uniqueName('lease');
    const elector = new LeaderElector({
      client,
      namespace,
      name,
      logger,
      identity: 'renewer',
      ...LEASE_TIMINGS,
    });
    const stop = new AbortController();
    try {
      expect(await elector.acquire(stop.signal)).toBe(true);
      const acquiredWith = client.calls.length;
      await waitFor('three renewals', () => client.calls.length >= acquiredWith + 3);
      expect(client.calls.slice(acquiredWith)).toEqual(
        Array(client.calls.length - acquiredWith).fill('PUT'),
      );
      // Another holder takes the Lease over (a stale leader's view must not win).
      const leases = kubeConfig().makeApiClient(k8s.CoordinationV1Api);
      // Read and replace until the write lands: the renewer may renew in between (a 409).
      await waitFor('the intruder to take the Lease', async () => {
        const current = await leases.readNamespacedLease({ namespace, name });
        await leases.replaceNamespacedLease({
          namespace,
          name,
          body: {
            ...current,
            spec: {
              ...current.spec,
              holderIdentity: 'intruder',
              leaseDurationSeconds: 60,
              renewTime: new k8s.V1MicroTime(),
            },
          },
        });
        return true;
      });
      // A hang guard: it steps down at its next renewal, one retry period away.
      await waitFor('the renewer to step down', () => elector.lost.aborted, {
        timeoutMs: 60_000,
      });
      expect(elector.isLeader).toBe(false);
      expect(client.calls).toContain('GET');
    } finally {
      stop.abort();
      await elector.release();
      client.close();
    }
  });

  it('has exactly one leader at any time, and a graceful stop hands over without waiting out the lease', async () => {
    const lease = uniqueName('lease');
    // A lease far longer than the wait for the takeover below: a standby that leads within
    // that wait can only have found the lease released, whatever the machine's load.
    const a = manager(namespace, lease, 'a', LONG_LEASE);
    const b = manager(namespace, lease, 'b', LONG_LEASE);
    const stopA = new AbortController();
    const stopB = new AbortController();
    const runA = a.start(stopA.signal);
    const runB = b.start(stopB.signal);
    await waitFor('a leader', () => a.isLeader || b.isLeader);
    let both = 0;
    let none = 0;
    for (let i = 0; i < 60; i += 1) {
      if (a.isLeader && b.isLeader) both += 1;
      if (!a.isLeader && !b.isLeader) none += 1;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(both).toBe(0);
    expect(none).toBe(0);

    const [leaderStop, standby, standbyStop, leaderRun] = a.isLeader
      ? [stopA, b, stopB, runA]
      : [stopB, a, stopA, runB];
    leaderStop.abort();
    expect(await leaderRun).toBe(EXIT_OK);
    // Released (empty holder): no need to wait out the lease.
    await waitFor('standby takes over', () => standby.isLeader, {
      timeoutMs: LONG_LEASE.leaseDurationMs / 2,
    });
    const lease2 = await kubeConfig()
      .makeApiClient(k8s.CoordinationV1Api)
      .readNamespacedLease({ namespace, name: lease });
    expect(lease2.spec?.holderIdentity).toBe(standby === a ? 'a' : 'b');
    standbyStop.abort();
    expect(await (standby === a ? runA : runB)).toBe(EXIT_OK);
  });

  it('takes over once the lease of a SIGKILLed leader process expires, never before', async () => {
    const lease = uniqueName('lease');
    const child = spawn(
      process.execPath,
      [
        '--import',
        './scripts/register-ts.mjs',
        'test/integration/runtime/fixtures/leader-child.ts',
        testCluster().kubeconfigPath,
        namespace,
        lease,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(child);
    const lines = createInterface({ input: child.stdout });
    await new Promise<string>((resolve, reject) => {
      lines.on('line', (line) => line.startsWith('LEADER') && resolve(line));
      child.once('exit', (code) => reject(new Error(`child exited early with ${code}`)));
    });
    const standby = manager(namespace, lease, 'standby');
    const stop = new AbortController();
    const run = standby.start(stop.signal);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(standby.isLeader).toBe(false);

    const killedAt = Date.now();
    child.kill('SIGKILL');
    // Liveness: it takes over (the wait is a hang guard, many leases long).
    await waitFor('standby takes over', () => standby.isLeader, {
      timeoutMs: 20 * LEASE_TIMINGS.leaseDurationMs,
      intervalMs: 20,
    });
    // Safety, a lower bound (load only makes it later): the dead leader renewed at most one
    // retry period before the kill, and its lease counts from when the standby saw that.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(
      LEASE_TIMINGS.leaseDurationMs - LEASE_TIMINGS.retryPeriodMs,
    );
    stop.abort();
    expect(await run).toBe(EXIT_OK);
  });

  it('on a lost lease aborts the in-flight reconcile, stops the controllers, and leads again once the lease is free', async () => {
    const lease = uniqueName('lease');
    const m = manager(namespace, lease, 'victim');
    let aborted = 0;
    let started = 0;
    let inFlight = 0;
    let concurrent = 0;
    m.controller()
      .named('blocker')
      .for({ group: '', version: 'v1', kind: 'ConfigMap' })
      .complete(async (key, signal) => {
        if (!key.startsWith(`${namespace}/`)) return;
        started += 1;
        inFlight += 1;
        concurrent = Math.max(concurrent, inFlight);
        if (started === 1) {
          // The first reconcile blocks until leadership is lost.
          await new Promise<void>((resolve) =>
            signal.addEventListener('abort', () => resolve(), { once: true }),
          );
          aborted += 1;
        }
        inFlight -= 1;
      });
    let exited = false;
    const stop = new AbortController();
    const run = m.start(stop.signal).then((code) => {
      exited = true;
      return code;
    });
    await waitFor('leader', () => m.isLeader);
    await kubeConfig()
      .makeApiClient(k8s.CoreV1Api)
      .createNamespacedConfigMap({ namespace, body: { metadata: { name: 'block' } } });
    await waitFor('reconcile in flight', () => started === 1);

    // Someone else takes the lease (as after a network partition), and then never renews it.
    const leases = kubeConfig().makeApiClient(k8s.CoordinationV1Api);
    await takeLease(leases, { namespace, name: lease, holder: 'thief' });
    await waitFor('leadership lost', () => !m.isLeader, { timeoutMs: 20_000, intervalMs: 20 });
    await waitFor('in-flight reconcile aborted', () => aborted === 1);
    expect(exited).toBe(false);

    // The thief's lease expires; the manager stood for election again and leads again, and
    // its controller starts over from the cache (level-triggered: the ConfigMap is seen again).
    await waitFor('leader again', () => m.isLeader, { timeoutMs: 30_000, intervalMs: 50 });
    await waitFor('reconciled in the new term', () => started >= 2, { timeoutMs: 10_000 });
    const after = await leases.readNamespacedLease({ namespace, name: lease });
    expect(after.spec?.holderIdentity).toBe('victim');
    expect(concurrent).toBe(1);
    expect(exited).toBe(false);
    stop.abort();
    expect(await run).toBe(EXIT_OK);
    expect(m.isLeader).toBe(false);
  });
});
