/**
 * The App's two render pools, made from one {@link RenderSettings}: `render` renders templates
 * for the controller; `admission` decodes parameter values and verifies packages for the
 * webhook, with its own worker so that it never waits behind renders. Each runs as a runnable
 * of the manager ({@link poolRunnable}); its workers start when jobs need them.
 */
import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { aborted, runnable, type Runnable } from '../../runtime/index.ts';
import {
  ADMISSION_WORKER_HEAP_MB,
  RENDER_WORKER_HEAP_MB,
  cgroupMemoryLimitMb,
  workersFitting,
} from '../render/index.ts';
import { RenderPool } from './pool.ts';

/**
 * Limits of the render pools (rendering, OperatorVersion verification and the decoding of
 * large parameter values run in worker processes). Workers start when work needs them and
 * exit after their idle time without work. Admission decodes small values inline and starts
 * its one worker only for an OperatorVersion write or a large value: at normal priority the
 * start fits well inside the webhook's deadline even on a loaded node.
 */
export interface RenderSettings {
  /** Render workers at most (parallel renders). Default: {@link defaultRenderWorkers}. */
  readonly workers?: number;
  /** A render worker without work this long exits. Default 30 s. */
  readonly idleMs?: number;
  /**
   * The admission worker without work this long exits. Default 1 s: its jobs are rare (an
   * OperatorVersion write, a large value) and a start is cheap (inside the webhook's
   * deadline), while it costs a Node runtime's memory for as long as it lives — a longer idle
   * time kept it in the peak of the Instance burst that follows an OperatorVersion write. 1 s
   * still serves the back-to-back writes of one `kubectl kudo install` or `kubectl apply -f
   * <dir>`. Figures: bench/README.md, "Figures behind defaults".
   */
  readonly admissionIdleMs?: number;
  /** CPU-time limit of one template render (wall-clock: 10 × as much). Default 10 s. */
  readonly deadlineMs?: number;
  /** Heap of one render worker, MiB. Default {@link RENDER_WORKER_HEAP_MB}. */
  readonly maxHeapMb?: number;
  /** Wall-clock limit of decoding one parameter value for admission. Default 4 s (under the webhook handler's 4.5 s). */
  readonly decodeDeadlineMs?: number;
}

/**
 * Render workers by default: one per CPU, at least 1 and at most 4, and no more than fit
 * under the container's memory limit (kudo/render/memory-budget.ts).
 */
export function defaultRenderWorkers(
  limitMb: number | undefined = cgroupMemoryLimitMb(),
  heapMb: number = RENDER_WORKER_HEAP_MB,
): number {
  const byCpu = Math.max(1, Math.min(4, availableParallelism()));
  return limitMb === undefined ? byCpu : Math.min(byCpu, workersFitting(limitMb, heapMb));
}

export function renderPools(
  settings: RenderSettings,
  parts: { readonly logger: Logger; readonly registry: Registry },
): { readonly render: RenderPool; readonly admission: RenderPool } {
  const { logger, registry } = parts;
  const render = new RenderPool({
    name: 'render',
    size: settings.workers ?? defaultRenderWorkers(cgroupMemoryLimitMb(), settings.maxHeapMb),
    deadlineMs: settings.deadlineMs ?? 10_000,
    idleMs: settings.idleMs,
    maxHeapMb: settings.maxHeapMb ?? RENDER_WORKER_HEAP_MB,
    logger: logger.child({ component: 'render-pool' }),
    registry,
  });
  const admission = new RenderPool({
    name: 'admission',
    size: 1,
    deadlineMs: settings.decodeDeadlineMs ?? 4_000,
    // The webhook's window is wall-clock time: past it, a reasoned denial, not a timeout.
    wallLimitMs: settings.decodeDeadlineMs ?? 4_000,
    idleMs: settings.admissionIdleMs ?? 1_000,
    // It answers within the webhook's wall-clock deadline: not starved behind the node's
    // other work (its CPU is bounded by that deadline anyway).
    niceness: 0,
    maxHeapMb: ADMISSION_WORKER_HEAP_MB,
    logger: logger.child({ component: 'admission-pool' }),
    registry,
  });
  return { render, admission };
}

/**
 * A render pool as a runnable on every replica: takes jobs until the signal aborts, then
 * stopped. No readiness check waits for it: its workers start when jobs need them.
 */
export function poolRunnable(name: string, pool: RenderPool): Runnable {
  return runnable(name, false, async (signal) => {
    pool.start(signal);
    await aborted(signal);
    await pool.stop();
  });
}
