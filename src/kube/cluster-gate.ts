/**
 * Per-cluster isolation for target clusters: a client whose requests pass a gate that
 * remembers when the cluster last failed to answer (connection refused, reset, timed out, or a
 * 502/503/504 from a proxy in front of it) and then refuses further requests without touching
 * the network until a retry time that doubles (1 s → 30 s, with jitter) while the cluster
 * stays down. A slow or dead cluster thus costs its own callers at most one request timeout
 * per retry period, never the workers other clusters need.
 *
 * See examples/api/kube.ts.
 */
import type { KubeConfig } from './kubeconfig.ts';
import { JitteredBackoff } from './backoff.ts';
import {
  KubeClient,
  type KubeClientLimits,
  type RequestOptions,
  type WatchOptions,
} from './client.ts';
import { ApiError } from './errors.ts';

/** The cluster did not answer; nothing is sent to it before `retryAt`. */
export class ClusterUnavailableError extends Error {
  override readonly name = 'ClusterUnavailableError';
  constructor(
    readonly cluster: string,
    readonly server: string,
    readonly reason: string,
    readonly retryAt: Date,
    options?: { cause?: unknown },
  ) {
    super(
      `cluster ${cluster} (${server}) is unreachable: ${reason}; next retry at ${retryAt.toISOString()}`,
      options,
    );
  }
}

export interface ClusterGateOptions {
  /** First pause after a failure. Default 1 s. */
  readonly minMs?: number;
  /** Cap of the pause. Default 30 s. */
  readonly maxMs?: number;
  readonly now?: () => number;
  readonly random?: () => number;
}

/** Whether an error says the cluster itself is not answering (as opposed to refusing a request). */
export function isUnreachable(err: unknown): boolean {
  if (err instanceof ClusterUnavailableError) return true;
  if (err instanceof ApiError) return [0, 502, 503, 504].includes(err.statusCode);
  // Anything else thrown by a request is the transport failing (socket errors, and the
  // DOMException of an aborted or timed-out request, which is not always an Error instance).
  return err !== undefined && err !== null;
}

function reasonOf(err: unknown): string {
  if (err !== null && typeof err === 'object') {
    const { name, code, message } = err as { name?: unknown; code?: unknown; message?: unknown };
    const text = typeof message === 'string' ? message : 'the request failed';
    if (name === 'TimeoutError' || name === 'AbortError') {
      return 'no answer within the request timeout';
    }
    return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
  }
  return String(err);
}

export class ClusterGate {
  private failures = 0;
  private openAt = 0;
  private lastReason = '';
  /** The code base's one jittered backoff; reset only by a success (never by time alone). */
  private readonly backoff: JitteredBackoff;

  constructor(
    readonly cluster: string,
    readonly server: string,
    private readonly options: ClusterGateOptions = {},
  ) {
    this.backoff = new JitteredBackoff({
      initialMs: options.minMs ?? 1_000,
      maxMs: options.maxMs ?? 30_000,
      factor: 2,
      jitter: 0.2,
      resetAfterMs: Number.POSITIVE_INFINITY,
      now: options.now,
      random: options.random,
    });
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Throws {@link ClusterUnavailableError} while the cluster is paused. */
  check(): void {
    if (this.failures > 0 && this.now() < this.openAt) {
      throw new ClusterUnavailableError(
        this.cluster,
        this.server,
        this.lastReason,
        new Date(this.openAt),
      );
    }
  }

  /** True while requests are refused. */
  get down(): boolean {
    return this.failures > 0 && this.now() < this.openAt;
  }

  /** When the gate opens again (0 when it is open). */
  get retryAt(): number {
    return this.down ? this.openAt : 0;
  }

  succeeded(): void {
    this.failures = 0;
    this.openAt = 0;
    this.backoff.reset();
  }

  /** Records a failure to reach the cluster; returns the error callers should see. */
  failed(err: unknown): ClusterUnavailableError {
    if (err instanceof ClusterUnavailableError) return err;
    this.failures++;
    this.openAt = this.now() + this.backoff.next();
    this.lastReason = reasonOf(err);
    return new ClusterUnavailableError(
      this.cluster,
      this.server,
      this.lastReason,
      new Date(this.openAt),
      { cause: err },
    );
  }
}

export interface GatedKubeClientOptions {
  /** Timeout of every request that does not set its own (bounded either way). Default 10 s. */
  readonly timeoutMs?: number;
  /** What the client reads at most (sizes, watch duration, which addresses it connects to). */
  readonly limits?: KubeClientLimits;
}

/**
 * A {@link KubeClient} whose requests pass the cluster's {@link ClusterGate}, each with a
 * deadline of its own, and whose watches are refused while the gate is closed.
 */
export class GatedKubeClient extends KubeClient {
  constructor(
    kubeConfig: KubeConfig,
    readonly gate: ClusterGate,
    private readonly gated: GatedKubeClientOptions = {},
  ) {
    super(kubeConfig, gate.cluster, gated.limits ?? {});
  }

  override async request<T>(options: RequestOptions): Promise<T> {
    this.gate.check();
    const limit = this.gated.timeoutMs ?? 10_000;
    try {
      const answer = await super.request<T>({
        ...options,
        timeoutMs: Math.min(options.timeoutMs ?? limit, limit),
      });
      this.gate.succeeded();
      return answer;
    } catch (err) {
      if (options.signal?.aborted) throw err;
      if (err instanceof ApiError && !isUnreachable(err)) {
        this.gate.succeeded();
        throw err;
      }
      throw isUnreachable(err) ? this.gate.failed(err) : err;
    }
  }

  /** A watch only while the gate is open (its own deadline is the client's maxWatchMs). */
  override async watch(options: WatchOptions): Promise<void> {
    this.gate.check();
    await super.watch(options);
  }
}
