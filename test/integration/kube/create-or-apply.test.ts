// ResourceManager.createOrApply on the real apiserver: an object made by a create (POST with the
// field manager) must afterwards behave as if it had been applied — a field a later apply no
// longer sets is removed — and an object a create cannot make as an apply would is applied.
import { describe, expect, it } from '@jest/globals';
import { ServerSideApply, type ApplyObject } from '../../../src/kube/apply.ts';
import { ResourceManager } from '../../../src/kube/resource-manager.ts';
import { ApiError, ResourceMapper } from '../../../src/kube/index.ts';
import { recordedCluster } from './recorded-cluster.ts';

interface Entry {
  manager: string;
  operation: string;
  subresource?: string;
}

const owners = (obj: ApplyObject): string[] =>
  ((obj.metadata?.['managedFields'] as Entry[] | undefined) ?? []).map(
    (e) => `${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`,
  );

describe('ResourceManager.createOrApply (real apiserver)', () => {
  const kube = recordedCluster('create-or-apply');
  const { client, methods, live } = kube;
  const ssa = new ServerSideApply({
    client: kube.recorded,
    mapper: new ResourceMapper(client),
    fieldManager: 'planwright',
  });
  const resources = new ResourceManager(ssa);
  const createOrApply = async (obj: ApplyObject): Promise<ApplyObject> =>
    (await resources.createOrApply(obj)).object;

  const configMap = (name: string, data: Record<string, string>, extra = {}): ApplyObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: kube.ns, labels: { app: 'x' } },
    data,
    ...extra,
  });

  it('creates a ConfigMap with one POST; a later apply that drops a key removes it', async () => {
    methods.length = 0;
    const created = await createOrApply(configMap('drop', { a: '1', b: '2', c: '3' }));
    expect(methods).toEqual(['POST']);
    expect(owners(created)).toEqual(['planwright/Update']);

    // Same keys, one value changed: every field stays co-owned, one apply request.
    methods.length = 0;
    await ssa.apply(configMap('drop', { a: '1', b: '2', c: '4' }));
    expect(methods).toEqual(['PATCH']);

    // b dropped: its ownership moves to the Apply entry and a second apply removes it.
    methods.length = 0;
    const applied = await ssa.apply(configMap('drop', { a: '1', c: '4' }));
    expect(methods).toEqual(['PATCH', 'PATCH', 'PATCH']);
    expect(applied['data']).toEqual({ a: '1', c: '4' });
    expect(owners(applied)).toEqual(['planwright/Apply']);
    expect((await live('drop'))['data']).toEqual({ a: '1', c: '4' });

    // From now on a drop is one apply, as for an object applied from the start.
    methods.length = 0;
    const again = await ssa.apply(configMap('drop', { c: '4' }));
    expect(methods).toEqual(['PATCH']);
    expect(again['data']).toEqual({ c: '4' });
  });

  it('an apply over the object as read hands ownership over first, only when it drops a field', async () => {
    await createOrApply(configMap('read', { a: '1', b: '2' }));
    // Every field kept: one apply; the Update entry stays, co-owning.
    methods.length = 0;
    const kept = await ssa.apply(configMap('read', { a: '1', b: '3' }), {
      live: await live('read'),
    });
    expect(methods).toEqual(['PATCH']);
    expect(owners(kept).sort()).toEqual(['planwright/Apply', 'planwright/Update']);
    // A dropped label and key: hand over, then one apply that removes them.
    methods.length = 0;
    const dropped = await ssa.apply(
      { ...configMap('read', { b: '3' }), metadata: { name: 'read', namespace: kube.ns } },
      { live: await live('read') },
    );
    expect(methods).toEqual(['PATCH', 'PATCH']);
    expect(dropped['data']).toEqual({ b: '3' });
    expect(dropped.metadata?.labels).toBeUndefined();
    expect(owners(dropped)).toEqual(['planwright/Apply']);
  });

  it('what another manager set survives; what only we set goes', async () => {
    await createOrApply(configMap('shared', { a: '1' }));
    await client.request({
      method: 'PATCH',
      path: `/api/v1/namespaces/${kube.ns}/configmaps/shared`,
      query: { fieldManager: 'someone' },
      contentType: 'application/merge-patch+json',
      body: { data: { theirs: 'y' } },
    });
    const applied = await ssa.apply({
      ...configMap('shared', { a: '2' }),
      metadata: { name: 'shared', namespace: kube.ns },
    });
    expect(applied.metadata?.labels?.['app']).toBeUndefined();
    expect(applied['data']).toEqual({ a: '2', theirs: 'y' });
    expect(owners(applied).sort()).toEqual(['planwright/Apply', 'someone/Update']);
  });

  it('another owner takes a created object over: its controller reference replaces the first', async () => {
    const owned = (uid: string): ApplyObject =>
      configMap(
        'taken',
        { a: uid },
        {
          metadata: {
            name: 'taken',
            namespace: kube.ns,
            ownerReferences: [
              { apiVersion: 'v1', kind: 'ConfigMap', name: `owner-${uid}`, uid, controller: true },
            ],
          },
        },
      );
    await createOrApply(owned('11111111-1111-1111-1111-111111111111'));
    methods.length = 0;
    const taken = await createOrApply(owned('22222222-2222-2222-2222-222222222222'));
    // The create is answered 409, the apply 422 (two controller references): ownership is
    // handed over and the apply tried again.
    expect(methods).toEqual(['POST', 'PATCH', 'GET', 'PATCH', 'PATCH']);
    expect(taken.metadata?.['ownerReferences']).toEqual([
      expect.objectContaining({ uid: '22222222-2222-2222-2222-222222222222' }),
    ]);
    expect(owners(taken)).toEqual(['planwright/Apply']);
  });

  it('an object that exists already is applied over (the create is answered 409)', async () => {
    await ssa.apply(configMap('exists', { a: '1' }));
    methods.length = 0;
    const out = await createOrApply(configMap('exists', { a: '2' }));
    expect(methods).toEqual(['POST', 'PATCH']);
    expect(out['data']).toEqual({ a: '2' });
    expect(owners(out)).toEqual(['planwright/Apply']);
  });

  it('a body the create refuses gets the apply’s own answer', async () => {
    methods.length = 0;
    const err = await createOrApply(configMap('unknown', { a: '1' }, { bogus: true })).catch(
      (e: unknown) => e,
    );
    expect(methods).toEqual(['POST', 'PATCH']);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toMatch(/bogus: field not declared in schema/);
    await expect(live('unknown')).rejects.toMatchObject({ statusCode: 404 });
  });

  it('objects a create would store differently are applied: nulls, other kinds', async () => {
    methods.length = 0;
    const withNull = await createOrApply({
      ...configMap('nulls', { a: '1' }),
      binaryData: null,
    });
    expect(methods).toEqual(['PATCH']);
    expect(owners(withNull)).toEqual(['planwright/Apply']);

    methods.length = 0;
    const service = await createOrApply({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc', namespace: kube.ns },
      spec: { ports: [{ port: 80 }] },
    });
    expect(methods).toEqual(['PATCH']);
    expect(owners(service)).toContain('planwright/Apply');
  });

  it('a Secret with data is created; with stringData it is applied', async () => {
    methods.length = 0;
    await createOrApply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'plain', namespace: kube.ns },
      data: { k: Buffer.from('v').toString('base64') },
    });
    await createOrApply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'string', namespace: kube.ns },
      stringData: { k: 'v' },
    });
    expect(methods).toEqual(['POST', 'PATCH']);
  });
});
