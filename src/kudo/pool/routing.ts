/**
 * The controller's renderer: templates that are cheap by construction (bounded.ts) render
 * on the main thread, everything else in the render pool's worker processes. A typical
 * template — field lookups, `quote`, `default`, `toYaml | indent` — costs microseconds here
 * and a process round trip (serialise, send, parse, render, serialise back) in a worker; a
 * template that could loop or grow without bound still runs only where a deadline and a heap
 * limit can stop it. The pool starts workers on demand, so a controller whose templates are
 * all bounded starts none.
 *
 * A task's templates go one way together: all inline, or the whole batch to one worker. A
 * bounded template whose output turns out long (more YAML than the main thread should parse)
 * is rendered again in a worker; its execution here was cheap by construction.
 */
import { compileTemplate, TemplateError, type Template } from '../../gotemplate/index.ts';
import {
  INLINE_MAX_PARSE_CHARS,
  INLINE_MAX_TEMPLATE_CHARS,
  boundedness,
  inputSize,
  withinInlineLimits,
  type Boundedness,
  TemplateCache,
  executeJob,
  jobsOf,
  parseJobOutput,
  type RenderBatch,
  type RenderJob,
  type RenderOutput,
} from '../render/index.ts';
import type { Registry } from 'prom-client';
import { DecodeMemo } from './memo.ts';
import { RenderPoolMetrics } from './metrics.ts';
import type { Renderer } from '../render/index.ts';
import { convert } from '../params/index.ts';

export interface RoutingRendererOptions {
  /** Renders what is not bounded: the render pool. */
  readonly workers: Renderer;
  /** Counts inline jobs in `planwright_render_jobs_total{kind="inline"}` (workers count their own). */
  readonly registry?: Registry;
  /** The pool's name in metrics. Default `render`. */
  readonly pool?: string;
  /** Parsed bounded templates kept (default 128). */
  readonly cacheSize?: number;
}

/** Classifications remembered (per OperatorVersion revision and template). */
const MAX_CLASSIFIED = 1024;

export class RoutingRenderer implements Renderer {
  private readonly workers: Renderer;
  private readonly metrics: RenderPoolMetrics | undefined;
  private readonly cache: TemplateCache;
  private readonly classified = new Map<string, Boundedness>();
  /** Decoded array/map values: the same ones come back on every plan pass. Small: ≤ 64 KiB each job. */
  private readonly memo = new DecodeMemo(256, 1024 * 1024);
  private readonly decode = (raw: unknown, type: 'array' | 'map'): unknown =>
    this.memo.get(raw, type, () => convert(raw, type));

  constructor(options: RoutingRendererOptions) {
    this.workers = options.workers;
    this.metrics = options.registry
      ? new RenderPoolMetrics(options.registry, options.pool ?? 'render')
      : undefined;
    this.cache = new TemplateCache(options.cacheSize ?? 128);
  }

  async render(job: RenderJob, signal?: AbortSignal): Promise<RenderOutput> {
    const [output] = await this.renderJobs([job], signal, async () => [
      await this.workers.render(job, signal),
    ]);
    if (!output) throw new Error(`renderer returned no output for template ${job.template}`);
    return output;
  }

  renderAll(batch: RenderBatch, signal?: AbortSignal): Promise<RenderOutput[]> {
    return this.renderJobs(jobsOf(batch), signal, () => this.workers.renderAll(batch, signal));
  }

  /**
   * Executes the jobs here if all are bounded and parses their output here if all of it is
   * short; otherwise `toWorkers` (all of them: a task's templates stay one worker job).
   */
  private renderJobs(
    jobs: readonly RenderJob[],
    signal: AbortSignal | undefined,
    toWorkers: () => Promise<RenderOutput[]>,
  ): Promise<RenderOutput[]> {
    if (!jobs.every((job) => this.inline(job))) return toWorkers();
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    let texts: string[];
    try {
      texts = jobs.map((job) => executeJob(this.cache, job, this.decode));
    } catch (err) {
      // The job's own failure, exactly as a worker reports it (the same code ran).
      this.metrics?.job('inline');
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    // Too much YAML to parse on this thread (the execution was cheap): a worker does both.
    if (texts.some((text) => text.length > INLINE_MAX_PARSE_CHARS)) return toWorkers();
    this.metrics?.job('inline');
    try {
      return Promise.resolve(jobs.map((job, i) => parseJobOutput(job, texts[i] ?? '')));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Whether `job` renders on this thread. */
  inline(job: RenderJob): boolean {
    const found = this.classify(job);
    if (found !== 'unparsable' && !found.bounded) return false;
    const s = inputSize(job.text, job.scalars, job.parameters, job.pipes);
    if (s === undefined) return false;
    // An unparsable template fails in renderJob with the parse error, as in a worker.
    return found === 'unparsable' || withinInlineLimits(found, s);
  }

  private classify(job: RenderJob): Boundedness | 'unparsable' {
    const known = this.classified.get(job.key);
    if (known) return known;
    if (job.text.length > INLINE_MAX_TEMPLATE_CHARS) {
      return { bounded: false, reason: 'the template text is too large' };
    }
    let template: Template;
    try {
      template = compileTemplate(job.template, job.text, { funcs: 'kudo', missingKey: 'error' });
    } catch (err) {
      if (err instanceof TemplateError) return 'unparsable';
      // The parser itself failed otherwise (it should not): let a worker find out.
      return { bounded: false, reason: 'the template did not parse' };
    }
    let found: Boundedness;
    try {
      found = boundedness(template);
    } catch {
      // The walk itself failed (its stack, on nesting the parser allowed): not proven cheap.
      found = { bounded: false, reason: 'the template could not be analysed' };
    }
    if (this.classified.size >= MAX_CLASSIFIED) this.classified.clear();
    this.classified.set(job.key, found);
    return found;
  }
}
