/**
 * A bounded pool of render worker processes. The event loop belongs to the webhooks and the
 * Lease, so work whose cost a package or a user controls — template rendering, decoding
 * parameter YAML, regular expressions — runs here: at most `size` jobs at once, each with a
 * deadline and each worker with a heap limit. A job past its deadline gets its worker
 * killed (JavaScript cannot be interrupted otherwise) and fails with a
 * {@link RenderLimitError} naming the template and the limit; a worker that runs out of
 * memory or dies fails its job the same way. Either way the worker is replaced on demand and
 * nothing else in the process notices. (Why processes and not worker threads: spawn.ts.)
 *
 * Workers start on demand — up to `size` while jobs wait, so a burst gets the full
 * concurrency — and a worker that has had nothing to do for `idleMs` exits: an idle replica
 * keeps no worker processes (each costs a Node runtime's memory). {@link warm} starts one
 * ahead of need and keeps the idle workers alive while its callers keep calling it.
 *
 * Waiting jobs are served fairly between namespaces (fair-queue.ts): round-robin, and one
 * namespace holds at most `maxWorkersPerNamespace` workers (all but one by default), so a
 * namespace whose templates each run to their deadline cannot make the others wait for all
 * of its backlog.
 *
 * See examples/api/kudo.ts.
 */
import type { ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { OperatorVersion } from '../api/index.ts';
import type { VerifyResult } from '../verify/index.ts';
import type { DecodeOutcome } from '../params/index.ts';
import type { Renderer } from '../render/index.ts';
import {
  RenderError,
  jobsOf,
  type RenderBatch,
  type RenderJob,
  type RenderOutput,
  ParameterValueError,
  WORKER_OVERHEAD_MB,
} from '../render/index.ts';
import { RenderLimitError, RenderPoolBusyError, RenderPoolStoppedError } from './errors.ts';
import { READY, type WorkerFailure, type WorkerReply, type WorkerRequest } from './protocol.ts';
import { FairQueue } from './fair-queue.ts';
import { RenderPoolMetrics } from './metrics.ts';
import { cpuTimeMs } from './cpu-time.ts';
import { LOADER_OVERHEAD_MB, spawnRenderWorker } from './spawn.ts';
import { residentBytes } from './rss.ts';
import { templatesSubject } from './subject.ts';

export interface RenderPoolOptions {
  /** For thread names and logs (`render`, `admission`). */
  readonly name: string;
  /** Worker processes at most (started on demand). */
  readonly size: number;
  /** A worker with no job for this long exits (and {@link RenderPool.warm} was not called meanwhile). Default 30 s. */
  readonly idleMs?: number;
  /**
   * CPU time one job may use (its worker's, where the OS reports it: Linux; elsewhere
   * wall-clock time). CPU rather than wall-clock time, so that a busy machine does not fail
   * a valid template as if it looped.
   */
  readonly deadlineMs: number;
  /**
   * Wall-clock time one job may take however little CPU it got. Default
   * {@link WALL_LIMIT_FACTOR} × `deadlineMs`.
   * (Callers with a tighter wall-clock bound — the webhook's — abort through the job's signal.)
   */
  readonly wallLimitMs?: number;
  /** Old-generation heap of each worker (V8 `--max-old-space-size`). */
  readonly maxHeapMb: number;
  /**
   * Resident memory of each worker, MiB: a worker past it is killed and its job fails as out
   * of memory. Default `maxHeapMb` + {@link WORKER_OVERHEAD_MB}, what the memory budget (and
   * so the Deployment's limit) counts per worker.
   */
  readonly maxRssMb?: number;
  /**
   * CPU niceness of the workers. Default 10 (below the main process). 0 for a pool that
   * answers within a caller's wall-clock deadline (admission): starved at 10 on a busy node,
   * its start and its jobs took ~10× longer.
   */
  readonly niceness?: number;
  /** Jobs that may wait for a worker; beyond that {@link RenderPoolBusyError}. Default 256. */
  readonly maxQueued?: number;
  /**
   * Workers the jobs of one namespace may hold at once. Default `size` − 1 (at least 1): with
   * two or more workers one is always left for the other namespaces.
   */
  readonly maxWorkersPerNamespace?: number;
  /** Jobs one namespace may have waiting; beyond that {@link RenderPoolBusyError}. Default a quarter of `maxQueued`. */
  readonly maxQueuedPerNamespace?: number;
  /** Time a new worker may take to load its modules. Default 60 s. */
  readonly startTimeoutMs?: number;
  readonly logger: Logger;
  /** Metrics (`planwright_render_workers`, `planwright_render_limited_total`) go here. */
  readonly registry?: Registry;
}

/** The default wall-clock limit of a job, in multiples of its (CPU-time) deadline. */
export const WALL_LIMIT_FACTOR = 10;

/**
 * How often a busy worker's resident memory is read, ms. What a template grows in that time
 * is judged from the previous interval (see watchMemory); single allocations beyond the heap
 * limit are bounded where they are made (the engine's string limit).
 */
export const RSS_POLL_MS = 20;
/**
 * A worker is stopped this far below its budget, MiB: it may grow between two reads, and the
 * budget is what the container's limit counts, so the kill has to come before it.
 */
const RSS_HEADROOM_MB = 8;
const MIB = 2 ** 20;

/** A worker could not start (its modules did not load): not the job's fault, retry later. */
export class RenderWorkerStartError extends Error {
  override readonly name = 'RenderWorkerStartError';
}

interface Pending {
  readonly request: WorkerRequest;
  /** Whose job it is, for fairness: the namespace of the Instance or OperatorVersion ('' for none). */
  readonly tenant: string;
  /** `template <name>` or `parameter value`, for errors and logs. */
  readonly subject: string;
  /** Wall-clock time the job may take once a worker has it. */
  readonly deadlineMs: number;
  readonly resolve: (reply: WorkerReply) => void;
  readonly reject: (err: Error) => void;
  readonly signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

interface Slot {
  readonly worker: ChildProcess;
  ready: boolean;
  job: Pending | undefined;
  timer: NodeJS.Timeout | undefined;
  /** Reads the worker's resident memory while it has a job. */
  watch: NodeJS.Timeout | undefined;
  /** The worker's resident memory at the watch's previous read, bytes (0 before the first). */
  lastRss: number;
  /** Armed while the worker is ready and has no job: ends it after the pool's idle time. */
  idle: NodeJS.Timeout | undefined;
  /** When the worker last finished a job (or became ready). */
  idleSince: number;
  /** The end of the worker's stderr, where V8 says why it died. */
  stderr: string;
  readonly exited: Promise<void>;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`RenderPool: ${name} must be a positive number, got ${value}`);
  }
  return value;
}

export class RenderPool implements Renderer {
  private readonly slots = new Set<Slot>();
  private readonly queue: FairQueue<Pending>;
  private readonly maxQueued: number;
  private readonly startTimeoutMs: number;
  private readonly idleMs: number;
  private readonly wallLimitMs: number;
  private readonly maxRssMb: number;
  /** The last {@link warm} call: idle workers live `idleMs` past it. */
  private warmedAt = 0;
  /** When a worker last failed to start: {@link warm} does not retry for `idleMs` after. */
  private startFailedAt = Number.NEGATIVE_INFINITY;
  /** Callers of {@link warm} waiting for a worker to be ready. */
  private readonly warming: (() => void)[] = [];
  private readonly metrics: RenderPoolMetrics | undefined;
  private nextId = 1;
  private stopping = false;
  private stopped: Promise<void> | undefined;

  constructor(private readonly options: RenderPoolOptions) {
    positive('size', options.size);
    positive('deadlineMs', options.deadlineMs);
    positive('maxHeapMb', options.maxHeapMb);
    this.maxQueued = positive('maxQueued', options.maxQueued ?? 256);
    this.queue = new FairQueue({
      maxHeldPerTenant: positive(
        'maxWorkersPerNamespace',
        options.maxWorkersPerNamespace ?? Math.max(1, options.size - 1),
      ),
      maxQueuedPerTenant: positive(
        'maxQueuedPerNamespace',
        options.maxQueuedPerNamespace ?? Math.max(1, Math.floor(this.maxQueued / 4)),
      ),
    });
    this.startTimeoutMs = positive('startTimeoutMs', options.startTimeoutMs ?? 60_000);
    this.idleMs = positive('idleMs', options.idleMs ?? 30_000);
    this.wallLimitMs = positive(
      'wallLimitMs',
      options.wallLimitMs ?? WALL_LIMIT_FACTOR * options.deadlineMs,
    );
    this.maxRssMb = positive(
      'maxRssMb',
      options.maxRssMb ?? options.maxHeapMb + WORKER_OVERHEAD_MB + LOADER_OVERHEAD_MB,
    );
    this.metrics = options.registry
      ? new RenderPoolMetrics(options.registry, options.name)
      : undefined;
  }

  private counted(): void {
    const ready = [...this.slots].filter((s) => s.ready).length;
    this.metrics?.workerCounts(this.slots.size - ready, ready);
  }

  /**
   * Takes jobs until `signal` aborts; then stops like {@link stop}. Starts no worker itself:
   * workers start when jobs (or {@link warm}) need them. A stopped pool starts again (a
   * replica's next term of leadership) once its previous stop has finished; jobs submitted
   * in between fail with RenderPoolStoppedError.
   */
  start(signal: AbortSignal): void {
    if (signal.aborted) {
      void this.stop();
      return;
    }
    const begin = (): void => {
      if (signal.aborted) return;
      this.stopping = false;
      this.stopped = undefined;
      signal.addEventListener('abort', () => void this.stop(), { once: true });
    };
    if (this.stopped) void this.stopped.then(begin);
    else begin();
  }

  /** Fails queued and running jobs with RenderPoolStoppedError and ends every worker. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping = true;
      for (const pending of this.queue.drain()) this.settle(pending, new RenderPoolStoppedError());
      const exits: Promise<void>[] = [];
      for (const slot of [...this.slots]) {
        // Referenced again while we wait for it: an unreferenced child's exit alone would
        // not keep the event loop alive, and a caller awaiting stop() would hang up.
        slot.worker.ref();
        const job = this.release(slot);
        if (job) this.settle(job, new RenderPoolStoppedError());
        exits.push(slot.exited);
      }
      this.warmed();
      await Promise.all(exits);
    })();
    return this.stopped;
  }

  /** Workers alive now, starting or ready (for tests and metrics). */
  get workers(): number {
    return this.slots.size;
  }

  /**
   * Makes sure one worker is running (starting one if none is) and keeps the idle workers
   * alive for another `idleMs`. Cheap enough to call on every request of a path that must
   * not wait for a worker's start (no timer is touched while a worker is alive). Resolves
   * once a worker is ready, or its start failed (jobs then report that).
   */
  warm(): Promise<void> {
    this.warmedAt = Date.now();
    if (this.stopping) return Promise.resolve();
    if (this.slots.size === 0) {
      // A worker that cannot start (its modules do not load) is not retried on every call:
      // jobs still start one when they need it, and report why it failed.
      if (Date.now() - this.startFailedAt < this.idleMs) return Promise.resolve();
      this.spawn();
    }
    const ready = [...this.slots].find((s) => s.ready);
    if (ready) return Promise.resolve();
    return new Promise<void>((resolve) => this.warming.push(resolve));
  }

  private warmed(): void {
    for (const resolve of this.warming.splice(0)) resolve();
  }

  async render(job: RenderJob, signal?: AbortSignal): Promise<RenderOutput> {
    const reply = await this.submit(
      { id: this.nextId++, kind: 'render', job },
      { subject: `template ${job.template}`, tenant: job.scalars.Namespace },
      signal,
    );
    if (reply.kind === 'render') return reply.output;
    if (reply.kind === 'failed') throw rebuild(reply.failure);
    throw new Error(`render pool: unexpected reply ${reply.kind} to a render job`);
  }

  /**
   * A task's templates in one job: one message to a worker and one back instead of one pair
   * per template. The deadline is the pool's per template (the batch's sum); a limit names
   * every template of the batch, since the worker cannot say which one it was in.
   */
  async renderAll(batch: RenderBatch, signal?: AbortSignal): Promise<RenderOutput[]> {
    if (batch.templates.length === 0) return [];
    const [only] = batch.templates.length === 1 ? jobsOf(batch) : [];
    if (only) return [await this.render(only, signal)];
    const reply = await this.submit(
      { id: this.nextId++, kind: 'renderAll', batch },
      {
        subject: `templates ${templatesSubject(batch)}`,
        tenant: batch.scalars.Namespace,
        deadlineMs: this.options.deadlineMs * batch.templates.length,
      },
      signal,
    );
    if (reply.kind === 'renderAll') return reply.outputs;
    if (reply.kind === 'failed') throw rebuild(reply.failure);
    throw new Error(`render pool: unexpected reply ${reply.kind} to a render job`);
  }

  /** Decodes an array/map parameter value (YAML) in a worker. */
  async decode(raw: string, type: 'array' | 'map', signal?: AbortSignal): Promise<DecodeOutcome> {
    const reply = await this.submit(
      { id: this.nextId++, kind: 'decode', raw, type },
      { subject: 'parameter value', tenant: '' },
      signal,
    );
    if (reply.kind === 'decode') return reply.outcome;
    if (reply.kind === 'failed') return { problem: rebuild(reply.failure).message };
    throw new Error(`render pool: unexpected reply ${reply.kind} to a decode job`);
  }

  /**
   * `package verify` of an OperatorVersion, rendering included, in a worker (the validating
   * webhook's check at `kubectl apply` time). Fails with RenderLimitError past the deadline.
   */
  async verify(
    operatorVersion: OperatorVersion,
    namespaceManifest: string | undefined,
    signal?: AbortSignal,
  ): Promise<VerifyResult> {
    const reply = await this.submit(
      {
        id: this.nextId++,
        kind: 'verify',
        operatorVersion,
        namespaceManifest,
      },
      { subject: 'package verification', tenant: operatorVersion.metadata.namespace ?? '' },
      signal,
    );
    if (reply.kind === 'verify') return reply.result;
    if (reply.kind === 'failed') throw rebuild(reply.failure);
    throw new Error(`render pool: unexpected reply ${reply.kind} to a verify job`);
  }

  private submit(
    request: WorkerRequest,
    job: { readonly subject: string; readonly tenant: string; readonly deadlineMs?: number },
    signal: AbortSignal | undefined,
  ): Promise<WorkerReply> {
    if (this.stopping) return Promise.reject(new RenderPoolStoppedError());
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.queue.size >= this.maxQueued) {
      return Promise.reject(new RenderPoolBusyError(this.queue.size));
    }
    return new Promise<WorkerReply>((resolve, reject) => {
      const pending: Pending = {
        request,
        subject: job.subject,
        tenant: job.tenant,
        deadlineMs: job.deadlineMs ?? this.options.deadlineMs,
        resolve,
        reject,
        signal,
        onAbort: undefined,
      };
      if (signal) {
        pending.onAbort = (): void => this.abort(pending);
        signal.addEventListener('abort', pending.onAbort, { once: true });
      }
      if (!this.queue.push(pending.tenant, pending)) {
        this.settle(pending, new RenderPoolBusyError(this.queue.waiting(pending.tenant)));
        return;
      }
      this.dispatch();
    });
  }

  /**
   * Hands waiting jobs to idle workers in the fair queue's order, starting workers up to the
   * pool size for the jobs that may run now (a namespace at its cap waits for its own jobs).
   */
  private dispatch(): void {
    this.counted();
    if (this.stopping) return;
    while (this.queue.runnable > 0) {
      const idle = [...this.slots].find((s) => s.ready && !s.job);
      const next = idle ? this.queue.take() : undefined;
      if (idle && next) {
        this.run(idle, next.job);
        continue;
      }
      const starting = [...this.slots].filter((s) => !s.ready).length;
      if (this.slots.size < this.options.size && starting < this.queue.runnable) {
        this.spawn();
        continue;
      }
      return;
    }
  }

  private spawn(): void {
    const { name, maxHeapMb, niceness } = this.options;
    const worker = spawnRenderWorker({ maxHeapMb, niceness }, `planwright-${name}`);
    // The pool is stopped explicitly; idle workers must not keep the process alive.
    worker.unref();
    worker.channel?.unref();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    const slot: Slot = {
      worker,
      ready: false,
      job: undefined,
      timer: undefined,
      watch: undefined,
      lastRss: 0,
      idle: undefined,
      idleSince: 0,
      stderr: '',
      exited,
    };
    this.slots.add(slot);
    this.counted();
    worker.stderr?.on('data', (chunk: Buffer) => {
      slot.stderr = (slot.stderr + chunk.toString('utf8')).slice(-4096);
    });
    (worker.stderr as { unref?: () => void } | null)?.unref?.();
    slot.timer = setTimeout(
      () => this.failStart(slot, `did not start within ${this.startTimeoutMs} ms`),
      this.startTimeoutMs,
    );
    worker.on('message', (message: WorkerReply | typeof READY) => {
      if (message === READY) {
        clearTimeout(slot.timer);
        slot.ready = true;
        this.warmed();
        this.rest(slot);
        this.dispatch();
        return;
      }
      const job = this.release(slot, false);
      if (job && job.request.id === message.id) this.settle(job, message);
      if (this.overBudget(slot)) {
        // What the job left behind (caches, fragmentation) would count against the next
        // job's budget: a fresh worker takes it instead.
        this.release(slot);
        this.replace();
        return;
      }
      this.rest(slot);
      this.dispatch();
    });
    worker.on('error', (err) => {
      // Spawning failed, or the channel broke: either way this worker is done.
      if (!slot.ready) this.failStart(slot, err.message);
      else this.died(slot, `the render worker failed: ${err.message}`);
    });
    worker.on('exit', (code, signal) => {
      if (!this.slots.has(slot)) return;
      if (!slot.ready) return this.failStart(slot, `exited (${signal ?? code}) while starting`);
      this.died(slot, `the render worker exited (${signal ?? code})`);
    });
  }

  /** Whether the worker's resident memory is past its budget (false where it is unknown). */
  private overBudget(slot: Slot): boolean {
    return this.pastBudget(residentBytes(slot.worker.pid));
  }

  private pastBudget(rssBytes: number | undefined): boolean {
    return rssBytes !== undefined && rssBytes > this.killAtMb() * MIB;
  }

  /**
   * Whether a busy worker is stopped now: past the headroom, or about to pass its budget if it
   * grows as much again before the next read (what it grows between two reads depends on the
   * template and on how late the timer fires; the last interval is the best guess).
   */
  private mustStop(rssBytes: number, growthBytes: number): boolean {
    return this.pastBudget(rssBytes) || rssBytes + growthBytes > this.maxRssMb * MIB;
  }

  /** Resident memory at which a worker is stopped, MiB. */
  private killAtMb(): number {
    return Math.max(this.maxRssMb - RSS_HEADROOM_MB, this.maxRssMb / 2);
  }

  /** Ends a job whose worker uses more memory than its budget. */
  private watchMemory(slot: Slot, pending: Pending): void {
    if (slot.job !== pending) return;
    const rss = residentBytes(slot.worker.pid);
    if (rss === undefined) {
      // No /proc here: only the heap limit applies.
      clearInterval(slot.watch);
      slot.watch = undefined;
      return;
    }
    const growth = slot.lastRss > 0 ? Math.max(0, rss - slot.lastRss) : 0;
    slot.lastRss = rss;
    if (!this.mustStop(rss, growth)) return;
    const job = this.release(slot);
    if (!job) return;
    const { maxHeapMb } = this.options;
    const usedMb = Math.floor(rss / MIB);
    const growing =
      growth > 0 ? ` and was growing by ${Math.ceil(growth / MIB)} MiB between two reads` : '';
    const detail = `ran out of memory: used ${usedMb} MiB${growing} (the limit is ${maxHeapMb} MiB of heap and ${this.maxRssMb} MiB in all per render worker)`;
    this.options.logger.warn(
      { pool: this.options.name, subject: job.subject, limit: 'memory' },
      detail,
    );
    this.metrics?.limited('memory');
    this.settle(job, new RenderLimitError(job.subject, 'memory', detail));
    this.replace();
  }

  /** A worker died on its own: its job ran out of memory, or crashed the runtime. */
  private died(slot: Slot, why: string): void {
    if (!this.slots.has(slot)) return;
    const job = this.release(slot);
    if (job) {
      const memory = /out of memory|heap limit/i.test(slot.stderr);
      const limit = memory ? 'memory' : 'crash';
      const detail = memory
        ? `ran out of memory (the limit is ${this.options.maxHeapMb} MiB per render worker)`
        : why;
      this.options.logger.warn({ pool: this.options.name, subject: job.subject, limit }, detail);
      this.metrics?.limited(limit);
      this.settle(job, new RenderLimitError(job.subject, limit, detail));
    }
    this.replace();
  }

  /**
   * A worker that was serving is gone: start its successor now rather than when the next job
   * arrives, so the next job (another Instance's, most likely) does not wait for a start.
   */
  private replace(): void {
    if (!this.stopping && this.slots.size < this.options.size) this.spawn();
    this.dispatch();
  }

  /** A ready worker without a job: it exits once idle for `idleMs` (unless warmed meanwhile). */
  private rest(slot: Slot): void {
    slot.idleSince = Date.now();
    if (slot.idle) return; // already armed: it re-checks when it fires
    const check = (): void => {
      slot.idle = undefined;
      if (!this.slots.has(slot) || slot.job || this.stopping) return;
      const quietMs = Date.now() - Math.max(slot.idleSince, this.warmedAt);
      if (quietMs < this.idleMs) {
        slot.idle = setTimeout(check, this.idleMs - quietMs);
        slot.idle.unref();
        return;
      }
      this.options.logger.debug(
        { pool: this.options.name, idleMs: this.idleMs },
        'idle worker exits',
      );
      this.release(slot);
    };
    slot.idle = setTimeout(check, this.idleMs);
    slot.idle.unref();
  }

  private run(slot: Slot, pending: Pending): void {
    slot.job = pending;
    const { name } = this.options;
    // A batch of templates gets the pool's limits once per template.
    const { deadlineMs } = pending;
    const wallLimitMs = this.wallLimitMs * (deadlineMs / this.options.deadlineMs);
    const pid = slot.worker.pid;
    const cpuAtStart = cpuTimeMs(pid);
    const startedAt = performance.now();
    const check = (): void => {
      if (slot.job !== pending) return;
      const now = cpuTimeMs(pid);
      const cpuMs = cpuAtStart === undefined || now === undefined ? undefined : now - cpuAtStart;
      const wallMs = performance.now() - startedAt;
      // Starved of CPU by other processes, not spinning: it may go on (up to the wall limit).
      if (cpuMs !== undefined && cpuMs < deadlineMs && wallMs < wallLimitMs) {
        const rest = Math.min(Math.max(deadlineMs - cpuMs, 50), wallLimitMs - wallMs);
        slot.timer = setTimeout(check, rest);
        return;
      }
      const job = this.release(slot);
      if (!job) return;
      const perTemplate =
        deadlineMs === this.options.deadlineMs
          ? ''
          : `, ${this.options.deadlineMs} ms per template`;
      const detail =
        cpuMs === undefined || cpuMs >= deadlineMs
          ? `did not finish within ${deadlineMs} ms (the render deadline${perTemplate}); the render was stopped`
          : `did not finish within ${Math.round(wallMs)} ms of wall-clock time (the limit is ${wallLimitMs} ms on a busy machine; it got ${cpuMs} ms of its ${deadlineMs} ms render deadline); the render was stopped`;
      this.options.logger.warn({ pool: name, subject: job.subject, limit: 'deadline' }, detail);
      this.metrics?.limited('deadline');
      this.settle(job, new RenderLimitError(job.subject, 'deadline', detail));
      this.replace();
    };
    slot.timer = setTimeout(check, deadlineMs);
    slot.lastRss = 0;
    slot.watch = setInterval(() => this.watchMemory(slot, pending), RSS_POLL_MS);
    this.metrics?.job(pending.request.kind);
    slot.worker.send(pending.request);
  }

  /** A job's signal aborted: drop it from the queue, or stop the worker running it. */
  private abort(pending: Pending): void {
    const reason = (pending.signal?.reason as Error | undefined) ?? new Error('aborted');
    if (this.queue.remove(pending.tenant, pending)) {
      this.settle(pending, reason);
      return;
    }
    for (const slot of this.slots) {
      if (slot.job === pending) {
        this.release(slot);
        this.settle(pending, reason);
        this.replace();
        return;
      }
    }
  }

  /**
   * Detaches the slot's job. With `terminate` (default) the worker is ended and forgotten:
   * whatever it was doing can no longer be trusted to finish.
   */
  private release(slot: Slot, terminate = true): Pending | undefined {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    clearInterval(slot.watch);
    slot.watch = undefined;
    if (terminate) {
      clearTimeout(slot.idle);
      slot.idle = undefined;
    }
    const job = slot.job;
    slot.job = undefined;
    if (job) this.queue.release(job.tenant);
    if (terminate) {
      this.slots.delete(slot);
      slot.worker.kill('SIGKILL');
      this.counted();
    }
    return job;
  }

  private failStart(slot: Slot, why: string): void {
    if (!this.slots.has(slot)) return;
    this.release(slot);
    this.startFailedAt = Date.now();
    const err = new RenderWorkerStartError(`a ${this.options.name} worker ${why}`);
    this.options.logger.error({ pool: this.options.name, err }, 'render worker failed to start');
    // Not the jobs' fault: fail them as retryable rather than start workers in a loop.
    for (const pending of this.queue.drain()) this.settle(pending, err);
    this.warmed();
  }

  private settle(pending: Pending, outcome: WorkerReply | Error): void {
    if (pending.onAbort) pending.signal?.removeEventListener('abort', pending.onAbort);
    if (outcome instanceof Error) pending.reject(outcome);
    else pending.resolve(outcome);
  }
}

/** The typed error of a job's own failure. */
function rebuild(failure: WorkerFailure): Error {
  return failure.kind === 'parameter'
    ? new ParameterValueError(failure.parameter, failure.detail)
    : new RenderError(failure.template, failure.line, failure.detail);
}
