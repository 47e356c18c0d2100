/**
 * What the manager's processes may use together, so a container's memory limit can hold them:
 * the main process, the admission worker and the render workers, each worker its V8 heap limit
 * plus what a Node.js process needs besides the heap. The render worker count is capped to
 * what fits under the container's limit (cgroup), and manifests/deployment sets its limit from
 * the same figures (test/unit/manifests checks it).
 */
import { readFileSync } from 'node:fs';

/**
 * Heap of one render worker (V8 `--max-old-space-size`), MiB. A template of 15,000 small
 * objects (1.5 Mi characters) renders within it at ~150 MiB resident; far more than that
 * runs into the CPU-time deadline first (bench/README.md, "Lean").
 */
export const RENDER_WORKER_HEAP_MB = 128;
/** Heap of the admission worker, MiB: the largest parameter value (512 KiB of YAML) decodes at ~155 MiB resident. */
export const ADMISSION_WORKER_HEAP_MB = 128;
/**
 * A worker process beyond its old-generation heap limit, MiB: the Node runtime and the
 * template engine (an idle worker is ~60 MiB resident), new space (three 2 MiB semi-spaces,
 * spawn.ts) and buffers. The render pool enforces it: a worker past heap + this is killed
 * (pool.ts), so the container's limit built from it holds.
 */
export const WORKER_OVERHEAD_MB = 64;
/**
 * The main process (webhook, caches, controllers), MiB: with the image's node flags
 * (MANAGER_NODE_FLAGS) it peaked at ~102 MiB with 1,000 Instances and ~161 MiB with 10,000
 * (3 ConfigMaps each; ~6.6 kB more per Instance: the heap grows by 30 % past each full
 * collection), bench/vs-kudo. Room for 10,000 and a margin; a larger installation raises the
 * limit by what its own Instances add.
 */
export const MAIN_PROCESS_MB = 192;
/**
 * What the Deployment requests: the main process at ~1,000 Instances with no worker running
 * (an idle replica runs none), rounded up.
 */
export const MAIN_PROCESS_REQUEST_MB = 128;

/** Memory the manager may use with `workers` render workers of `heapMb` each, MiB. */
export function memoryNeededMb(workers: number, heapMb: number = RENDER_WORKER_HEAP_MB): number {
  return (
    MAIN_PROCESS_MB +
    ADMISSION_WORKER_HEAP_MB +
    WORKER_OVERHEAD_MB +
    workers * (heapMb + WORKER_OVERHEAD_MB)
  );
}

/** The most render workers that fit in `limitMb` (at least 1: rendering must run). */
export function workersFitting(limitMb: number, heapMb: number = RENDER_WORKER_HEAP_MB): number {
  const spare = limitMb - memoryNeededMb(0, heapMb);
  return Math.max(1, Math.floor(spare / (heapMb + WORKER_OVERHEAD_MB)));
}

/**
 * The container's memory limit from its cgroup (v2 `memory.max`, v1 `memory.limit_in_bytes`),
 * MiB; undefined when there is none or it cannot be read (not in a container).
 */
export function cgroupMemoryLimitMb(
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): number | undefined {
  for (const path of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    let text: string;
    try {
      text = read(path).trim();
    } catch {
      continue;
    }
    if (!/^\d+$/.test(text)) return undefined;
    const mb = Math.floor(Number(text) / (1024 * 1024));
    // cgroup v1 reports "no limit" as a huge number.
    return mb > 0 && mb < 1024 * 1024 * 1024 ? mb : undefined;
  }
  return undefined;
}
