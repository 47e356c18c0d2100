// Controllers on the shared control plane: per-key exclusivity and coalescing, retry with
// growing backoff, TerminalError, owner mapping, metrics.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import * as k8s from '@kubernetes/client-node';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { KubeClient } from '../../../src/kube/index.ts';
import { ItemExponentialBackoff } from '../../../src/runtime/backoff.ts';
import { ControllerBuilder, generationChanged } from '../../../src/runtime/builder.ts';
import { Cache } from '../../../src/runtime/cache.ts';
import { CacheRegistry } from '../../../src/runtime/cache-registry.ts';
import { TerminalError } from '../../../src/runtime/errors.ts';
import { RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import type { Controller } from '../../../src/runtime/controller.ts';
import type { KubeObject } from '../../../src/runtime/types.ts';
import { createTestNamespace, kubeConfig } from '../../support/cluster.ts';
import { waitFor } from '../../support/wait.ts';

const CONFIGMAP = { group: '', version: 'v1', kind: 'ConfigMap' };
const SECRET = { group: '', version: 'v1', kind: 'Secret' };

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

describe('controller on a real apiserver', () => {
  const kc = kubeConfig();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const client = new KubeClient(kc);
  const root = new AbortController();
  const logger = pino({ level: 'silent' });
  const registry = new Registry();
  const metrics = new RuntimeMetrics(registry);
  const caches = new CacheRegistry({
    clients: new Map([['local', client]]),
    logger,
    signal: root.signal,
    metrics,
  });
  const running: Promise<void>[] = [];
  let namespace: string;

  const start = (controller: Controller): void => void running.push(controller.start(root.signal));
  const builder = (): ControllerBuilder => new ControllerBuilder({ caches, logger, metrics });
  const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

  beforeAll(async () => {
    namespace = await createTestNamespace('controller');
  });

  afterAll(async () => {
    root.abort();
    await Promise.all(running);
    await caches.stop();
    client.close();
  });

  it('never reconciles one key concurrently, coalesces a burst, and ends on the final state', async () => {
    const name = 'burst';
    const key = `${namespace}/${name}`;
    let inFlight = 0;
    let maxInFlight = 0;
    let calls = 0;
    const seen: string[] = [];
    // The first reconcile holds until every event of the burst has reached the cache: the
    // burst then finds the key in flight whatever the machine's speed, and must coalesce.
    let release!: () => void;
    const burstDelivered = new Promise<void>((resolve) => (release = resolve));
    const controller = builder()
      .named('burst')
      .for(CONFIGMAP)
      .workers(4)
      .complete(async (k) => {
        if (k !== key) return;
        calls += 1;
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        const cm: ConfigMap | undefined = controller.primary.get(k);
        seen.push(cm?.data?.v ?? '');
        if (calls === 1) await burstDelivered;
        await sleep(150);
        inFlight -= 1;
      });
    start(controller);
    await controller.waitForSync(root.signal);
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name }, data: { v: '0' } },
    });
    for (let i = 1; i <= 30; i += 1) {
      await core.patchNamespacedConfigMap(
        { namespace, name, body: { data: { v: String(i) } } },
        mergePatch,
      );
    }
    await waitFor('the cache at the final state', () => {
      const cm: ConfigMap | undefined = controller.primary.get(key);
      return cm?.data?.v === '30';
    });
    release();
    await waitFor(
      'a reconcile that saw the final state',
      () => seen.at(-1) === '30' && inFlight === 0,
    );
    expect(maxInFlight).toBe(1);
    // Coalesced: the 30 updates, queued or in flight, made at most one more reconcile.
    expect(calls).toBeLessThanOrEqual(2);
  });

  it('caches hold no managedFields (listed or watched); an update sent from a cached copy keeps the stored ones', async () => {
    const hasManaged = (o: KubeObject | undefined): boolean =>
      o?.metadata !== undefined && 'managedFields' in o.metadata;
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'mf-listed' }, data: { v: '1' } },
    });
    const cache = new Cache<ConfigMap>({
      client,
      mapping: { ...CONFIGMAP, plural: 'configmaps', namespaced: true },
      logger,
      namespace,
    });
    cache.start(root.signal);
    try {
      await cache.waitForSync(root.signal);
      const listed = cache.get(`${namespace}/mf-listed`);
      expect(listed?.data).toEqual({ v: '1' });
      expect(hasManaged(listed)).toBe(false);
      await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name: 'mf-watched' }, data: { v: '1' } },
      });
      await waitFor(
        'the watched ConfigMap',
        () => cache.get(`${namespace}/mf-watched`) !== undefined,
      );
      const watched = cache.get(`${namespace}/mf-watched`);
      expect(hasManaged(watched)).toBe(false);
      await client.request({
        method: 'PUT',
        path: `/api/v1/namespaces/${namespace}/configmaps/mf-watched`,
        body: { ...watched, data: { v: '2' } },
      });
      const stored = await core.readNamespacedConfigMap({ namespace, name: 'mf-watched' });
      expect(stored.data).toEqual({ v: '2' });
      expect(stored.metadata?.managedFields?.length ?? 0).toBeGreaterThan(0);
    } finally {
      await cache.stop();
    }
  });

  it('retries a throwing reconcile with growing delays, then clears the backoff on success', async () => {
    const key = `${namespace}/flaky`;
    const attempts: number[] = [];
    const controller = builder()
      .named('flaky')
      .for(CONFIGMAP)
      .withBackoff(new ItemExponentialBackoff({ baseMs: 100, maxMs: 10_000 }))
      .complete((k) => {
        if (k !== key) return Promise.resolve();
        attempts.push(performance.now());
        if (attempts.length <= 4)
          return Promise.reject(new Error(`attempt ${attempts.length} fails`));
        return Promise.resolve();
      });
    start(controller);
    await controller.waitForSync(root.signal);
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'flaky' } } });
    await waitFor('fifth attempt succeeds', () => attempts.length >= 5, { timeoutMs: 20_000 });
    const gaps = attempts.slice(1).map((t, i) => t - (attempts[i] ?? 0));
    // Expected 100, 200, 400, 800 ms: each wait is longer than the one before.
    for (let i = 1; i < gaps.length; i += 1) expect(gaps[i]).toBeGreaterThan(gaps[i - 1] ?? 0);
    expect(gaps[0]).toBeGreaterThanOrEqual(90);
    expect(controller.queue.retries(key)).toBe(0);
    const errors = await registry
      .getSingleMetric('controller_runtime_reconcile_errors_total')
      ?.get();
    expect(errors?.values.find((v) => v.labels.controller === 'flaky')?.value).toBe(4);
  });

  it('does not retry a TerminalError', async () => {
    const key = `${namespace}/terminal`;
    const marker = `${namespace}/marker`;
    let terminalCalls = 0;
    let markerSeen = false;
    const controller = builder()
      .named('terminal')
      .for(CONFIGMAP)
      .withBackoff(new ItemExponentialBackoff({ baseMs: 5 }))
      .complete((k) => {
        if (k === key) {
          terminalCalls += 1;
          return Promise.reject(new TerminalError('spec is invalid; fix it'));
        }
        if (k === marker) markerSeen = true;
        return Promise.resolve();
      });
    start(controller);
    await controller.waitForSync(root.signal);
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'terminal' } } });
    await waitFor('terminal reconcile', () => terminalCalls === 1);
    await sleep(500); // a retry with 5 ms backoff would have happened many times by now
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'marker' } } });
    await waitFor('marker reconciled', () => markerSeen);
    expect(terminalCalls).toBe(1);
    expect(controller.queue.retries(key)).toBe(0);
    const terminal = await registry
      .getSingleMetric('controller_runtime_terminal_reconcile_errors_total')
      ?.get();
    expect(terminal?.values.find((v) => v.labels.controller === 'terminal')?.value).toBe(1);
    // The next change to the object reconciles it again.
    await core.patchNamespacedConfigMap(
      { namespace, name: 'terminal', body: { data: { x: '1' } } },
      mergePatch,
    );
    await waitFor('reconciled after a change', () => terminalCalls === 2);
  });

  it('owns(): a change to an owned object reconciles its owner', async () => {
    const owner = await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'owner' } },
    });
    const woken: string[] = [];
    const controller = builder()
      .named('owner')
      .for(SECRET)
      .owns(CONFIGMAP)
      .complete((k) => {
        woken.push(k);
        return Promise.resolve();
      });
    start(controller);
    await controller.waitForSync(root.signal);
    await waitFor('initial reconcile of the owner', () => woken.includes(`${namespace}/owner`));
    woken.length = 0;
    await core.createNamespacedConfigMap({
      namespace,
      body: {
        metadata: {
          name: 'owned',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'Secret', name: 'owner', uid: owner.metadata?.uid ?? '' },
          ],
        },
      },
    });
    await waitFor('owner woken by owned object', () => woken.includes(`${namespace}/owner`));
    const text = await registry.metrics();
    expect(text).toContain(
      'controller_runtime_reconcile_total{controller="owner",result="success"}',
    );
    expect(text).toContain('workqueue_adds_total{name="owner",controller="owner"}');
  });

  it('watches(mapFn) with debounce: a burst on a watched kind becomes one trailing reconcile of the mapped key', async () => {
    const target = `${namespace}/target`;
    const calls: string[] = [];
    const controller = builder()
      .named('debounced')
      .for(SECRET, generationChanged)
      .watches(CONFIGMAP, (cm) =>
        cm.metadata?.labels?.target
          ? [`${cm.metadata.namespace}/${cm.metadata.labels.target}`]
          : [],
      )
      .debounce(1_000)
      .complete((k) => {
        if (k === target) calls.push(k);
        return Promise.resolve();
      });
    start(controller);
    await controller.waitForSync(root.signal);
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'pointer', labels: { target: 'target' } }, data: { v: '0' } },
    });
    for (let i = 1; i <= 10; i += 1) {
      await core.patchNamespacedConfigMap(
        { namespace, name: 'pointer', body: { data: { v: String(i) } } },
        mergePatch,
      );
    }
    await waitFor('debounced reconcile', () => calls.length >= 1);
    await sleep(1_200); // no second, late reconcile
    expect(calls).toEqual([target]);
  });

  it('a cache of named namespaces holds theirs only and keeps each one apart on a relist', async () => {
    const core = kubeConfig().makeApiClient(k8s.CoreV1Api);
    const [second, outside] = await Promise.all([
      createTestNamespace('controller-b'),
      createTestNamespace('controller-c'),
    ]);
    for (const ns of [namespace, second, outside]) {
      await core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: 'scoped' }, data: { v: '1' } },
      });
    }
    const cache = new Cache<ConfigMap>({
      client,
      mapping: { ...CONFIGMAP, plural: 'configmaps', namespaced: true },
      logger,
      namespaces: [namespace, second],
    });
    const deleted: string[] = [];
    cache.subscribe({
      onDelete: (o) => deleted.push(`${o.metadata?.namespace}/${o.metadata?.name}`),
    });
    cache.start(root.signal);
    try {
      await cache.waitForSync(root.signal);
      // Both namespaces' first lists are in before the cache says it synced.
      expect(cache.get(`${namespace}/scoped`)).toBeDefined();
      expect(cache.get(`${second}/scoped`)).toBeDefined();
      expect(cache.get(`${outside}/scoped`)).toBeUndefined();
      expect(cache.relists).toBe(2);
      await core.deleteNamespacedConfigMap({ namespace: second, name: 'scoped' });
      await waitFor('the deletion', () => deleted.includes(`${second}/scoped`));
      expect(cache.get(`${namespace}/scoped`)).toBeDefined();
      await core.createNamespacedConfigMap({
        namespace: outside,
        body: { metadata: { name: 'later' }, data: { v: '1' } },
      });
      await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name: 'later' }, data: { v: '1' } },
      });
      await waitFor('the watched create', () => cache.get(`${namespace}/later`) !== undefined);
      expect(cache.get(`${outside}/later`)).toBeUndefined();
      expect(deleted).toEqual([`${second}/scoped`]);
    } finally {
      await cache.stop();
    }
  });

  it('waits for the sync of a dozen kinds with one abort listener, removed once synced (no MaxListenersExceededWarning)', async () => {
    const kinds = [
      'Secret',
      'ServiceAccount',
      'Service',
      'Pod',
      'Endpoints',
      'Event',
      'LimitRange',
      'ResourceQuota',
      'PersistentVolumeClaim',
      'ReplicationController',
      'PodTemplate',
    ].map((kind) => ({ group: '', version: 'v1', kind }));
    let chain = builder().named('many-kinds').for(CONFIGMAP);
    for (const kind of kinds) chain = chain.watches(kind, () => []);
    const controller = chain.complete(() => Promise.resolve());
    const stop = new AbortController();
    let added = 0;
    const add = stop.signal.addEventListener.bind(stop.signal);
    stop.signal.addEventListener = (...args: Parameters<typeof add>) => {
      if (args[0] === 'abort') added += 1;
      add(...args);
    };
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => void warnings.push(w);
    process.on('warning', onWarning);
    try {
      await Promise.all([controller.waitForSync(stop.signal), controller.waitForSync(stop.signal)]);
      expect(added).toBe(2);
      expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      controller.release();
    }
  });
});
