// CachedObjects: applied objects read from the controller's watch caches. It answers only for
// watched kinds with a synced cache, never with a copy older than our own last write (by
// metadata.generation), and tells whether an object's watch events wake a given Instance.
import { describe, expect, it } from '@jest/globals';
import type { ApplyObject } from '../../../../src/kube/apply.ts';
import type { GroupVersionKind } from '../../../../src/kube/gvk.ts';
import { CachedObjects, type CacheSource } from '../../../../src/kudo/engine/cached-objects.ts';
import type { KubeObject } from '../../../../src/runtime/index.ts';

const DEPLOYMENT: GroupVersionKind = { group: 'apps', version: 'v1', kind: 'Deployment' };

const desired: ApplyObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { namespace: 'ns1', name: 'web' },
};

function cached(generation: number, instance = 'i'): KubeObject {
  return {
    metadata: {
      namespace: 'ns1',
      name: 'web',
      uid: 'u1',
      generation,
      labels: { heritage: 'kudo', 'kudo.dev/instance': instance },
    },
  };
}

function source(objects: Map<string, KubeObject>, synced = true): CacheSource & { gvks: string[] } {
  const gvks: string[] = [];
  return {
    gvks,
    peek: (gvk) => {
      gvks.push(gvk.kind);
      return Promise.resolve(
        gvk.kind === 'Deployment' ? { isSynced: synced, get: (k) => objects.get(k) } : undefined,
      );
    },
  };
}

const wakes = (obj: KubeObject): string[] => {
  const labels = obj.metadata?.labels ?? {};
  return labels['kudo.dev/instance'] ? [`ns1/${labels['kudo.dev/instance']}`] : [];
};

describe('CachedObjects', () => {
  it('answers from a synced cache of a watched kind, with apiVersion and kind', async () => {
    const objects = new Map([['ns1/web', cached(1)]]);
    const reader = new CachedObjects({ caches: source(objects), kinds: [DEPLOYMENT], wakes });
    const got = await reader.read(desired);
    expect(got?.metadata?.['uid']).toBe('u1');
    expect({ apiVersion: got?.apiVersion, kind: got?.kind }).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
    });
  });

  it('cannot answer for a kind not watched, a cache not synced, or an object not seen', async () => {
    const objects = new Map([['ns1/web', cached(1)]]);
    const caches = source(objects);
    const reader = new CachedObjects({ caches, kinds: [DEPLOYMENT], wakes });
    expect(await reader.read({ ...desired, apiVersion: 'apps/v1beta2' })).toBeUndefined();
    expect(await reader.read({ ...desired, kind: 'StatefulSet' })).toBeUndefined();
    expect(caches.gvks).toEqual([]); // unwatched kinds are not even looked up
    expect(
      await reader.read({ ...desired, metadata: { namespace: 'ns1', name: 'other' } }),
    ).toBeUndefined();
    const unsynced = new CachedObjects({
      caches: source(objects, false),
      kinds: [DEPLOYMENT],
      wakes,
    });
    expect(await unsynced.read(desired)).toBeUndefined();
  });

  it('never answers with a copy of an older generation than our last write returned', async () => {
    const objects = new Map([['ns1/web', cached(1)]]);
    const reader = new CachedObjects({ caches: source(objects), kinds: [DEPLOYMENT], wakes });
    reader.wrote({ ...desired, metadata: { ...desired.metadata, uid: 'u1', generation: 2 } });
    expect(await reader.read(desired)).toBeUndefined();
    objects.set('ns1/web', cached(2));
    expect((await reader.read(desired))?.metadata?.['generation']).toBe(2);
    // Another object's write does not hold this one back.
    reader.wrote({ ...desired, metadata: { name: 'x', uid: 'u2', generation: 9 } });
    expect((await reader.read(desired))?.metadata?.['generation']).toBe(2);
  });

  it('says whether a change of the object wakes the Instance', () => {
    const reader = new CachedObjects({ caches: source(new Map()), kinds: [DEPLOYMENT], wakes });
    const live = { ...desired, metadata: cached(1).metadata } as ApplyObject;
    expect(reader.wakes(live, 'ns1/i')).toBe(true);
    expect(reader.wakes(live, 'ns1/other')).toBe(false);
    expect(reader.wakes({ ...live, kind: 'StatefulSet' }, 'ns1/i')).toBe(false);
  });
});
