// The resource manager on the real apiserver: each apply says what it did (created,
// configured, unchanged) and writes only what differs; `createOnly` objects are never written
// once they exist; deletions say deleted, absent, skipped or abandoned, and an abandoned
// object keeps everything but its owner reference.
import { describe, expect, it } from '@jest/globals';
import {
  ApiError,
  ApplyError,
  CrdNotEstablishedError,
  ResourceManager,
  crdEstablished,
  ResourceMapper,
  applyStages,
  type ApplyObject,
} from '../../../src/kube/index.ts';
import { recordedCluster } from './recorded-cluster.ts';

describe('ResourceManager (real apiserver)', () => {
  const kube = recordedCluster('resource-manager');
  const { client, methods, live } = kube;
  const resources = new ResourceManager({
    client: kube.recorded,
    mapper: new ResourceMapper(client),
    fieldManager: 'planwright',
  });

  const configMap = (name: string, data: Record<string, string>, meta = {}): ApplyObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: kube.ns, ...meta },
    data,
  });

  it('says created, unchanged, configured; writes only what differs', async () => {
    methods.length = 0;
    const set = await resources.applyAll([
      { desired: configMap('a', { k: '1' }), known: false },
      { desired: configMap('b', { k: '1' }), known: false },
    ]);
    expect(set.entries.map((e) => [e.subject, e.action])).toEqual([
      [`ConfigMap ${kube.ns}/a`, 'created'],
      [`ConfigMap ${kube.ns}/b`, 'created'],
    ]);
    expect(methods).toEqual(['POST', 'POST']);

    methods.length = 0;
    const again = await resources.applyAll([
      { desired: configMap('a', { k: '1' }), known: true },
      { desired: configMap('b', { k: '2' }), known: true },
    ]);
    expect(again.entries.map((e) => e.action)).toEqual(['unchanged', 'configured']);
    // A GET each; one apply, for the object that differs.
    expect([...methods].sort()).toEqual(['GET', 'GET', 'PATCH']);
    expect((await live('b'))['data']).toEqual({ k: '2' });
  });

  it('a cached copy that holds what we want saves the GET; one that differs does not count', async () => {
    await resources.apply({ desired: configMap('c', { k: '1' }), known: false });
    const current = await live('c');
    methods.length = 0;
    const same = await resources.apply({
      desired: configMap('c', { k: '1' }),
      known: true,
      cached: () => Promise.resolve(current),
    });
    expect(same.action).toBe('unchanged');
    expect(methods).toEqual([]);

    // A stale copy (it says k=0): the GET decides, and the live object already holds k=1.
    const stale = { ...current, data: { k: '0' } };
    const decided = await resources.apply({
      desired: configMap('c', { k: '1' }),
      known: true,
      cached: () => Promise.resolve(stale),
    });
    expect(decided.action).toBe('unchanged');
    expect(methods).toEqual(['GET']);
  });

  it('a createOnly object is made when absent and never written again', async () => {
    const first = await resources.apply({
      desired: configMap('once', { k: '1' }),
      known: false,
      createOnly: true,
    });
    expect(first.action).toBe('created');
    methods.length = 0;
    const second = await resources.apply({
      desired: configMap('once', { k: '2' }),
      known: true,
      createOnly: true,
    });
    expect(second.action).toBe('unchanged');
    expect(methods).toEqual(['GET']);
    expect((await live('once'))['data']).toEqual({ k: '1' });
  });

  it('an object not known that exists is shown to `existing` first; a refusal leaves it unwritten', async () => {
    await client.request({
      method: 'POST',
      path: `/api/v1/namespaces/${kube.ns}/configmaps`,
      query: { fieldManager: 'someone' },
      body: configMap('theirs', { k: 'theirs' }),
    });
    // A Service is not made by a create: the look comes before any write.
    const seen: string[] = [];
    const refused = await resources
      .apply({
        desired: { ...configMap('theirs', { k: 'ours' }), binaryData: null },
        known: false,
        existing: (found) => {
          seen.push(String(found.metadata?.name));
          throw new Error('not ours');
        },
      })
      .catch((e: unknown) => e);
    expect(refused).toEqual(new Error('not ours'));
    expect(seen).toEqual(['theirs']);
    expect((await live('theirs'))['data']).toEqual({ k: 'theirs' });

    const taken = await resources.apply({
      desired: { ...configMap('theirs', { k: 'ours' }), binaryData: null },
      known: false,
      existing: () => undefined,
    });
    expect(taken.action).toBe('configured');
    expect((await live('theirs'))['data']).toEqual({ k: 'ours' });
  });

  it('deletes, reports absent, skips what `skip` claims, abandons by owner uid', async () => {
    await resources.apply({ desired: configMap('gone', { k: '1' }), known: false });
    const deleted = await resources.delete({ object: configMap('gone', {}) });
    expect(deleted.action).toBe('deleted');
    await expect(live('gone')).rejects.toMatchObject({ statusCode: 404 });
    expect((await resources.delete({ object: configMap('gone', {}) })).action).toBe('absent');

    await resources.apply({ desired: configMap('kept', { k: '1' }), known: false });
    const skipped = await resources.delete({ object: configMap('kept', {}), skip: () => true });
    expect(skipped.action).toBe('skipped');
    expect((await live('kept'))['data']).toEqual({ k: '1' });

    // The owner reference names the namespace's own ConfigMap "owner" (a real object, so the
    // garbage collector has nothing to do), by uid.
    const owner = await resources.apply({ desired: configMap('owner', {}), known: false });
    const uid = String(owner.object.metadata?.['uid']);
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid };
    await resources.apply({
      desired: configMap('abandoned', { k: '1' }, { ownerReferences: [ref] }),
      known: false,
    });
    const abandoned = await resources.delete({
      object: configMap('abandoned', {}),
      abandonOwner: uid,
    });
    expect(abandoned.action).toBe('abandoned');
    const after = await live('abandoned');
    expect(after['data']).toEqual({ k: '1' });
    expect(after.metadata?.['ownerReferences']).toBeUndefined();
  });

  it('applyAll applies stage by stage, one after another; a failure names its object', async () => {
    methods.length = 0;
    const heard: string[] = [];
    const set = await resources.applyAll(
      [
        { desired: configMap('staged-a', { k: '1' }), known: false },
        { desired: configMap('staged-b', { k: '1' }), known: false },
      ],
      { onApplied: (e) => heard.push(`${e.subject} ${e.action}`) },
    );
    expect(heard).toEqual([
      `ConfigMap ${kube.ns}/staged-a created`,
      `ConfigMap ${kube.ns}/staged-b created`,
    ]);
    expect(set.entries.map((e) => e.action)).toEqual(['created', 'created']);
    expect(methods).toEqual(['POST', 'POST']);

    const bad = { ...configMap('staged-bad', {}), data: { 'not a key!': 'x' } };
    const err = await resources
      .applyAll([
        { desired: configMap('staged-c', { k: '1' }), known: false },
        { desired: bad, known: false },
      ])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplyError);
    expect((err as ApplyError).subject).toBe(`ConfigMap ${kube.ns}/staged-bad`);
    expect((err as ApplyError).cause).toBeInstanceOf(ApiError);
    // What came before it stays applied.
    expect((await live('staged-c'))['data']).toEqual({ k: '1' });
  });

  it('reapply writes without a look; a deletion given the live object makes no GET', async () => {
    await resources.apply({ desired: configMap('re', { k: '1' }), known: false });
    // Made by a create: the first apply over it hands the fields over (PATCHes only, no GET).
    await resources.reapply(configMap('re', { k: '2' }));
    methods.length = 0;
    const entry = await resources.reapply(configMap('re', { k: '3' }));
    expect(entry.action).toBe('configured');
    expect(methods).toEqual(['PATCH']);
    expect((await live('re'))['data']).toEqual({ k: '3' });

    const current = await live('re');
    methods.length = 0;
    const deleted = await resources.delete({ object: configMap('re', {}), live: current });
    expect(deleted.action).toBe('deleted');
    expect(methods).toEqual(['DELETE']);
  });

  it('waits until a CRD is Established and served; names the CRD that is not', async () => {
    const group = `${kube.ns}.example.com`;
    const crd: ApplyObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        ],
      },
    };
    try {
      await resources.applyAll([{ desired: crd, known: false }]);
      await resources.waitEstablished([`widgets.${group}`], { served: true });
      const stored = await resources.get(crd);
      expect(stored && crdEstablished(stored)).toBe(true);
      // The kind is served: a list of it answers.
      await client.request({ path: `/apis/${group}/v1/widgets` });

      const missing = await resources
        .waitEstablished([`gadgets.${group}`], { timeoutMs: 300, intervalMs: 50 })
        .catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(CrdNotEstablishedError);
      expect((missing as CrdNotEstablishedError).crd).toBe(`gadgets.${group}`);
    } finally {
      await resources.delete({ object: crd });
    }
  });

  it('a webhook configuration moved between a service and a URL is replaced, annotations and all', async () => {
    const name = `rm-switch-${kube.ns}`;
    const config = (
      clientConfig: Record<string, unknown>,
      annotations: Record<string, string>,
    ): ApplyObject => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name, labels: { app: 'rm-test' }, annotations },
      webhooks: [
        {
          name: 'check.rm-test.example.com',
          clientConfig,
          // Nothing is served under this group: the webhook is never called.
          rules: [
            {
              apiGroups: ['rm-test.example.com'],
              apiVersions: ['v1'],
              operations: ['CREATE'],
              resources: ['widgets'],
            },
          ],
          failurePolicy: 'Ignore',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    });
    const ref = config({}, {});
    try {
      await resources.apply({
        desired: config(
          { service: { namespace: 'elsewhere', name: 'svc', path: '/validate' } },
          { 'example.com/installation': 'elsewhere' },
        ),
        known: false,
      });
      // Server-side apply could not drop the service half another write set: a merge patch
      // replaces the webhooks, and says whose registration it is now.
      const moved = await resources.apply({
        desired: config(
          { url: 'https://127.0.0.1:1/validate' },
          { 'example.com/installation': 'here' },
        ),
        known: true,
      });
      expect(moved.action).toBe('configured');
      const stored = await resources.get(ref);
      const webhooks = stored?.['webhooks'] as Array<{ clientConfig: Record<string, unknown> }>;
      expect(webhooks.map((w) => Object.keys(w.clientConfig).sort())).toEqual([['url']]);
      expect(stored?.metadata?.annotations?.['example.com/installation']).toBe('here');
      expect(stored?.metadata?.labels?.['app']).toBe('rm-test');
    } finally {
      await resources.delete({ object: ref });
    }
  });

  it('a kind nothing serves is absent to a deletion; the apply gets the mapper’s error', async () => {
    const ghost = {
      apiVersion: 'example.com/v1',
      kind: 'Ghost',
      metadata: { name: 'g', namespace: kube.ns },
    };
    expect((await resources.delete({ object: ghost })).action).toBe('absent');
    const err = await resources.apply({ desired: ghost, known: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(ApiError);
  });
});

describe('applyStages', () => {
  it('CRDs and Namespaces first, webhook configurations last, order kept within a stage', () => {
    const o = (kind: string, name: string): ApplyObject => ({ kind, metadata: { name } });
    const stages = applyStages(
      [
        o('ConfigMap', 'c1'),
        o('ValidatingWebhookConfiguration', 'w'),
        o('Namespace', 'n'),
        o('Deployment', 'd'),
        o('CustomResourceDefinition', 'crd'),
      ],
      (x) => x,
    );
    expect(stages.map((s) => s.map((x) => x.metadata?.name))).toEqual([
      ['n', 'crd'],
      ['c1', 'd'],
      ['w'],
    ]);
    expect(applyStages([o('ConfigMap', 'only')], (x) => x)).toHaveLength(1);
  });
});
