/**
 * Metrics of a render pool: workers by state (a pool whose workers keep dying shows it here
 * before anyone reads the log), jobs handed to workers by kind (one message to a worker and
 * one back each) and jobs ended by a limit.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { RenderLimit } from './errors.ts';

export class RenderPoolMetrics {
  private readonly workers: Gauge<'pool' | 'state'>;
  private readonly limits: Counter<'pool' | 'limit'>;
  private readonly jobs: Counter<'pool' | 'kind'>;

  constructor(
    registry: Registry,
    private readonly pool: string,
  ) {
    const registers = [registry];
    this.workers =
      (registry.getSingleMetric('planwright_render_workers') as Gauge<'pool' | 'state'>) ??
      new Gauge({
        name: 'planwright_render_workers',
        help: 'Render worker processes by pool and state (starting, ready)',
        labelNames: ['pool', 'state'],
        registers,
      });
    this.limits =
      (registry.getSingleMetric('planwright_render_limited_total') as Counter<'pool' | 'limit'>) ??
      new Counter({
        name: 'planwright_render_limited_total',
        help: 'Render and decode jobs ended by a limit (deadline, memory, crash)',
        labelNames: ['pool', 'limit'],
        registers,
      });
    this.jobs =
      (registry.getSingleMetric('planwright_render_jobs_total') as Counter<'pool' | 'kind'>) ??
      new Counter({
        name: 'planwright_render_jobs_total',
        help: "Render jobs by kind: handed to a worker (render: one template; renderAll: a task's templates; decode; verify) or rendered on the main thread (inline: a template or a task's templates, all bounded by construction)",
        labelNames: ['pool', 'kind'],
        registers,
      });
    this.workers.set({ pool, state: 'starting' }, 0);
    this.workers.set({ pool, state: 'ready' }, 0);
  }

  workerCounts(starting: number, ready: number): void {
    this.workers.set({ pool: this.pool, state: 'starting' }, starting);
    this.workers.set({ pool: this.pool, state: 'ready' }, ready);
  }

  job(kind: string): void {
    this.jobs.inc({ pool: this.pool, kind });
  }

  limited(limit: RenderLimit): void {
    this.limits.inc({ pool: this.pool, limit });
  }
}
