/**
 * Prometheus metrics of the webhook server, registered on the `Registry` passed in (never
 * prom-client's global one, so two servers in one process — tests — do not collide).
 *
 * @example
 * const metrics = new ServerMetrics(new Registry());
 * const done = metrics.begin('instances', 'mutating');
 * done('allowed');
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { WebhookType } from './admission/handler.ts';

/** How a review ended: answered allowed or denied, handler error/timeout, or bad input. */
export type AdmissionOutcome = 'allowed' | 'denied' | 'error' | 'bad_request';

interface BoundMetrics {
  readonly inFlight: { inc(): void; dec(): void };
  readonly duration: { observe(value: number): void };
  readonly requests: Record<AdmissionOutcome, { inc(): void }>;
}

export class ServerMetrics {
  readonly registry: Registry;
  private readonly requests: Counter<'webhook' | 'type' | 'outcome'>;
  private readonly duration: Histogram<'webhook' | 'type'>;
  private readonly inFlight: Gauge<'webhook' | 'type'>;
  private readonly certificateExpiry: Gauge;
  private readonly certificateReloads: Counter;
  private readonly bound = new Map<string, BoundMetrics>();

  constructor(registry: Registry) {
    this.registry = registry;
    const registers = [registry];
    this.requests = new Counter({
      name: 'planwright_webhook_requests_total',
      help: 'Admission reviews answered, by webhook, type and outcome.',
      labelNames: ['webhook', 'type', 'outcome'],
      registers,
    });
    this.duration = new Histogram({
      name: 'planwright_webhook_request_duration_seconds',
      help: 'Time from request start to answer, by webhook and type.',
      labelNames: ['webhook', 'type'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.inFlight = new Gauge({
      name: 'planwright_webhook_requests_in_flight',
      help: 'Admission reviews being handled, by webhook and type.',
      labelNames: ['webhook', 'type'],
      registers,
    });
    this.certificateExpiry = new Gauge({
      name: 'planwright_webhook_certificate_expiry_timestamp_seconds',
      help: 'notAfter of the serving certificate in use (Unix seconds).',
      registers,
    });
    this.certificateReloads = new Counter({
      name: 'planwright_webhook_certificate_reloads_total',
      help: 'Times a new serving certificate was swapped in.',
      registers,
    });
  }

  /** Starts timing one review; call the returned function exactly once with the outcome. */
  begin(webhook: string, type: WebhookType): (outcome: AdmissionOutcome) => void {
    const bound = this.boundFor(webhook, type);
    bound.inFlight.inc();
    const start = process.hrtime.bigint();
    return (outcome) => {
      bound.inFlight.dec();
      bound.duration.observe(Number(process.hrtime.bigint() - start) / 1e9);
      bound.requests[outcome].inc();
    };
  }

  /** Label children are resolved once per webhook: label hashing per request is measurable. */
  private boundFor(webhook: string, type: WebhookType): BoundMetrics {
    const key = `${type}/${webhook}`;
    let bound = this.bound.get(key);
    if (!bound) {
      const labels = { webhook, type };
      bound = {
        inFlight: this.inFlight.labels(labels),
        duration: this.duration.labels(labels),
        requests: {
          allowed: this.requests.labels({ ...labels, outcome: 'allowed' }),
          denied: this.requests.labels({ ...labels, outcome: 'denied' }),
          error: this.requests.labels({ ...labels, outcome: 'error' }),
          bad_request: this.requests.labels({ ...labels, outcome: 'bad_request' }),
        },
      };
      this.bound.set(key, bound);
    }
    return bound;
  }

  certificateLoaded(notAfter: Date): void {
    this.certificateExpiry.set(notAfter.getTime() / 1000);
    this.certificateReloads.inc();
  }
}
