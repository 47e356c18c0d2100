// A sharded controller on the shared control plane (ConfigMaps of one namespace as the kind):
// two managers share four shards through the ring; the labeler gives unlabelled objects, and
// objects labelled with a shard beyond the count, the shard their key hashes to — written by
// the replica that runs it; each manager's caches hold, and its controllers reconcile, only
// the objects of the shards it runs.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { Manager } from '../../../src/runtime/manager.ts';
import { ShardLabeler } from '../../../src/runtime/sharding/labeler.ts';
import { shardOf } from '../../../src/runtime/sharding/rendezvous.ts';
import type { ShardedController } from '../../../src/runtime/sharding/controller.ts';
import { objectKey, type KubeObject } from '../../../src/runtime/types.ts';
import { createTestNamespace, kubeConfig, uniqueName } from '../../support/cluster.ts';
import { waitFor } from '../../support/wait.ts';
import { LEASE_TIMINGS } from './fixtures/timings.ts';

const CONFIGMAPS = { group: '', version: 'v1', kind: 'ConfigMap' };
const LABEL = 'test.planwright.dev/shard';
const SHARDS = 4;

interface Replica {
  readonly manager: Manager;
  readonly controller: ShardedController<KubeObject>;
  readonly reconciled: Set<string>;
  readonly stop: AbortController;
  readonly run: Promise<number>;
}

function replica(namespace: string, ring: string, name: string): Replica {
  const manager = new Manager({
    kubeConfig: kubeConfig(),
    logger: pino({ level: 'silent' }),
    registry: new Registry(),
    leaderElection: { namespace, name: `${ring}-leader`, identity: name, ...LEASE_TIMINGS },
    sharding: { shards: SHARDS, name: ring, identity: name },
    namespaces: [namespace],
  });
  const reconciled = new Set<string>();
  const controller = manager
    .controller()
    .named('configmaps')
    .for<KubeObject>(CONFIGMAPS)
    .workers(2)
    .completeSharded({
      label: LABEL,
      reconcilerForTerm: () => (key, _signal, object) => {
        if (object) reconciled.add(key);
        return Promise.resolve();
      },
    });
  manager.add(
    new ShardLabeler({
      caches: manager.caches,
      gvk: CONFIGMAPS,
      label: LABEL,
      shards: manager.shards,
      keyOf: objectKey,
      logger: pino({ level: 'silent' }),
    }),
  );
  const stop = new AbortController();
  return { manager, controller, reconciled, stop, run: manager.start(stop.signal) };
}

describe('sharded controller', () => {
  let namespace: string;
  let core: k8s.CoreV1Api;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    namespace = await createTestNamespace('sharded');
    core = kubeConfig().makeApiClient(k8s.CoreV1Api);
  });

  afterAll(async () => {
    for (const r of replicas) r.stop.abort();
    await Promise.all(replicas.map((r) => r.run));
  });

  it('labels objects with their shard; each replica caches and reconciles only the shards it runs', async () => {
    const ring = uniqueName('ring');
    replicas.push(replica(namespace, ring, 'one'), replica(namespace, ring, 'two'));
    const runs = (r: Replica): string[] =>
      r.manager.shards.shards.filter((s) => r.manager.shards.runs(s));
    await waitFor('two shards each', () => replicas.every((r) => runs(r).length === 2), {
      timeoutMs: 30_000,
    });
    const names = Array.from({ length: 40 }, (_, i) => `cm-${i}`);
    for (const name of names) {
      await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name }, data: { n: name } },
      });
    }
    // Labelled with a shard beyond the count, held by nobody: moved to where its key goes.
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'stray', labels: { [LABEL]: '7' } } },
    });
    const all = [...names, 'stray'];
    const keys = all.map((n) => `${namespace}/${n}`);
    await waitFor(
      'every object reconciled',
      () => keys.every((k) => replicas.some((r) => r.reconciled.has(k))),
      { timeoutMs: 60_000 },
    );
    const listed = await core.listNamespacedConfigMap({ namespace, labelSelector: LABEL });
    expect(
      Object.fromEntries(listed.items.map((c) => [c.metadata?.name, c.metadata?.labels?.[LABEL]])),
    ).toEqual(Object.fromEntries(all.map((n) => [n, shardOf(`${namespace}/${n}`, SHARDS)])));
    for (const r of replicas) {
      const mine = new Set(runs(r));
      // Reconciled: exactly the keys of its shards.
      expect([...r.reconciled].sort()).toEqual(
        keys.filter((k) => mine.has(shardOf(k, SHARDS))).sort(),
      );
      // Cached: per shard, exactly that shard's objects.
      for (const [shard, size] of r.controller.objects()) {
        expect(mine.has(shard)).toBe(true);
        expect(size).toBe(keys.filter((k) => shardOf(k, SHARDS) === shard).length);
      }
    }
  }, 120_000);
});
