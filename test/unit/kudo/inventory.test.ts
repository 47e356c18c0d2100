// Inventory records (cluster, task, digest, policy), per-object policy annotations, digests
// and drift baselines: pure logic under prune, keep/once and drift.
import { describe, expect, it } from '@jest/globals';
import type { ApplyObject } from '../../../src/kube/apply.ts';
import {
  PolicyAnnotationError,
  digestOf,
  driftBaseline,
  driftedFields,
  DriftShapes,
  entryOf,
  fingerprint,
  extractPolicy,
  inventoryKey,
  mergeInventory,
  readInventory,
} from '../../../src/kudo/inventory/index.ts';

const cm = (
  data: Record<string, string>,
  annotations: Record<string, string> = {},
): ApplyObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'ns', annotations },
  data,
});

describe('inventory entries', () => {
  it('carry the cluster in their identity, and round-trip through status', () => {
    const local = entryOf(cm({}), { task: 'app', contentDigest: 'd1' });
    const remote = entryOf(cm({}), { cluster: 'secret:ns/t/value', task: 'app', policy: 'keep' });
    expect(inventoryKey(local)).toBe('/ConfigMap/ns/c');
    expect(inventoryKey(remote)).toBe('secret:ns/t/value|/ConfigMap/ns/c');
    const raw = JSON.parse(JSON.stringify([local, remote])) as Array<Record<string, unknown>>;
    expect(readInventory(raw)).toEqual([local, remote]);
    expect(readInventory([{ ...raw[0], policy: 'sometimes' }])[0]?.policy).toBeUndefined();
  });

  it('merge updates task and digest in place, and never erases them with a bare entry', () => {
    const a = entryOf(cm({}), { task: 'app', contentDigest: 'd1' });
    const moved = mergeInventory([a], [entryOf(cm({}), { task: 'other', contentDigest: 'd2' })]);
    expect(moved).toEqual({
      entries: [{ ...a, task: 'other', contentDigest: 'd2' }],
      changed: true,
    });
    const bare = mergeInventory([a], [entryOf(cm({}))]);
    expect(bare).toEqual({ entries: [a], changed: false });
  });
});

describe('policy annotations', () => {
  it('are read and stripped', () => {
    const keep = extractPolicy(cm({}, { 'planwright.dev/gc': 'keep', x: 'y' }), 'ConfigMap ns/c');
    expect(keep.policy).toBe('keep');
    expect(keep.object.metadata?.annotations).toEqual({ x: 'y' });
    expect(extractPolicy(cm({}, { 'planwright.dev/apply': 'once' }), 'c').policy).toBe('once');
    const none = cm({});
    expect(extractPolicy(none, 'c')).toEqual({ object: none });
  });

  it('refuse unknown values and both at once', () => {
    expect(() => extractPolicy(cm({}, { 'planwright.dev/gc': 'never' }), 'ConfigMap ns/c')).toThrow(
      'ConfigMap ns/c: annotation planwright.dev/gc is "never"; the only value is "keep"',
    );
    expect(() => extractPolicy(cm({}, { 'planwright.dev/apply': 'twice' }), 'c')).toThrow(
      PolicyAnnotationError,
    );
    expect(() =>
      extractPolicy(cm({}, { 'planwright.dev/apply': 'once', 'planwright.dev/gc': 'keep' }), 'c'),
    ).toThrow('exclude each other');
  });
});

describe('digests', () => {
  it('ignore key order and plan annotations, and see content', () => {
    const a = cm(
      { a: '1', b: '2' },
      { 'kudo.dev/plan': 'deploy', 'kudo.dev/last-plan-execution-uid': 'u1' },
    );
    const b = cm(
      { b: '2', a: '1' },
      { 'kudo.dev/plan': 'update', 'kudo.dev/last-plan-execution-uid': 'u2' },
    );
    expect(digestOf(a)).toBe(digestOf(b));
    expect(digestOf(a)).toMatch(/^[0-9a-f]{16}$/);
    expect(digestOf(cm({ a: '1', b: '3' }))).not.toBe(digestOf(cm({ a: '1', b: '2' })));
  });
});

describe('drift baselines', () => {
  const desired: ApplyObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'd',
      namespace: 'ns',
      labels: { app: 'x' },
      annotations: { 'kudo.dev/plan': 'deploy' },
    },
    spec: {
      replicas: 2,
      template: {
        spec: {
          containers: [{ name: 'c', image: 'nginx:1', resources: { limits: { cpu: '1000m' } } }],
        },
      },
    },
  };
  // What the API server answered: normalised quantity, defaults, status.
  const stored: ApplyObject = {
    ...structuredClone(desired),
    metadata: {
      ...structuredClone(desired.metadata),
      resourceVersion: '5',
      annotations: { 'kudo.dev/plan': 'deploy' },
    },
    spec: {
      replicas: 2,
      strategy: { type: 'RollingUpdate' },
      template: {
        spec: {
          containers: [
            {
              name: 'c',
              image: 'nginx:1',
              resources: { limits: { cpu: '1' } },
              imagePullPolicy: 'IfNotPresent',
            },
          ],
        },
      },
    },
    status: { replicas: 2 },
  };
  const baseline = driftBaseline(desired, stored, 'd1');

  it('see nothing in the stored object, nor in defaults, status or plan annotations', () => {
    expect(driftedFields(baseline, stored)).toEqual([]);
    const other = structuredClone(stored);
    (other['status'] as Record<string, unknown>)['replicas'] = 0;
    other.metadata = { ...other.metadata, annotations: { 'kudo.dev/plan': 'update' } };
    expect(driftedFields(baseline, other)).toEqual([]);
  });

  it('name every field changed from what was applied', () => {
    const edited = structuredClone(stored) as ApplyObject & {
      spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } };
    };
    edited.spec.replicas = 5;
    edited.spec.template.spec.containers[0]!.image = 'nginx:2';
    edited.metadata = { ...edited.metadata, labels: {} };
    expect(driftedFields(baseline, edited)).toEqual([
      'metadata.labels.app',
      'spec.replicas',
      'spec.template.spec.containers[0].image',
    ]);
  });

  it('are compact: shared paths, one number per field, the applied object as JSON text', () => {
    const shapes = new DriftShapes();
    const one = driftBaseline(desired, stored, 'd1', shapes);
    const other = driftBaseline(structuredClone(desired), structuredClone(stored), 'd1', shapes);
    expect(other.shape).toBe(one.shape);
    expect(shapes.size).toBe(1);
    expect(one.shape.paths.length).toBe(one.values.length);
    expect(one.values.every((v) => Number.isSafeInteger(v))).toBe(true);
    expect(JSON.parse(one.desired)).toEqual(desired);
    shapes.release(one.shape);
    expect(shapes.size).toBe(1);
    shapes.release(other.shape);
    expect(shapes.size).toBe(0);
  });

  it('fingerprint values as the API server compares them', () => {
    // Absent, null, empty list and empty map are one value; a type is part of the value.
    expect(new Set([undefined, null, [], {}].map(fingerprint)).size).toBe(1);
    expect(fingerprint(1)).not.toBe(fingerprint('1'));
    expect(fingerprint(true)).not.toBe(fingerprint('true'));
    expect(fingerprint('a')).not.toBe(fingerprint('b'));
    expect(fingerprint('')).not.toBe(fingerprint(undefined));
    expect(fingerprint({ a: 1 })).toBe(fingerprint({ a: 1 }));
  });
});
