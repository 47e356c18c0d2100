// Kind resolution against a scripted discovery server, counting requests: kinds nothing serves
// are remembered as unknown for a while (bounded), so many objects of made-up kinds cost a
// bounded number of discovery requests; a kind a CustomResourceDefinition declares is asked
// afresh at once.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, ResourceMapper, resolveKind } from '../../../src/kube/index.ts';
import { ExpiringCache } from '../../../src/kube/expiring-cache.ts';

/** What the scripted server serves: group/version → resources, and the CRDs. */
interface Served {
  groups: Record<string, Array<{ name: string; kind: string }>>;
  crds: Array<{ group: string; kind: string; version: string }>;
}

describe('resolveKind remembers what it did not find', () => {
  let server: Server;
  let client: KubeClient;
  let served: Served;
  let requests: string[];
  let clock: number;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      requests.push(path);
      const json = (body: unknown): void => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (path === '/apis/apiextensions.k8s.io/v1/customresourcedefinitions') {
        return json({
          items: served.crds.map((c) => ({
            metadata: { name: `${c.kind.toLowerCase()}s.${c.group}` },
            spec: {
              group: c.group,
              names: { kind: c.kind },
              versions: [{ name: c.version, served: true }],
            },
            status: { conditions: [{ type: 'Established', status: 'True' }] },
          })),
        });
      }
      const gv = /^\/apis\/([^/]+)\/([^/]+)$/.exec(path);
      const resources = gv ? served.groups[`${gv[1]}/${gv[2]}`] : undefined;
      if (resources) {
        return json({ resources: resources.map((r) => ({ ...r, namespaced: true })) });
      }
      const group = /^\/apis\/([^/]+)$/.exec(path);
      const versions = Object.keys(served.groups)
        .filter((k) => k.startsWith(`${group?.[1]}/`))
        .map((k) => ({ version: k.split('/')[1] }));
      if (group && versions.length > 0) return json({ versions });
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound', message: 'not found' }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        {
          name: 'c',
          server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          skipTLSVerify: true,
        },
      ],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    client = new KubeClient(kc);
  });

  afterAll(async () => {
    client.close();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    served = { groups: { 'apps.example.io/v1': [{ name: 'widgets', kind: 'Widget' }] }, crds: [] };
    requests = [];
    clock = 0;
  });

  const mapper = (): ResourceMapper =>
    new ResourceMapper(client, { unknownTtlMs: 10_000, maxUnknown: 1_024, now: () => clock });

  it('many objects of one made-up kind: one lookup, remembered until it expires', async () => {
    const m = mapper();
    for (let i = 0; i < 50; i++) {
      expect(await resolveKind(m, client, 'made.up.io/v1', 'Thing')).toEqual({
        state: 'unserved',
        served: [],
      });
    }
    // The group/version, the CRD list, the group's versions: once each.
    expect(requests).toEqual([
      '/apis/made.up.io/v1',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      '/apis/made.up.io',
    ]);
    clock += 10_001;
    await resolveKind(m, client, 'made.up.io/v1', 'Thing');
    expect(requests).toHaveLength(6);
  });

  it('many made-up kinds of one group, or of a served group/version: bounded too', async () => {
    const m = mapper();
    for (let i = 0; i < 50; i++) await resolveKind(m, client, 'made.up.io/v1', `Thing${i}`);
    for (let i = 0; i < 50; i++) await resolveKind(m, client, 'apps.example.io/v1', `Gadget${i}`);
    // Each group/version and group once, and the CRD list once, whatever the number of kinds.
    expect(requests).toEqual([
      '/apis/made.up.io/v1',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      '/apis/made.up.io',
      '/apis/apps.example.io/v1',
      '/apis/apps.example.io',
    ]);
  });

  it('a kind a CRD declares is asked afresh at once, not answered from what was remembered', async () => {
    const m = mapper();
    expect((await resolveKind(m, client, 'apps.example.io/v1', 'Gizmo')).state).toBe('unserved');
    // A CRD for it is applied through this mapper's clients: remembered unknowns are forgotten.
    served.crds.push({ group: 'apps.example.io', kind: 'Gizmo', version: 'v1' });
    m.forgetUnknown();
    expect((await resolveKind(m, client, 'apps.example.io/v1', 'Gizmo')).state).toBe('pending');
    served.groups['apps.example.io/v1']?.push({ name: 'gizmos', kind: 'Gizmo' });
    const now = await resolveKind(m, client, 'apps.example.io/v1', 'Gizmo');
    expect(now).toMatchObject({ state: 'served', mapping: { plural: 'gizmos' } });
  });

  it('a served kind is found as before, and stays known', async () => {
    const m = mapper();
    const first = await resolveKind(m, client, 'apps.example.io/v1', 'Widget');
    expect(first).toMatchObject({ state: 'served', mapping: { plural: 'widgets' } });
    await resolveKind(m, client, 'apps.example.io/v1', 'Widget');
    expect(requests).toEqual(['/apis/apps.example.io/v1']);
  });
});

describe('ExpiringCache', () => {
  it('forgets entries after their time and the oldest beyond its capacity', () => {
    let now = 0;
    const cache = new ExpiringCache<number>(100, 3, () => now);
    for (let i = 0; i < 10; i++) cache.set(`k${i}`, i);
    expect(cache.size).toBe(3);
    expect([cache.get('k6'), cache.get('k7'), cache.get('k9')]).toEqual([undefined, 7, 9]);
    now = 100;
    expect(cache.get('k9')).toBeUndefined();
    expect(cache.has('k8')).toBe(false);
  });
});
