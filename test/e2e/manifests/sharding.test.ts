// Sharded reconciling for real, on a dedicated cluster with a real node: `planwright init
// --replicas 3` runs the image as three pods, which share the manifests' 12 shards, four each.
// - 600 Instances (a one-ConfigMap package) reach COMPLETE, and each replica reports the
//   Instances of its shards: within 20 % of a third each (the 600 names are fixed, so are their
//   shards: any four of the twelve shards hold between 167 and 238 of them);
// - under a steady stream of parameter writes to one Instance (its plan ledger: no run lost,
//   none run twice — plan-ledger.ts) and of admission requests (none may fail):
//   * the pod running that Instance's shard is deleted: its shards go to the other two (after
//     they drained), Instances of those shards keep running plans, the replacement pod takes
//     its share back;
//   * the container of the pod running it is killed with SIGKILL: the others take its shards
//     over within the lease duration;
//   * the Deployment is scaled to 1 (one pod runs all twelve shards) and back to 3.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeClient } from '../../../src/kube/index.ts';
import type { Instance } from '../../../src/kudo/api/index.ts';
import { shardOf } from '../../../src/runtime/index.ts';
import { ensureBuiltCli } from '../../integration/cli/built-cli.ts';
import { pushTestImage } from '../../support/planwright-image.ts';
import { waitFor } from '../../support/wait.ts';
import { startAdmissionStream } from './admission-stream.ts';
import { createConfigPackage, openLedger } from './ledger.ts';
import { startPlanWrites } from './plan-writes.ts';
import {
  containerPid,
  initWithImage,
  planwrightPods,
  podLogs,
  type PlanwrightPod,
} from './pods.ts';
import {
  sampleSum,
  scraperToken,
  secretData,
  startDedicatedCluster,
  type DedicatedCluster,
} from './replicas.ts';
import { evenlyShared, podOfMember, scraper, shardHolders, shardsByPod, SHARDS } from './shards.ts';
import { stoppedAfterEach } from './stopped-after-each.ts';
import { waitForLaneGate } from '../../support/lane-gate.ts';

const NS = 'planwright-system';
const N = 600;
const SPREAD = 'spread';
const LEDGER_NS = 'ledger';
// The manifests' Lease timings (client-go's defaults): a dead replica's Lease is judged
// expired a lease duration after its last renewal, at the next look (a retry period).
const LEASE_DURATION_MS = 15_000;
const RETRY_PERIOD_MS = 2_000;

/** How the API server reports a webhook call whose process died mid-answer. */
const CONNECTION_LOST = /\bEOF\b|connection refused|connection reset|broken pipe/i;
/** The API server's refusal of a request whose webhook call failed. */
const WEBHOOK_CALL_FAILED = /failed calling webhook "[^"]*planwright\.dev"/;

/** The pod a disruption killed with -9: requests to its address may be lost. */
interface Killed {
  readonly ip: string;
  /** When it was killed (epoch ms). */
  readonly at: number;
}

/**
 * How long after a kill a call that was in flight to the killed process can still fail: the
 * webhook's timeout (`timeoutSeconds: 5`), the longest a call waits for its answer.
 */
const IN_FLIGHT_MS = 5_000;
/** An address in the API server's message: the call was dialled to that pod. */
const ADDRESS = /\b\d{1,3}(?:\.\d{1,3}){3}:\d+\b/;

describe('three replicas share the Instances (sharded reconciling on a real node)', () => {
  let dedicated: DedicatedCluster;
  let admin: KubeClient;
  let pods: PlanwrightPod[] = [];
  let token: string | undefined;
  const caPem = async (): Promise<string> =>
    (await secretData(admin, NS, 'planwright-webhook-tls'))['ca.crt'] ?? '';
  const scrape = scraper(caPem, async () => (token ??= await scraperToken(admin, NS)));
  const logs = async (): Promise<string> =>
    (
      await Promise.all(pods.map(async (p) => `--- ${p.name}\n${await podLogs(dedicated, p.name)}`))
    ).join('\n');
  const instancePath = (ns: string, name = ''): string =>
    `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances${name ? `/${name}` : ''}`;
  const live = async (): Promise<PlanwrightPod[]> =>
    (await planwrightPods(admin, NS)).filter((p) => !p.deleting);
  /** `n` Ready pods on the real node sharing the shards evenly (Leases and /metrics agree). */
  const shared = (n: number, what: string, extra: (ps: PlanwrightPod[]) => boolean = () => true) =>
    waitFor(
      what,
      async () => {
        pods = await live();
        return (
          pods.length === n &&
          pods.every((p) => p.ready && p.node === 'node-1') &&
          extra(pods) &&
          (await evenlyShared(admin, NS, pods, scrape))
        );
      },
      { timeoutMs: 300_000, intervalMs: 1_000 },
    ).catch(async (err: unknown) => {
      throw new Error(`${(err as Error).message}\n${await logs()}`);
    });

  /** Instances of `ns` whose current plan run is COMPLETE. */
  const complete = async (ns: string, names?: ReadonlySet<string>): Promise<number> => {
    const list = await admin.request<{ items: Instance[] }>({ path: instancePath(ns) });
    return list.items.filter((i) => {
      if (names && !names.has(i.metadata.name ?? '')) return false;
      const ps = i.status?.planStatus?.['deploy'];
      if (ps?.status === 'FATAL_ERROR')
        throw new Error(`${i.metadata.name ?? ''} failed: ${JSON.stringify(ps)}`);
      return ps?.status === 'COMPLETE' && ps.uid === i.spec?.planExecution?.uid;
    }).length;
  };
  /** A parameter change on each Instance named, then all of them COMPLETE again. */
  const rerun = async (names: readonly string[], value: string): Promise<void> => {
    for (const name of names) {
      await admin.request({
        method: 'PATCH',
        path: instancePath(SPREAD, name),
        body: { spec: { parameters: { MESSAGE: value } } },
        contentType: 'application/merge-patch+json',
      });
    }
    await waitFor(
      `${names.length} Instances COMPLETE with ${value}`,
      async () => (await complete(SPREAD, new Set(names))) === names.length,
      {
        timeoutMs: 180_000,
        intervalMs: 1_000,
      },
    );
  };
  /** `count` Instance names of SPREAD whose shard is one of `shards`. */
  const namesIn = (shards: readonly string[], count: number): string[] =>
    Array.from({ length: N }, (_, i) => `inst-${i}`)
      .filter((name) => shards.includes(shardOf(`${SPREAD}/${name}`, SHARDS)))
      .slice(0, count);

  beforeAll(async () => {
    dedicated = await startDedicatedCluster({ nodeKind: 'mixed' });
    admin = dedicated.admin;
    await ensureBuiltCli();
    await pushTestImage(dedicated.cluster.imageRegistry ?? '');
    const init = await initWithImage(dedicated.cluster, {
      flags: ['--replicas', '3'],
      waitSeconds: 240,
    });
    expect([init.code, init.stderr]).toEqual([0, '']);
    expect(init.stdout).toContain('applied deployment.apps/planwright -n planwright-system');
    const deployment = await admin.request<{
      spec: { replicas: number; template: { spec: { containers: Array<{ args: string[] }> } } };
    }>({
      path: `/apis/apps/v1/namespaces/${NS}/deployments/planwright`,
    });
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.template.spec.containers[0]?.args).toEqual([
      '--webhook-port',
      '9443',
      '--shards',
      '12',
    ]);
    await shared(3, 'three replicas running four shards each');
    // From here on the API server's calls to the pods must not starve (SERIAL_FILES): in a
    // full run the set-up above ran while the other lanes ended, the tests wait for them.
    await waitForLaneGate((line) => console.log(`[sharding e2e] ${line}`));
  }, 900_000);

  afterAll(async () => {
    await dedicated?.stop();
  }, 120_000);

  it(`spreads ${N} Instances: every one COMPLETE, each replica reconciling its shards’ share, within 20 % of N/3`, async () => {
    const template = await createConfigPackage(admin, SPREAD);
    const names = Array.from({ length: N }, (_, i) => `inst-${i}`);
    for (let i = 0; i < names.length; i += 10) {
      await Promise.all(
        names.slice(i, i + 10).map((name) =>
          admin.request({
            method: 'POST',
            path: instancePath(SPREAD),
            body: { ...template, metadata: { ...template.metadata, name } },
          }),
        ),
      );
    }
    await waitFor(`${N} COMPLETE`, async () => (await complete(SPREAD)) === N, {
      timeoutMs: 600_000,
      intervalMs: 2_000,
    }).catch(async (err: unknown) => {
      throw new Error(`${(err as Error).message}\n${await logs()}`);
    });
    // Every Instance carries its shard, as the webhook computed it.
    const list = await admin.request<{ items: Instance[] }>({ path: instancePath(SPREAD) });
    expect(
      list.items.filter(
        (i) =>
          i.metadata.labels?.['planwright.dev/shard'] !==
          shardOf(`${SPREAD}/${i.metadata.name ?? ''}`, SHARDS),
      ),
    ).toEqual([]);
    // What each replica reports it holds (its shards' caches) is what the labels and the
    // Leases say it should, and each holds its share.
    const byPod = shardsByPod(pods, await shardHolders(admin, NS));
    const reported: Record<string, number> = {};
    for (const pod of pods) {
      const text = await scrape(pod);
      reported[pod.name] = sampleSum(text, 'planwright_shard_instances');
      const expected = list.items.filter((i) =>
        byPod.get(pod.name)?.includes(i.metadata.labels?.['planwright.dev/shard'] ?? ''),
      ).length;
      expect(reported[pod.name]).toBe(expected);
      expect(
        sampleSum(text, 'controller_runtime_reconcile_total', (l) =>
          l.includes('controller="instances"'),
        ),
      ).toBeGreaterThan(0);
    }
    process.stderr.write(
      `[sharding e2e] ${N} Instances COMPLETE; per replica: ${JSON.stringify(reported)}\n`,
    );
    for (const n of Object.values(reported)) {
      expect(n).toBeGreaterThanOrEqual(0.8 * (N / 3));
      expect(n).toBeLessThanOrEqual(1.2 * (N / 3));
    }
  }, 900_000);

  describe('under a stream of parameter writes and admission requests', () => {
    // Request loops and ledgers a test starts are stopped after it, passed or failed.
    const track = stoppedAfterEach();
    let ledger = '';

    /**
     * Runs `disrupt` while one Instance gets parameter changes one after another (two before,
     * two after) and admission requests stream; then judges the ledger: every write's run
     * COMPLETE, the ConfigMap took every value once and in order, no run started twice or
     * changed after it ended; and no admission request failed.
     */
    const underStreams = async (
      what: string,
      disrupt: (ledgerShard: string) => Promise<Killed | void>,
    ): Promise<void> => {
      if (ledger === '') {
        const template = await createConfigPackage(admin, LEDGER_NS);
        ledger = template.metadata.name ?? '';
        await admin.request({ method: 'POST', path: instancePath(LEDGER_NS), body: template });
      }
      const states = track(await openLedger(admin, LEDGER_NS, ledger, 300_000));
      const admissions = track(startAdmissionStream({ client: admin, namespace: LEDGER_NS }));
      const runs = track(
        startPlanWrites({
          client: admin,
          namespace: LEDGER_NS,
          instance: ledger,
          parameter: 'MESSAGE',
          plan: 'deploy',
          runTimeoutMs: 180_000,
          lostCall: (message) => WEBHOOK_CALL_FAILED.test(message) && CONNECTION_LOST.test(message),
        }),
      );
      await runs.more(2);
      const killed = await disrupt(states.deployed.metadata.labels?.['planwright.dev/shard'] ?? '');
      await runs.more(2);
      const written = await runs.stop();
      const result = await admissions.stop();
      process.stderr.write(
        `[sharding e2e] ${what}: ${written.length} plan runs written and COMPLETE, ${result.answered} admissions answered, ${result.failed.length} failed${killed ? `; the process killed ${killed.at - result.startedAt} ms into the admission stream` : ''}\n`,
      );
      // A process killed with -9 takes the requests it was answering with it, and the API
      // server sends it new ones until the endpoints drop its address (Kubernetes does not
      // retry a webhook call). A call dialled to it is reported as a refused or lost
      // connection to that pod's address; a call that was in flight on a kept-alive
      // connection only as "EOF", with no address, at the moment of the kill. Those are
      // counted and printed; any other failure fails the test, and a graceful stop loses none.
      const lost = killed
        ? result.failures
            .filter(
              (f) =>
                CONNECTION_LOST.test(f.text) &&
                (f.text.includes(`${killed.ip}:`) ||
                  (!ADDRESS.test(f.text) && f.at >= killed.at && f.at <= killed.at + IN_FLIGHT_MS)),
            )
            .map((f) => f.text)
        : [];
      if (lost.length > 0) {
        process.stderr.write(
          `[sharding e2e] ${what}: ${lost.length} in flight to the killed process, at ${lost.map((l) => l.slice(0, l.indexOf(':'))).join(', ')}\n`,
        );
      }
      expect(result.failed.filter((f) => !lost.includes(f))).toEqual([]);
      // The same for the parameter writes: a write whose webhook call was lost is written
      // again (the API server stored nothing), and only a kill may lose one.
      if (runs.lost.length > 0) {
        process.stderr.write(
          `[sharding e2e] ${what}: ${runs.lost.length} parameter write(s) written again: ${runs.lost.join('; ')}\n`,
        );
      }
      if (!killed) expect(runs.lost).toEqual([]);
      expect(result.answered).toBeGreaterThan(0);
      await states.judge(written);
    };

    it('deleting the pod that runs a shard: its shards go to the other two, its Instances keep running plans, the replacement takes its share back', async () => {
      await underStreams('pod deleted', async (shard) => {
        const holders = await shardHolders(admin, NS);
        const victim = podOfMember(pods, holders.get(shard) ?? '');
        if (!victim) throw new Error(`no pod runs shard ${shard}`);
        const theirs = shardsByPod(pods, holders).get(victim.name) ?? [];
        const others = pods.filter((p) => p.name !== victim.name);
        const deletedAt = Date.now();
        await admin.request({
          method: 'DELETE',
          path: `/api/v1/namespaces/${NS}/pods/${victim.name}`,
        });
        // Graceful: the kubelet's preStop wait (5 s), then SIGTERM: the replica drains and names
        // the two others in its shards' Leases.
        await waitFor(
          `${victim.name}'s shards on the other two`,
          async () => {
            const now = await shardHolders(admin, NS);
            return theirs.every((s) =>
              others.some((p) => (now.get(s) ?? '').startsWith(`${p.name}-`)),
            );
          },
          { timeoutMs: 120_000, intervalMs: 200 },
        );
        const handedOver = Date.now() - deletedAt;
        process.stderr.write(
          `[sharding e2e] ${victim.name} deleted: its ${theirs.length} shards on the other replicas after ${handedOver} ms\n`,
        );
        // preStop (5 s) + the drain of what was in flight, within the lease duration.
        expect(handedOver).toBeLessThan(5_000 + LEASE_DURATION_MS);
        // Its Instances run plans on the others meanwhile.
        await rerun(namesIn(theirs, 20), 'after-delete');
        await shared(3, 'a replacement pod running its four shards', (ps) =>
          ps.every((p) => p.name !== victim.name),
        );
      });
    }, 900_000);

    it('kill -9 of the container that runs a shard: the others take its shards over within the lease duration', async () => {
      await underStreams('container killed', async (shard) => {
        const holders = await shardHolders(admin, NS);
        const victim = podOfMember(pods, holders.get(shard) ?? '');
        if (!victim) throw new Error(`no pod runs shard ${shard}`);
        const identity = holders.get(shard) ?? '';
        const theirs = [...holders].filter(([, h]) => h === identity).map(([s]) => s);
        const pid = containerPid(victim.name);
        const killedAt = Date.now();
        process.kill(pid, 'SIGKILL');
        // No drain, no handover: the Leases name a dead member until the others see its member
        // Lease unchanged for a lease duration.
        await waitFor(
          `${victim.name}'s shards taken over`,
          async () => {
            const now = await shardHolders(admin, NS);
            return theirs.every((s) => (now.get(s) ?? identity) !== identity && now.get(s) !== '');
          },
          { timeoutMs: 120_000, intervalMs: 200 },
        );
        const takeover = Date.now() - killedAt;
        process.stderr.write(
          `[sharding e2e] ${victim.name} killed: its ${theirs.length} shards taken over after ${takeover} ms\n`,
        );
        // Its last renewal was at most a retry period before the kill, and no one takes a Lease
        // over before it has stood unrenewed for a lease duration: a lower bound that load can
        // only make later. (How soon after is measured and printed above, and in bench/.)
        expect(takeover).toBeGreaterThanOrEqual(LEASE_DURATION_MS - RETRY_PERIOD_MS);
        await rerun(namesIn(theirs, 20), 'after-kill');
        await shared(3, `${victim.name} restarted and running its four shards again`, (ps) =>
          ps.some((p) => p.name === victim.name && p.restarts === 1),
        );
        return { ip: victim.ip, at: killedAt };
      });
    }, 900_000);

    it('scale to 1 (it runs all twelve shards) and back to 3 (four each): plans keep running', async () => {
      await underStreams('scaled to 1 and back', async () => {
        const scale = async (replicas: number): Promise<void> => {
          const out = await dedicated.kubectl([
            'scale',
            '-n',
            NS,
            'deployment/planwright',
            `--replicas=${replicas}`,
          ]);
          expect(out.code).toBe(0);
        };
        await scale(1);
        await shared(1, 'one replica running all twelve shards');
        await rerun(namesIn(['0', '5', '11'], 15), 'on-one');
        await scale(3);
        await shared(3, 'three replicas running four shards each again');
        await rerun(namesIn(['1', '6', '10'], 15), 'on-three');
      });
    }, 900_000);
  });
});
