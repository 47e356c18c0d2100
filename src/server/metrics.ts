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

export class ServerMetrics {
  readonly registry: Registry;
  private readonly requests: Counter<'webhook' | 'type' | 'outcome'>;
  private readonly duration: Histogram<'webhook' | 'type'>;
  private readonly inFlight: Gauge<'webhook' | 'type'>;
  private readonly certificateExpiry: Gauge;
  private readonly certificateReloads: Counter;

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
    const labels = { webhook, type };
    this.inFlight.inc(labels);
    const start = process.hrtime.bigint();
    return (outcome) => {
      this.inFlight.dec(labels);
      this.duration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
      this.requests.inc({ webhook, type, outcome });
    };
  }

  certificateLoaded(notAfter: Date): void {
    this.certificateExpiry.set(notAfter.getTime() / 1000);
    this.certificateReloads.inc();
  }
}
