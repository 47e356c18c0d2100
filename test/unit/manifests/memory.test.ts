// The Deployment's memory request and limit against the code's defaults: the render workers
// the manager starts under that limit, at their budgets, plus the main process and the
// admission worker, fit in it; the worker count is capped to the limit, never above it; the
// request is the main process's own figure.
import { describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { defaultRenderWorkers } from '../../../src/kudo/pool/index.ts';
import { MANIFESTS_DIR } from '../../../src/cli/install.ts';
import {
  MAIN_PROCESS_REQUEST_MB,
  cgroupMemoryLimitMb,
  memoryNeededMb,
  workersFitting,
} from '../../../src/kudo/render/memory-budget.ts';

function mebibytes(quantity: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!match) throw new Error(`unexpected quantity ${quantity}`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}

interface Resources {
  readonly requests: { readonly memory: string };
  readonly limits: { readonly memory: string };
}

async function deploymentResources(): Promise<Resources> {
  const text = await readFile(join(MANIFESTS_DIR, 'deployment', 'deployment.yaml'), 'utf8');
  for (const doc of parseAllDocuments(text)) {
    const obj = doc.toJS() as { kind?: string; spec?: unknown };
    if (obj.kind !== 'Deployment') continue;
    const containers = (
      obj.spec as { template: { spec: { containers: Array<{ resources: Resources }> } } }
    ).template.spec.containers;
    if (containers[0]) return containers[0].resources;
  }
  throw new Error('no Deployment in manifests/deployment');
}

async function deploymentLimitMb(): Promise<number> {
  return mebibytes((await deploymentResources()).limits.memory);
}

describe('memory budget', () => {
  it('the Deployment limit holds exactly two render workers at their budgets', async () => {
    // Two: with one worker per namespace at most, one is always left for the others.
    const limit = await deploymentLimitMb();
    expect(workersFitting(limit)).toBe(2);
    expect(memoryNeededMb(2)).toBe(limit);
  });

  it("the Deployment requests the main process's own memory", async () => {
    expect(mebibytes((await deploymentResources()).requests.memory)).toBe(MAIN_PROCESS_REQUEST_MB);
  });

  it('under that limit the default worker count fits, whatever the CPU count', async () => {
    const limit = await deploymentLimitMb();
    expect(memoryNeededMb(defaultRenderWorkers(limit))).toBeLessThanOrEqual(limit);
  });

  it('caps workers to a small limit but keeps one', () => {
    expect(workersFitting(512)).toBe(1);
    expect(defaultRenderWorkers(512)).toBe(1);
    expect(workersFitting(256)).toBe(1);
  });

  it('reads cgroup v2 and v1 limits; none when unlimited or absent', () => {
    const files = (entries: Record<string, string>) => (path: string) => {
      const value = entries[path];
      if (value === undefined) throw new Error('ENOENT');
      return value;
    };
    expect(cgroupMemoryLimitMb(files({ '/sys/fs/cgroup/memory.max': '1207959552\n' }))).toBe(1152);
    expect(cgroupMemoryLimitMb(files({ '/sys/fs/cgroup/memory.max': 'max\n' }))).toBeUndefined();
    expect(
      cgroupMemoryLimitMb(files({ '/sys/fs/cgroup/memory/memory.limit_in_bytes': '536870912' })),
    ).toBe(512);
    expect(
      cgroupMemoryLimitMb(
        files({ '/sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712' }),
      ),
    ).toBeUndefined();
    expect(cgroupMemoryLimitMb(files({}))).toBeUndefined();
  });
});
