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
  // A pino child costs more than a no-op review; make it only when someone logs.
  let child: Logger | undefined;
  const logger = (): Logger => (child ??= options.logger.child({ webhook, uid: request.uid }));
  const controller = new AbortController();
  const onStop = (): void => controller.abort(options.signal.reason);
  options.signal.addEventListener('abort', onStop, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new HandlerTimeoutError(webhook, timeoutMs);
      controller.abort(err);
      reject(err);
    }, timeoutMs);
  });
  try {
    const result = await Promise.race([
      Promise.resolve().then(() =>
        handler(request, {
          signal: controller.signal,
          dryRun: request.dryRun,
          get logger() {
            return logger();
          },
        }),
      ),
      deadline,
    ]);
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
    options.signal.removeEventListener('abort', onStop);
  }
}
