/**
 * The handler contract and the guarded call around it: a deadline, exceptions turned into a
 * 500 denial naming the webhook, and the rule that a validating webhook never patches.
 *
 * @example
 * const handler: AdmissionHandler = async (request, { signal, dryRun }) =>
 *   request.object?.['metadata'] ? allow() : denyForbidden('no metadata');
 */
import type { Logger } from 'pino';
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

/** Calls the handler and never throws: every failure becomes a 500 denial plus an error log. */
export async function runHandler(
  request: AdmissionRequest,
  options: RunHandlerOptions,
): Promise<AdmissionResult> {
  const { webhook, type, handler, timeoutMs } = options;
  // Everything per request is made lazily: a pino child, the AbortController, the deadline
  // timer and the stop listener cost more than a no-op review, and a handler that answers
  // synchronously (most do: they read caches) needs none of them.
  let child: Logger | undefined;
  const logger = (): Logger => (child ??= options.logger.child({ webhook, uid: request.uid }));
  let controller: AbortController | undefined;
  let onStop: (() => void) | undefined;
  const abortController = (): AbortController => {
    if (!controller) {
      const created = new AbortController();
      onStop = (): void => created.abort(options.signal.reason);
      if (options.signal.aborted) onStop();
      else options.signal.addEventListener('abort', onStop, { once: true });
      controller = created;
    }
    return controller;
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = handler(request, {
      get signal() {
        return abortController().signal;
      },
      dryRun: request.dryRun,
      get logger() {
        return logger();
      },
    });
    const result = isPromise(answer)
      ? await Promise.race([
          answer,
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => {
              const err = new HandlerTimeoutError(webhook, timeoutMs);
              abortController().abort(err);
              reject(err);
            }, timeoutMs);
          }),
        ])
      : answer;
    if (type === 'validating' && result.kind === 'patch') {
      logger().error('validating webhook handler returned a patch; denying');
      return denyInternal(
        `validating webhook "${webhook}" returned a patch, which only mutating webhooks may do`,
      );
    }
    return result;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    logger().error({ err }, 'admission handler failed');
    return err instanceof HandlerTimeoutError
      ? denyInternal(message)
      : denyInternal(`webhook "${webhook}" failed to handle the request: ${message}`);
  } finally {
    clearTimeout(timer);
    if (onStop) options.signal.removeEventListener('abort', onStop);
  }
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
