/**
 * The express handler behind `/mutate/<name>` and `/validate/<name>`: body → review → handler
 * → response, with metrics, and a JSON answer for every failure.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { AdmissionInputError } from '../errors.ts';
import type { ServerMetrics } from '../metrics.ts';
import { discardRest, readJsonBody } from './body.ts';
import { isPromise, runHandler, type AdmissionHandler, type WebhookType } from './handler.ts';
import { toAdmissionResponse } from './response.ts';
import {
  ADMISSION_REVIEW_V1,
  parseAdmissionReview,
  reviewUid,
  type AdmissionResponse,
  type AdmissionReviewResponse,
} from './review.ts';

export interface AdmissionRouteOptions {
  readonly type: WebhookType;
  readonly handlers: ReadonlyMap<string, AdmissionHandler>;
  readonly metrics: ServerMetrics;
  readonly logger: Logger;
  readonly bodyLimitBytes: number;
  readonly handlerTimeoutMs: number;
  readonly signal: AbortSignal;
}

export function admissionRoute(
  options: AdmissionRouteOptions,
): (name: string, req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { type, handlers, metrics, logger } = options;
  return async (name, req, res) => {
    const handler = handlers.get(name);
    if (!handler) {
      // Drain so the connection stays usable, then answer.
      req.resume();
      send(
        res,
        404,
        failure('', 404, 'NotFound', `no ${type} webhook named "${name}" is registered`),
      );
      return;
    }
    const done = metrics.begin(name, type);
    let body: unknown;
    try {
      body = await readJsonBody(req, options.bodyLimitBytes);
      const request = parseAdmissionReview(body);
      const answer = runHandler(request, {
        webhook: name,
        type,
        handler,
        timeoutMs: options.handlerTimeoutMs,
        logger,
        signal: options.signal,
      });
      // Awaiting a plain value would still cost a microtask turn per review.
      const result = isPromise(answer) ? await answer : answer;
      done(result.kind === 'deny' ? (result.status.code >= 500 ? 'error' : 'denied') : 'allowed');
      send(res, 200, toAdmissionResponse(request.uid, result));
    } catch (err) {
      if (err instanceof AdmissionInputError) {
        done('bad_request');
        logger.warn({ webhook: name, status: err.status, err }, 'rejected admission input');
        const unread = err.status === 413 || err.status === 415;
        if (unread) res.setHeader('Connection', 'close');
        send(
          res,
          err.status,
          failure(reviewUid(body), err.status, reasonFor(err.status), err.message),
        );
        // The answer is out first; then what the client still sends is drained (bounded).
        if (unread) discardRest(req, options.bodyLimitBytes);
        return;
      }
      // Only a bug in the server itself gets here: runHandler never throws.
      done('error');
      logger.error({ err, webhook: name }, 'admission route failed');
      send(res, 500, failure(reviewUid(body), 500, 'InternalError', `webhook "${name}" failed`));
    }
  };
}

function reasonFor(status: number): string {
  return status === 413
    ? 'RequestEntityTooLarge'
    : status === 415
      ? 'UnsupportedMediaType'
      : 'BadRequest';
}

function failure(uid: string, code: number, reason: string, message: string): AdmissionResponse {
  return { uid, allowed: false, status: { code, reason, message } };
}

function send(res: ServerResponse, status: number, response: AdmissionResponse): void {
  if (res.headersSent) return;
  // Written directly rather than through res.json: this is the hot path.
  const review: AdmissionReviewResponse = {
    apiVersion: ADMISSION_REVIEW_V1,
    kind: 'AdmissionReview',
    response,
  };
  const payload = JSON.stringify(review);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(payload),
  });
  res.end(payload);
}
