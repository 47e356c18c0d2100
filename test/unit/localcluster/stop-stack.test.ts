import { describe, expect, it } from '@jest/globals';
import { StopStack } from '../../../src/localcluster/stop-stack.ts';

describe('StopStack', () => {
  it('runs the stops newest first, each once', async () => {
    const stops = new StopStack();
    const ran: string[] = [];
    for (const name of ['folder', 'etcd', 'apiserver']) {
      stops.defer(() => Promise.resolve(ran.push(name)));
    }
    await stops.stopAll();
    await stops.stopAll();
    expect(ran).toEqual(['apiserver', 'etcd', 'folder']);
  });

  it('ends at the first stop that fails and leaves what lies below it', async () => {
    const stops = new StopStack();
    const ran: string[] = [];
    stops.defer(() => Promise.resolve(ran.push('record')));
    stops.defer(() => Promise.reject(new Error('node would not stop')));
    stops.defer(() => Promise.resolve(ran.push('workloads')));
    await expect(stops.stopAll()).rejects.toThrow('node would not stop');
    expect(ran).toEqual(['workloads']);
  });
});
