/**
 * Where a render job runs. The controller uses a RoutingRenderer (routing.ts): templates
 * bounded by construction on the main thread, the rest in the render pool (worker processes
 * with a deadline and a memory limit, src/kudo/pool/). {@link InlineRenderer} runs
 * every job on the calling thread — for tests and tools that render trusted packages, never
 * for the process that serves the webhooks.
 */
import {
  TemplateCache,
  jobsOf,
  renderJob,
  type RenderBatch,
  type RenderJob,
  type RenderOutput,
} from './templates.ts';

export interface Renderer {
  /**
   * Renders one template. Rejects with RenderError or ParameterValueError for problems of
   * the job itself (deterministic), with a RenderLimitError when the job exceeded the
   * deadline or memory limit, with the signal's reason when aborted.
   */
  render(job: RenderJob, signal?: AbortSignal): Promise<RenderOutput>;
  /**
   * Renders a task's templates in order, with one trip to a worker; the outputs in the same
   * order. Rejects as {@link render} does, for the first template that fails.
   */
  renderAll(batch: RenderBatch, signal?: AbortSignal): Promise<RenderOutput[]>;
}

export class InlineRenderer implements Renderer {
  constructor(private readonly cache: TemplateCache = new TemplateCache()) {}

  render(job: RenderJob, signal?: AbortSignal): Promise<RenderOutput> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    try {
      return Promise.resolve(renderJob(this.cache, job));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  renderAll(batch: RenderBatch, signal?: AbortSignal): Promise<RenderOutput[]> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    try {
      return Promise.resolve(jobsOf(batch).map((job) => renderJob(this.cache, job)));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }
}
