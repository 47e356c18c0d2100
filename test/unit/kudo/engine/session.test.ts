// StatusSession: inventory written before applying unless the objects are found without it
// (then the pass's closing write carries them), what a failed write leaves unwritten, and the
// cleanup finalizer added before the first record of an object the garbage collector misses.
import { describe, expect, it } from '@jest/globals';
import type { Instance, InstanceStatus } from '../../../../src/kudo/api/types.ts';
import { StatusSession } from '../../../../src/kudo/engine/session.ts';
import type { InventoryEntry } from '../../../../src/kudo/inventory/index.ts';

class FakeWriter {
  readonly written: InstanceStatus[] = [];
  fail = false;
  /** When set, writes wait for it (a request in flight). */
  hold: Promise<void> | undefined;
  calls = 0;
  /** Every request in order: `status` or `finalizer`. */
  readonly requests: string[] = [];
  async writeStatus(instance: Instance, status: InstanceStatus): Promise<Instance> {
    this.calls++;
    this.requests.push('status');
    if (this.hold) await this.hold;
    if (this.fail) throw new Error('409 Conflict');
    this.written.push(structuredClone(status));
    return { ...instance, status: structuredClone(status) };
  }
  addFinalizer(instance: Instance): Promise<Instance> {
    this.requests.push('finalizer');
    const finalizers = [...(instance.metadata.finalizers ?? []), 'kudo.dev.instance.cleanup'];
    return Promise.resolve({ ...instance, metadata: { ...instance.metadata, finalizers } });
  }
}

const instance: Instance = {
  apiVersion: 'kudo.dev/v1beta1',
  kind: 'Instance',
  metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '1' },
  spec: {},
};
const cm = (name: string): InventoryEntry => ({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  namespace: 'ns',
  name,
});
const names = (status: InstanceStatus | undefined): string[] =>
  (status?.inventory ?? []).map((e) => String(e['name']));

function session(writer: FakeWriter): StatusSession {
  return new StatusSession(instance, writer, () => new Date(0), new AbortController().signal);
}

describe('StatusSession inventory writes', () => {
  it('writes entries before the caller applies by default', async () => {
    const writer = new FakeWriter();
    const s = session(writer);
    await s.record([cm('x')]);
    expect(writer.written.map(names)).toEqual([['x']]);
    expect(s.unwritten).toEqual([]);
  });

  it('entries found without the inventory wait for the next flush, which writes them once', async () => {
    const writer = new FakeWriter();
    const s = session(writer);
    await s.record([cm('x'), cm('y')], { foundWithoutInventory: true });
    expect(writer.written).toEqual([]);
    expect(s.has(cm('x'))).toBe(true);
    expect(s.unwritten.map((e) => e.name)).toEqual(['x', 'y']);
    await s.flush();
    await s.flush();
    expect(writer.written.map(names)).toEqual([['x', 'y']]);
    expect(s.unwritten).toEqual([]);
  });

  it('a failed write leaves them unwritten; a later session adopts and writes them', async () => {
    const writer = new FakeWriter();
    const s = session(writer);
    await s.record([cm('x')], { foundWithoutInventory: true });
    writer.fail = true;
    await expect(s.flush()).rejects.toThrow('409');
    expect(s.unwritten.map((e) => e.name)).toEqual(['x']);
    writer.fail = false;
    const next = session(writer);
    next.adopt(s.unwritten);
    await next.flush();
    expect(writer.written.map(names)).toEqual([['x']]);
    expect(next.unwritten).toEqual([]);
  });

  it('an entry recorded while a write is in flight is not counted as written', async () => {
    const writer = new FakeWriter();
    const s = session(writer);
    await s.record([cm('x')], { foundWithoutInventory: true });
    let release = (): void => undefined;
    writer.hold = new Promise((r) => (release = r));
    const first = s.flush();
    while (writer.calls === 0) await Promise.resolve();
    await s.record([cm('y')], { foundWithoutInventory: true });
    writer.hold = undefined;
    release();
    await first;
    expect(writer.written.map(names)).toEqual([['x']]);
    expect(s.unwritten.map((e) => e.name)).toEqual(['y']);
    await s.flush();
    expect(writer.written.map(names).at(-1)).toEqual(['x', 'y']);
    expect(s.unwritten).toEqual([]);
  });
});

describe('StatusSession cleanup finalizer', () => {
  const role = (name: string): InventoryEntry => ({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRole',
    name,
  });

  it('owned objects of the Instance namespace need none, also when written before applying', async () => {
    const writer = new FakeWriter();
    const s = session(writer);
    await s.record([cm('pod-like')]);
    await s.record([cm('x')], { foundWithoutInventory: true });
    await s.flush();
    expect(writer.requests).toEqual(['status', 'status']);
    expect(s.instance.metadata.finalizers).toBeUndefined();
  });

  it.each<[string, InventoryEntry]>([
    ['a cluster-scoped object', role('r')],
    ['an object in another namespace', { ...cm('x'), namespace: 'other' }],
    ['an object in a target cluster', { ...cm('x'), cluster: 'secret:ns/kc/value' }],
    ['a gc: keep object', { ...cm('x'), policy: 'keep' }],
    [
      'a child Instance',
      { group: 'kudo.dev', version: 'v1beta1', kind: 'Instance', namespace: 'ns', name: 'c' },
    ],
  ])('%s gets the finalizer onto the Instance before its record is written', async (_, e) => {
    const writer = new FakeWriter();
    const s = session(writer);
    await s.record([cm('own'), e]);
    expect(writer.requests).toEqual(['finalizer', 'status']);
    expect(s.instance.metadata.finalizers).toEqual(['kudo.dev.instance.cleanup']);
    await s.record([{ ...role('second') }]);
    expect(writer.requests).toEqual(['finalizer', 'status', 'status']);
  });

  it('requireFinalizer adds it once, and nothing when the Instance has it', async () => {
    const writer = new FakeWriter();
    const s = session(writer);
    await s.requireFinalizer();
    await s.requireFinalizer();
    expect(writer.requests).toEqual(['finalizer']);
    const has = new StatusSession(
      {
        ...instance,
        metadata: { ...instance.metadata, finalizers: ['kudo.dev.instance.cleanup'] },
      },
      writer,
      () => new Date(0),
      new AbortController().signal,
    );
    await has.requireFinalizer();
    expect(writer.requests).toEqual(['finalizer']);
  });
});
