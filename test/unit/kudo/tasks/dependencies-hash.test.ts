// kudo.dev/dependencies-hash: which ConfigMaps/Secrets a pod template depends on, in which
// order, where each digest comes from (same task, inventory, live object with KUDO's
// last-applied form) and how digests combine. The serialisation itself is compared with
// go-yaml in test/gotemplate/yaml-differential.test.ts.
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import type { ApplyObject } from '../../../../src/kube/apply.ts';
import {
  ANNOTATION_LAST_APPLIED,
  ANNOTATION_SKIP_HASH,
  ZERO_DIGEST,
  combineDigests,
  dependenciesHash,
  dependencyKey,
  goYamlKeyLess,
  hashSourceText,
  objectDigest,
  podTemplateDependencies,
  type Dependency,
  type DigestSources,
} from '../../../../src/kudo/tasks/dependencies-hash/index.ts';

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

const configMap = (
  name: string,
  data: Record<string, string>,
  extra: object = {},
): ApplyObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', labels: { heritage: 'kudo' }, ...extra },
  data,
});

const template = {
  metadata: { labels: { app: 'x' } },
  spec: {
    imagePullSecrets: [{ name: 'pull' }],
    volumes: [
      { name: 'a', configMap: { name: 'zeta' } },
      { name: 'b', secret: { secretName: 'creds' } },
      { name: 'c', configMap: { name: 'alpha' } },
      { name: 'd', configMap: { name: 'alpha' } },
      { name: 'e', emptyDir: {} },
      { name: 'f', projected: { sources: [{ configMap: { name: 'ignored' } }] } },
    ],
    containers: [{ name: 'c', envFrom: [{ configMapRef: { name: 'ignored-too' } }] }],
  },
};

function sources(
  inTask: ApplyObject[],
  recorded: Record<string, string>,
  live: Record<string, ApplyObject>,
  asked: string[] = [],
): DigestSources {
  return {
    inTask: new Map(
      inTask.map((o) => [
        dependencyKey({
          kind: o.kind as Dependency['kind'],
          namespace: 'ns',
          name: o.metadata?.name ?? '',
        }),
        o,
      ]),
    ),
    recorded: (d) => recorded[dependencyKey(d)],
    live: (d) => {
      asked.push(dependencyKey(d));
      return Promise.resolve(live[dependencyKey(d)]);
    },
  };
}

describe('dependencies of a pod template', () => {
  it('are image pull secrets and configMap/secret volumes, each once, ConfigMaps first, by name', () => {
    expect(podTemplateDependencies(template, 'ns')).toEqual([
      { kind: 'ConfigMap', namespace: 'ns', name: 'alpha' },
      { kind: 'ConfigMap', namespace: 'ns', name: 'zeta' },
      { kind: 'Secret', namespace: 'ns', name: 'creds' },
      { kind: 'Secret', namespace: 'ns', name: 'pull' },
    ]);
  });

  it('are none for a template without such volumes (no annotation is written)', async () => {
    const noDeps = { spec: { volumes: [{ name: 'e', emptyDir: {} }], containers: [] } };
    expect(podTemplateDependencies(noDeps, 'ns')).toEqual([]);
    expect(
      await dependenciesHash(noDeps, 'ns', sources([], {}, {}), new AbortController().signal),
    ).toBeUndefined();
  });
});

describe('digests', () => {
  it('cover the cleaned object: namespace, server fields and annotations do not count, labels and data do', () => {
    const a = configMap('c', { k: 'v' });
    const b = configMap(
      'c',
      { k: 'v' },
      { uid: 'u', resourceVersion: '7', annotations: { x: 'y' } },
    );
    expect(objectDigest(b)).toBe(objectDigest(a));
    expect(objectDigest({ ...a, metadata: { ...a.metadata, namespace: 'other' } })).toBe(
      objectDigest(a),
    );
    expect(objectDigest(configMap('c', { k: 'w' }))).not.toBe(objectDigest(a));
    expect(objectDigest({ ...a, metadata: { ...a.metadata, labels: { heritage: 'x' } } })).not.toBe(
      objectDigest(a),
    );
    expect(objectDigest(a)).toBe(md5(hashSourceText(a)));
  });

  it('are zero for a source that asks to be skipped', () => {
    expect(
      objectDigest(configMap('c', { k: 'v' }, { annotations: { [ANNOTATION_SKIP_HASH]: '' } })),
    ).toBe(ZERO_DIGEST);
  });

  it('combine as the MD5 of the concatenated 16-byte digests', () => {
    const d1 = md5('one');
    const d2 = md5('two');
    const expected = createHash('md5')
      .update(Buffer.concat([Buffer.from(d1, 'hex'), Buffer.from(d2, 'hex')]))
      .digest('hex');
    expect(combineDigests([d1, d2])).toBe(expected);
    expect(combineDigests([d2, d1])).not.toBe(expected);
  });
});

describe('where each digest comes from', () => {
  const signal = new AbortController().signal;

  it('the same task first, then the inventory, then the live object (KUDO’s last-applied form), missing = zeros', async () => {
    const alpha = configMap('alpha', { in: 'task' });
    const liveZeta = configMap('zeta', { live: 'value' }, { uid: 'u' });
    const applied = configMap('creds', { as: 'applied' });
    const liveCreds: ApplyObject = {
      ...configMap('creds', { server: 'defaulted' }),
      kind: 'Secret',
      metadata: {
        name: 'creds',
        annotations: { [ANNOTATION_LAST_APPLIED]: JSON.stringify({ ...applied, kind: 'Secret' }) },
      },
    };
    const asked: string[] = [];
    const hash = await dependenciesHash(
      template,
      'ns',
      sources(
        [alpha],
        {
          'ConfigMap/ns/alpha': md5('never used: same task wins'),
          'Secret/ns/pull': md5('recorded'),
        },
        {
          'ConfigMap/ns/alpha': configMap('alpha', { never: 'used' }),
          'ConfigMap/ns/zeta': liveZeta,
          'Secret/ns/creds': liveCreds,
        },
        asked,
      ),
      signal,
    );
    expect(asked.sort()).toEqual(['ConfigMap/ns/zeta', 'Secret/ns/creds']);
    expect(hash).toBe(
      combineDigests([
        objectDigest(alpha),
        objectDigest(liveZeta),
        objectDigest({ ...applied, kind: 'Secret' }),
        md5('recorded'),
      ]),
    );
    const missing = await dependenciesHash(template, 'ns', sources([alpha], {}, {}), signal);
    expect(missing).toBe(
      combineDigests([objectDigest(alpha), ZERO_DIGEST, ZERO_DIGEST, ZERO_DIGEST]),
    );
  });

  it('a live object annotated to be skipped counts as zeros', async () => {
    const one = { spec: { volumes: [{ name: 'a', configMap: { name: 'zeta' } }] } };
    const live = configMap('zeta', { k: 'v' }, { annotations: { [ANNOTATION_SKIP_HASH]: 'true' } });
    expect(
      await dependenciesHash(one, 'ns', sources([], {}, { 'ConfigMap/ns/zeta': live }), signal),
    ).toBe(combineDigests([ZERO_DIGEST]));
  });
});

describe("go-yaml's key order on ASCII", () => {
  // The comparison answers ASCII letters and digits without Unicode regular expressions; it
  // must agree with go-yaml's definitions (unicode.IsLetter, unicode.IsDigit) for every
  // printable ASCII character: a letter sorts after a non-letter, two letters by code point,
  // digit runs as numbers.
  const letter = /\p{L}/u;
  const digit = /\p{Nd}/u;
  const ascii = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));

  it('puts letters after every non-letter and orders two letters by code point', () => {
    for (const a of ascii) {
      for (const b of ascii) {
        if (a === b || digit.test(a) || digit.test(b)) continue;
        const al = letter.test(a);
        const bl = letter.test(b);
        const want = al && bl ? a < b : al || bl ? bl : a < b;
        expect([a, b, goYamlKeyLess(`k${a}`, `k${b}`)]).toEqual([a, b, want]);
      }
    }
  });

  it('compares digit runs as numbers, and only digits make a run', () => {
    expect(goYamlKeyLess('a9', 'a10')).toBe(true);
    expect(goYamlKeyLess('a10', 'a9')).toBe(false);
    // '/' and ':' border the digits and are no digits: as a run they would count 10 and -1.
    expect(goYamlKeyLess('a:', 'a9')).toBe(true);
    expect(goYamlKeyLess('a/', 'a:')).toBe(true);
    expect(goYamlKeyLess('a:', 'a/')).toBe(false);
    for (const d of ascii.filter((c) => digit.test(c)))
      expect(goYamlKeyLess(`x${d}`, 'xa')).toBe(true);
  });
});
