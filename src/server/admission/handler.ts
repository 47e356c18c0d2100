/**
 * The handler contract and the guarded call around it: a deadline, exceptions turned into a
 * 500 denial naming the webhook, and the rule that a validating webhook never patches.
 *
 * See examples/api/server.ts.
 */
import type { Level, Logger } from 'pino';
import { HandlerTimeoutError } from '../errors.ts';
import type { AdmissionRequest } from './review.ts';
import { denyInternal, type AdmissionResult } from './response.ts';

export type WebhookType = 'mutating' | 'validating';

export interface AdmissionContext {
  /** Aborted when the deadline passes or the server stops; pass it to any I/O. */
  readonly signal: AbortSignal;
  /** The request will not be persisted: a handler must have no side effects (it never should). */
  readonly dryRun: boolean;
  /** Child logger bound to the webhook name and request uid. */
  readonly logger: Logger;
  /**
   * Whether `logger` writes at `level`. Asking makes no child logger: a handler that logs
   * only at debug level checks this first, and most reviews then need no logger at all.
   */
  isLevelEnabled(level: Level): boolean;
}

export type AdmissionHandler = (
  request: AdmissionRequest,
  context: AdmissionContext,
) => AdmissionResult | Promise<AdmissionResult>;

export interface RunHandlerOptions {
  readonly webhook: string;
  readonly type: WebhookType;
  readonly handler: AdmissionHandler;
  readonly timeoutMs: number;
  readonly logger: Logger;
  /** The server's stop signal. */
  readonly signal: AbortSignal;
}

/**
 * The context a handler receives. Its logger and AbortController are made on first use: a
 * pino child, an AbortController and a stop listener cost more than a no-op review, and a
 * handler that answers synchronously (most do: they read caches) needs none of them.
 *
 * A class rather than an object literal with getters, on purpose: V8 gives every such
 * literal its own accessor pair, allocated where the scavenger has to trace it, and under a
 * steady stream of reviews that kept enough alive per young-generation GC to stretch the
 * scavenges into the p99. Getters on a prototype are shared.
 */
class LazyContext implements AdmissionContext {
  private child: Logger | undefined;
  private controller: AbortController | undefined;
  private onStop: (() => void) | undefined;

  constructor(
    private readonly request: AdmissionRequest,
    private readonly options: RunHandlerOptions,
  ) {}

  get dryRun(): boolean {
    return this.request.dryRun;
  }

  get logger(): Logger {
    this.child ??= this.options.logger.child({
      webhook: this.options.webhook,
      uid: this.request.uid,
    });
    return this.child;
  }

  get signal(): AbortSignal {
    return this.abortController().signal;
  }

  isLevelEnabled(level: Level): boolean {
    return this.options.logger.isLevelEnabled(level);
  }

  abortController(): AbortController {
    if (!this.controller) {
      const created = new AbortController();
      const stop = this.options.signal;
      this.onStop = (): void => created.abort(stop.reason);
      if (stop.aborted) this.onStop();
      else stop.addEventListener('abort', this.onStop, { once: true });
      this.controller = created;
    }
    return this.controller;
  }

  /** Drops the stop listener, if one was added; the context is done. */
  release(): void {
    if (this.onStop) this.options.signal.removeEventListener('abort', this.onStop);
  }
}

/**
 * Calls the handler and never throws: every failure becomes a 500 denial plus an error log.
 * A handler that answers synchronously gets its result back synchronously, without a
 * promise or a deadline timer (it cannot overrun one).
 */
export function runHandler(
  request: AdmissionRequest,
  options: RunHandlerOptions,
): AdmissionResult | Promise<AdmissionResult> {
  const context = new LazyContext(request, options);
  let answer: AdmissionResult | Promise<AdmissionResult>;
  try {
    answer = options.handler(request, context);
  } catch (err) {
    context.release();
    return failed(err, context, options);
  }
  if (isPromise(answer)) return settle(answer, context, options);
  context.release();
  return checked(answer, context, options);
}

/** Waits for an asynchronous answer, up to the deadline. */
async function settle(
  answer: Promise<AdmissionResult>,
  context: LazyContext,
  options: RunHandlerOptions,
): Promise<AdmissionResult> {
  const { webhook, timeoutMs } = options;
  let timer: NodeJS.Timeout | undefined;
  try {
    const result = await Promise.race([
      answer,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const err = new HandlerTimeoutError(webhook, timeoutMs);
          context.abortController().abort(err);
          reject(err);
        }, timeoutMs);
      }),
    ]);
    return checked(result, context, options);
  } catch (err) {
    return failed(err, context, options);
  } finally {
    clearTimeout(timer);
    context.release();
  }
}

/** A validating webhook may not patch: that would be silently ignored by the apiserver. */
function checked(
  result: AdmissionResult,
  context: LazyContext,
  options: RunHandlerOptions,
): AdmissionResult {
  if (options.type === 'validating' && result.kind === 'patch') {
    context.logger.error('validating webhook handler returned a patch; denying');
    return denyInternal(
      `validating webhook "${options.webhook}" returned a patch, which only mutating webhooks may do`,
    );
  }
  return result;
}

function failed(err: unknown, context: LazyContext, options: RunHandlerOptions): AdmissionResult {
  const message = err instanceof Error ? err.message : String(err);
  context.logger.error({ err }, 'admission handler failed');
  return err instanceof HandlerTimeoutError
    ? denyInternal(message)
    : denyInternal(`webhook "${options.webhook}" failed to handle the request: ${message}`);
}

export function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
